"""Explain one cell of an attention map with the model's own numbers (book §11.3.3 scaled dot product,
§11.5 heads): that head's projected query and key, their element-wise product, q·k, the scaling, the mask,
exp, the row's normaliser and the weight, which equals the map's value.

The attention module's inputs are recorded during the same forward pass that ``attention()`` runs, and the
head's part is recomputed from them: our ``MultiHeadAttention`` and the eager attention of Hugging Face
models (BERT/RoBERTa, GPT-2, BART/mBART/Marian, T5 with its relative position bias).
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from explorer.core.checks import is_whole
from explorer.core.debug.head_ablation import attention_modules
from explorer.core.inspect.interface import InspectableModel, ModelError, check_head

EXP_NOTE = ("exp is taken of (logit − the row's largest logit), the max-subtracted form softmax uses; "
            "the weights are the same as with plain exp(logit)")


@dataclass
class CellExplanation:
    """The computation of ``weight = map[kind][layer][head, query, key]``.

    ``q``, ``k``: the head's projected query and key ``(d,)``; ``product`` = q ⊙ k; ``score`` = q·k;
    ``scaled`` = score × ``scale`` (1/√d for most models); ``bias`` an added position bias (T5; else 0);
    ``mask`` the additive mask (0 kept, −inf or the dtype's minimum masked); ``logit`` = scaled + bias + mask;
    ``exp`` = exp(logit − ``row_max``); ``normaliser`` = Σ over the row's keys of the same; ``weight`` =
    exp / normaliser; ``map_weight`` the map's own value. ``row_*`` hold the whole row ``(keys,)``.
    """

    kind: str
    layer: int
    head: int
    query: int
    key: int
    query_token: str
    key_token: str
    head_dim: int
    q: np.ndarray
    k: np.ndarray
    product: np.ndarray
    score: float
    scale: float
    scaled: float
    bias: float
    mask: float
    masked: bool
    logit: float
    row_max: float
    exp: float
    normaliser: float
    weight: float
    map_weight: float
    row_logits: np.ndarray
    row_exp: np.ndarray
    row_weights: np.ndarray
    note: str = EXP_NOTE

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: arrays as lists, −inf as None (``masked`` says so)."""
        def plain(v: Any) -> Any:
            if isinstance(v, np.ndarray):
                return [plain(float(x)) for x in v]
            if isinstance(v, float) and not math.isfinite(v):
                return None
            return v
        return {k: plain(v) for k, v in self.__dict__.items()}


@dataclass
class _Call:
    """The last call of one attention module: its bound arguments and its output."""

    arguments: dict[str, Any]
    output: Any


def _record(module: nn.Module, run: Any) -> tuple[Any, _Call]:
    """Run ``run()`` while recording ``module``'s last call; returns ``(run's result, that call)``."""
    calls: list[_Call] = []
    signature = inspect.signature(module.forward)
    extra = [p.name for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]

    def pre(mod: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        arguments = dict(signature.bind(*args, **kwargs).arguments)
        for name in extra:  # arguments that arrive through **kwargs, by their own names
            arguments.update(arguments.pop(name, {}))
        calls.append(_Call(arguments, None))

    def post(mod: nn.Module, args: Any, kwargs: Any, output: Any) -> None:
        calls[-1].output = output

    handles = [module.register_forward_pre_hook(pre, with_kwargs=True),
               module.register_forward_hook(post, with_kwargs=True)]
    try:
        result = run()
    finally:
        for handle in handles:
            handle.remove()
    if not calls:
        raise ModelError("the attention module was not called")
    return result, calls[-1]


def _ours(module: nn.Module, call: _Call, head: int) -> tuple[Tensor, Tensor, float, Tensor | None, Tensor | None]:
    """(q rows (Q, d), k rows (K, d), scale, bias None, additive mask (Q|1, K) or None) of our MultiHeadAttention."""
    a = call.arguments
    h, width = module.num_heads, module.num_hiddens
    d = width // h
    q = module.W_q(a["queries"])[0].reshape(-1, h, d)[:, head]  # (Q, h·d) -> (Q, h, d) -> (Q, d)
    k = module.W_k(a["keys"])[0].reshape(-1, h, d)[:, head]  # (K, d)
    mask = a.get("attn_bias")
    if mask is None and a.get("valid_lens") is not None:
        from explorer.core.model.attention import valid_lens_bias

        mask = valid_lens_bias(a["valid_lens"], q.shape[0], k.shape[0])
    if mask is not None:
        mask = mask.expand(1, h, q.shape[0], k.shape[0])[0, head]  # (Q, K)
    return q, k, 1.0 / math.sqrt(d), None, mask


def _hf(module: nn.Module, call: _Call, head: int, heads: int) -> tuple[Tensor, Tensor, float, Tensor | None,
                                                                       Tensor | None]:
    """The same for a Hugging Face attention module (eager): its projections, scaling, bias and mask."""
    a = call.arguments
    hidden = a["hidden_states"]
    other = a.get("key_value_states")
    if other is None:
        other = a.get("encoder_hidden_states")
    source = hidden if other is None else other
    if hasattr(module, "query"):  # BERT / RoBERTa
        q, k = module.query(hidden), module.key(source)
    elif hasattr(module, "c_attn"):  # GPT-2: one projection for q, k, v
        q, k, _ = module.c_attn(hidden).split(module.split_size, dim=2)
    elif hasattr(module, "q_proj"):  # BART, mBART, Marian
        q, k = module.q_proj(hidden), module.k_proj(source)
    elif hasattr(module, "q"):  # T5
        q, k = module.q(hidden), module.k(source)
    else:
        raise ModelError(f"explaining a cell is not supported for {type(module).__name__}")
    d = q.shape[-1] // heads
    q = q[0].reshape(-1, heads, d)[:, head]  # (Q, h·d) -> (Q, h, d) -> (Q, d)
    k = k[0].reshape(-1, heads, d)[:, head]  # (K, d)
    scale = float(getattr(module, "scaling", d ** -0.5))
    bias = None
    if isinstance(call.output, tuple) and len(call.output) == 3 and isinstance(call.output[1], Tensor):
        bias = call.output[1].expand(1, heads, q.shape[0], k.shape[0])[0, head]  # T5's position bias (Q, K)
    mask = a.get("attention_mask", a.get("mask"))
    if isinstance(mask, Tensor):
        if mask.dtype == torch.bool:  # True = attend
            mask = torch.zeros(mask.shape, dtype=q.dtype, device=q.device).masked_fill(~mask, float("-inf"))
        mask = mask[..., -q.shape[0]:, -k.shape[0]:]
        mask = mask.reshape(mask.shape[0], -1, *mask.shape[-2:]).expand(1, heads, q.shape[0], k.shape[0])[0, head]
    else:
        mask = None
    return q, k, scale, bias, mask


@torch.no_grad()
def explain_cell(model: InspectableModel, source: str, target: str | None, kind: str, layer: int, head: int,
                 query: int, key: int) -> CellExplanation:
    """Explain ``model.attention(source, target).maps[kind][layer][head, query, key]`` (see
    :class:`CellExplanation`). Query and key are the map's row and column indices.

    Raises :class:`ModelError` for a head, query or key that does not exist (and the model's ``ValueError``
    for unusable text).
    """
    info = model.describe()
    check_head(info, kind, layer, head)
    module = attention_modules(model)[(kind, layer)][0]
    result, call = _record(module, lambda: model.attention(source, target))
    heat = result.maps[kind][layer][head]  # (Q, K) as drawn
    rows, cols = heat.shape
    for what, value, n, axis in (("query", query, rows, "rows"), ("key", key, cols, "columns")):
        if not is_whole(value) or not 0 <= value < n:
            raise ModelError(f"{what} {value!r} does not exist: the map has {n} {axis} (0 to {n - 1})")
    from explorer.core.inspect.checkpoint_model import CheckpointModel

    if isinstance(model, CheckpointModel):
        q_all, k_all, scale, bias, mask = _ours(module, call, head)
    else:
        q_all, k_all, scale, bias, mask = _hf(module, call, head, info.heads[kind])
    q_vec = q_all[query].float()  # (d,)
    k_rows = k_all[:cols].float()  # (K, d): the keys the map shows (padding beyond gets weight 0)
    scores = k_rows @ q_vec  # (K,)
    logits = scores * scale
    if bias is not None:
        logits = logits + bias[query, :cols].float()
    if mask is not None:
        logits = logits + mask[query, :cols].float()
    row_max = logits.max()
    row_exp = torch.exp(logits - row_max)  # (K,)
    normaliser = row_exp.sum()
    row_weights = row_exp / normaliser
    mask_value = 0.0 if mask is None else float(mask[query, key])
    product = q_vec * k_rows[key]
    return CellExplanation(
        kind=kind, layer=layer, head=head, query=query, key=key,
        query_token=result.query_tokens[kind][query], key_token=result.key_tokens[kind][key],
        head_dim=int(q_vec.shape[0]), q=_np(q_vec), k=_np(k_rows[key]), product=_np(product),
        score=float(scores[key]), scale=float(scale), scaled=float(scores[key] * scale),
        bias=0.0 if bias is None else float(bias[query, key]), mask=mask_value,
        masked=mask_value < -1e30 or mask_value == float("-inf"), logit=float(logits[key]), row_max=float(row_max),
        exp=float(row_exp[key]), normaliser=float(normaliser), weight=float(row_weights[key]),
        map_weight=float(heat[query, key]), row_logits=_np(logits), row_exp=_np(row_exp), row_weights=_np(row_weights))


def _np(t: Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float32, copy=True)
