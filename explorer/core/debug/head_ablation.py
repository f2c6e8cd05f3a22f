"""Switching attention heads off (book §11.5 multi-head attention, read backwards): a head's output is zeroed
before the output projection ``W_o``, for our checkpoints and Hugging Face models alike.

Forward hooks do it while :func:`ablated` is active and are removed afterwards, so the normal path pays
nothing. Heads are ``(kind, layer, head)`` with kinds and layers as in the ``attention`` command's ``.npz``.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import Tensor, nn

from explorer.core.checks import is_whole
from explorer.core.inspect.interface import InspectableModel, ModelError, ModelInfo, check_head

Head = tuple[str, int, int]  # (kind, layer, head)
#: Where a Hugging Face attention module keeps its output projection (BERT's is a sibling: see below).
_PROJECTIONS = ("out_proj", "c_proj", "o")


def all_heads(info: ModelInfo, kinds: Iterable[str] | None = None) -> list[Head]:
    """Every ``(kind, layer, head)`` of the model, in ``ATTENTION_KINDS`` order, then layer, then head."""
    wanted = info.kinds if kinds is None else tuple(kinds)
    for kind in wanted:
        if kind not in info.kinds:
            raise ModelError(f"{info.architecture} has no {kind} attention (it has {', '.join(info.kinds)})")
    return [(k, layer, h) for k in info.kinds if k in wanted
            for layer in range(info.layers[k]) for h in range(info.heads[k])]


def check_heads(info: ModelInfo, heads: Iterable[Any]) -> list[Head]:
    """Validate heads given as ``(kind, layer, head)`` triples; duplicates dropped, sorted as :func:`all_heads`.

    Raises :class:`ModelError` naming the first head that does not exist.
    """
    out: set[Head] = set()
    for item in heads:
        try:
            kind, layer, head = item
        except (TypeError, ValueError):
            raise ModelError(f"a head is (kind, layer, head), got {item!r}") from None
        if not is_whole(layer) or not is_whole(head):
            raise ModelError(f"layer and head must be whole numbers, got {item!r}")
        check_head(info, str(kind), layer, head)
        out.add((str(kind), layer, head))
    order = {h: i for i, h in enumerate(all_heads(info))}
    return sorted(out, key=order.__getitem__)


def parse_head(text: str) -> Head:
    """``"cross:1:3"`` (or ``cross.1.3``) -> ``("cross", 1, 3)``; :class:`ModelError` otherwise."""
    parts = text.replace(".", ":").split(":")
    if len(parts) != 3:
        raise ModelError(f"a head is written KIND:LAYER:HEAD, e.g. cross:0:1, got {text!r}")
    try:
        return parts[0].strip(), int(parts[1]), int(parts[2])
    except ValueError:
        raise ModelError(f"a head is written KIND:LAYER:HEAD with whole numbers, got {text!r}") from None


def attention_modules(model: InspectableModel) -> dict[tuple[str, int], tuple[nn.Module, nn.Module | None]]:
    """``(kind, layer) -> (attention module, output projection or None)`` of an opened model.

    Our checkpoints: ``MultiHeadAttention`` and its ``W_o``. Hugging Face: the tapped attention module and its
    ``out_proj``/``c_proj``/``o``; BERT/RoBERTa's self-attention returns the heads' context itself (the
    projection lives in a sibling module), so it has None and its output is masked instead.
    """
    from explorer.core.inspect.checkpoint_model import CheckpointModel

    if isinstance(model, CheckpointModel):
        net = model.loaded.model
        found: dict[tuple[str, int], tuple[nn.Module, nn.Module | None]] = {}
        for layer, block in enumerate(net.encoder.blocks):
            found[("encoder", layer)] = (block.attention, block.attention.W_o)
        for layer, block in enumerate(net.decoder.blocks):
            found[("decoder", layer)] = (block.attention1, block.attention1.W_o)
            found[("cross", layer)] = (block.attention2, block.attention2.W_o)
        return found
    hf_model = getattr(model, "model", None)
    if not isinstance(hf_model, nn.Module):
        raise ModelError(f"{type(model).__name__} does not expose its attention modules")
    from explorer.core.inspect.hf.taps import find_taps

    out: dict[tuple[str, int], tuple[nn.Module, nn.Module | None]] = {}
    for module, kind, layer in find_taps(hf_model):
        proj = next((getattr(module, n) for n in _PROJECTIONS if isinstance(getattr(module, n, None), nn.Module)),
                    None)
        out[(kind, layer)] = (module, proj)
    return out


def _column_mask(heads: list[int], num_heads: int, width: int, like: Tensor) -> Tensor:
    """(h·d,) multipliers: 0 on the columns of ``heads``, 1 elsewhere (head i owns columns i·d … (i+1)·d − 1)."""
    mask = torch.ones(num_heads, width // num_heads, dtype=like.dtype, device=like.device)  # (h, d)
    mask[heads] = 0
    return mask.reshape(width)  # (h·d,)


@contextmanager
def ablated(model: InspectableModel, heads: Iterable[Any]) -> Iterator[list[Head]]:
    """Within the block, the given heads of ``model`` output zeros (their context vectors, before ``W_o``).

    Every forward pass of the model is affected (attention maps, decoding, loss) while the block runs, so hold
    the model exclusively. An empty set changes nothing and registers nothing. Yields the validated heads.
    Raises :class:`ModelError` for a head that does not exist.
    """
    info = model.describe()
    chosen = check_heads(info, heads)
    if not chosen:
        yield chosen
        return
    by_layer: dict[tuple[str, int], list[int]] = {}
    for kind, layer, head in chosen:
        by_layer.setdefault((kind, layer), []).append(head)
    modules = attention_modules(model)
    handles = []
    try:
        for (kind, layer), which in by_layer.items():
            module, proj = modules[(kind, layer)]
            num_heads = info.heads[kind]
            if proj is not None:
                handles.append(proj.register_forward_pre_hook(_pre_hook(which, num_heads)))
            else:
                handles.append(module.register_forward_hook(_output_hook(which, num_heads)))
        yield chosen
    finally:
        for handle in handles:
            handle.remove()


def _pre_hook(heads: list[int], num_heads: int) -> Any:
    def hook(module: nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...]:
        context = args[0]  # (B, Q, h·d), head-major columns
        return (context * _column_mask(heads, num_heads, context.shape[-1], context), *args[1:])
    return hook


def _output_hook(heads: list[int], num_heads: int) -> Any:
    def hook(module: nn.Module, args: Any, output: Any) -> Any:
        context = output[0] if isinstance(output, tuple) else output  # (B, Q, h·d)
        masked = context * _column_mask(heads, num_heads, context.shape[-1], context)
        return (masked, *output[1:]) if isinstance(output, tuple) else masked
    return hook
