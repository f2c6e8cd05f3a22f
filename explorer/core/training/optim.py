"""The optimiser of the book's training loop (d2l §11.7: Adam, gradient clipping at 1) on one flat buffer.

Adam and the clipping are PyTorch's own (``torch.optim.Adam(fused=True)``, ``clip_grad_norm_``):
``bench/kernel_ablation.py`` measured our hand-written versions against them and they did not win. What stays
is the layout: every parameter is a view of one flat tensor, so the optimiser, the norm, zeroing the
gradients and a distributed all-reduce each touch one tensor.
"""
from __future__ import annotations

import torch
from torch import Tensor


def flatten_parameters(params: list[Tensor]) -> Tensor:
    """Move ``params`` into one flat buffer and give each a gradient that is a view of one flat gradient.

    Each parameter keeps its identity (a leaf, same shape and values) but its ``.data`` becomes a view of
    the returned tensor, and its ``.grad`` a view of the returned tensor's ``.grad``; a backward pass then
    adds into that gradient in place. Elementwise optimisers and the global norm can work on the one
    tensor: a handful of kernel calls per step instead of a handful per parameter, same arithmetic.
    Zero ``flat.grad`` before each backward pass (do not set the parameters' gradients to None).

    Returns
    -------
    (N,) flat tensor of all values, its ``.grad`` an (N,) zero tensor.
    """
    if not params:
        raise ValueError("no parameters to flatten")
    if len({(p.dtype, p.device) for p in params}) > 1:
        raise ValueError("parameters of mixed dtypes or devices cannot share one flat buffer")
    flat = torch.cat([p.detach().reshape(-1) for p in params])  # (N,)
    flat.grad = torch.zeros_like(flat)
    offset = 0
    for p in params:
        n = p.numel()
        p.data = flat[offset:offset + n].view_as(p)  # (N,) slice -> p's shape
        p.grad = flat.grad[offset:offset + n].view_as(p)  # (N,) slice -> p's shape
        offset += n
    return flat


def adam(flat: Tensor, lr: float) -> torch.optim.Adam:
    """``torch.optim.Adam`` over the flat buffer: the fused kernel (one pass over the buffer, the fastest in
    ``bench/kernel_ablation.py``) where the device has one, else the ``foreach`` kernels."""
    try:
        return torch.optim.Adam([flat], lr=lr, fused=True)
    except RuntimeError:  # a device without a fused Adam
        return torch.optim.Adam([flat], lr=lr, foreach=True)


def adam_moments(optimizer: torch.optim.Adam, flat: Tensor) -> tuple[Tensor, Tensor, int]:
    """Adam's first and second moments (N,) of ``flat`` and its step count (zeros and 0 before a step)."""
    state = optimizer.state.get(flat)
    if not state:
        return torch.zeros_like(flat), torch.zeros_like(flat), 0
    return state["exp_avg"], state["exp_avg_sq"], int(state["step"])


def load_adam_moments(optimizer: torch.optim.Adam, flat: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor,
                      steps: int) -> None:
    """Continue Adam from saved moments (N,) and step count (an exact resume)."""
    if steps == 0:
        return  # nothing to continue: Adam starts from zeros
    group = {k: v for k, v in optimizer.param_groups[0].items() if k != "params"}
    # load_state_dict puts each value where this optimiser keeps it (the step on the device when fused)
    optimizer.load_state_dict({"state": {0: {"step": torch.tensor(float(steps)), "exp_avg": exp_avg.clone(),
                                             "exp_avg_sq": exp_avg_sq.clone()}},
                               "param_groups": [{**group, "params": [0]}]})
