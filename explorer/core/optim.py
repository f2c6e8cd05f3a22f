"""The optimiser and gradient clipping of the book's training loop (d2l §9.7 ``grad_clipping``, Adam),
written with ``foreach`` kernels and without host synchronisation.
"""
from __future__ import annotations

import torch
from torch import Tensor


def clip_grad_norm(grads: list[Tensor], max_norm: float) -> Tensor:
    """The book's ``grad_clipping``: if the global L2 norm exceeds ``max_norm``, scale every gradient by
    ``max_norm / norm``. Done with ``foreach`` kernels and no host sync; returns the norm before clipping."""
    norm = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    torch._foreach_mul_(grads, torch.clamp(max_norm / norm, max=1.0))
    return norm


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


class Adam:
    """Adam (Kingma & Ba), the update of ``torch.optim.Adam(foreach=True)`` without its bookkeeping.

    Same arithmetic in the same order (so the same numbers), with the step count kept as a Python int:
    ``torch.optim`` reads one step tensor per parameter back to the host every step, and importing it
    pulls in ``torch._dynamo`` (seconds).
    """

    def __init__(self, params: list[Tensor], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params, self.lr, self.betas, self.eps = list(params), float(lr), betas, float(eps)
        self.exp_avg = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.steps = 0

    def zero_grad(self) -> None:
        """Drop the gradients (the next backward pass allocates fresh ones)."""
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One update of every parameter that has a gradient."""
        have = [i for i, p in enumerate(self.params) if p.grad is not None]
        if not have:
            return
        params = [self.params[i] for i in have]
        grads = [self.params[i].grad for i in have]
        m = [self.exp_avg[i] for i in have]
        v = [self.exp_avg_sq[i] for i in have]
        beta1, beta2 = self.betas
        self.steps += 1
        torch._foreach_lerp_(m, grads, 1 - beta1)
        torch._foreach_mul_(v, beta2)
        torch._foreach_addcmul_(v, grads, grads, 1 - beta2)
        step_size = (self.lr / (1 - beta1 ** float(self.steps))) * -1
        denom = torch._foreach_sqrt(v)
        torch._foreach_div_(denom, (1 - beta2 ** float(self.steps)) ** 0.5)
        torch._foreach_add_(denom, self.eps)
        torch._foreach_addcdiv_(params, m, denom, step_size)
