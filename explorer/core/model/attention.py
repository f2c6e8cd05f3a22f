"""Attention scoring and pooling (d2l §11.3 scoring functions, §11.5 multi-head attention).

Every module returns its attention weights instead of storing them on itself; the multi-head module
computes them only when asked (``need_weights=True``).
"""
from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

# Large enough that exp(score + MASK_VALUE) underflows to exactly 0 in float32/float16/bfloat16.
MASK_VALUE = -1e9
# Up to this num_heads × num_hiddens the attention core computes all heads in one product per batch element
# (h times the flops of per-head products, cheaper while those are tiny: measured crossover ~256-512 on CPU).
MAX_REPEATED_WIDTH = 256


def sequence_mask(valid_lens: Tensor, max_len: int) -> Tensor:
    """Boolean mask of valid key positions.

    Parameters
    ----------
    valid_lens : (B,) or (B, Q) integer tensor of valid key counts.
    max_len : number of key positions K.

    Returns
    -------
    (B, K) or (B, Q, K) bool tensor, True where the key position is valid.
    """
    positions = torch.arange(max_len, device=valid_lens.device)
    return positions < valid_lens.unsqueeze(-1)


def _broadcast_mask(mask: Tensor, scores: Tensor, two_d: bool) -> Tensor:
    """Insert singleton axes so a (B, K) or (B, Q, K) mask broadcasts over (B, ..., Q, K) scores."""
    extra = scores.dim() - mask.dim() - (0 if two_d else 1)
    if extra < 0:
        raise ValueError(f"valid_lens of shape {tuple(mask.shape[:-1])} do not fit scores of shape {tuple(scores.shape)}")
    batch = mask.shape[0]
    middle = (1,) * extra
    if two_d:
        return mask.reshape(batch, *middle, *mask.shape[1:])  # (B, 1.., Q, K)
    return mask.reshape(batch, *middle, 1, mask.shape[-1])  # (B, 1.., 1, K)


def masked_softmax(scores: Tensor, valid_lens: Tensor | None = None, mask: Tensor | None = None) -> Tensor:
    """Softmax over the last axis that ignores masked key positions.

    Parameters
    ----------
    scores : (B, ..., Q, K) attention scores.
    valid_lens : None, (B,) valid key counts per batch element, or (B, Q) per query (as in the book).
    mask : optional bool tensor broadcastable to ``scores``; True keeps a key. Combined with ``valid_lens``.

    Returns
    -------
    Weights of the shape of ``scores``. Masked entries are exactly 0; a row without any valid key is all
    zeros (never NaN).
    """
    keep: Tensor | None = None
    if valid_lens is not None:
        if valid_lens.dim() not in (1, 2):
            raise ValueError("valid_lens must be 1-D (batch,) or 2-D (batch, queries)")
        lens = valid_lens.to(device=scores.device)
        keep = _broadcast_mask(sequence_mask(lens, scores.shape[-1]), scores, two_d=lens.dim() == 2)
    if mask is not None:
        keep = mask if keep is None else keep & mask
    if keep is None:
        return F.softmax(scores, dim=-1)
    weights = F.softmax(scores.masked_fill(~keep, MASK_VALUE), dim=-1)
    # Zeroing afterwards makes masked entries exact zeros and turns fully masked rows into zeros.
    return weights * keep


def valid_lens_bias(valid_lens: Tensor, num_queries: int, num_keys: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """Additive mask for the fast path: 0 where a key is valid, ``MASK_VALUE`` where it is not.

    Parameters
    ----------
    valid_lens : (B,) or (B, Q) valid key counts.

    Returns
    -------
    (B, 1, 1, K) for 1-D lengths or (B, 1, Q, K) for 2-D lengths, broadcastable to (B, h, Q, K).
    """
    keep = sequence_mask(valid_lens, num_keys)
    bias = torch.zeros(keep.shape, dtype=dtype, device=valid_lens.device).masked_fill_(~keep, MASK_VALUE)
    if valid_lens.dim() == 1:
        return bias[:, None, None, :]  # (B, 1, 1, K)
    if bias.shape[1] != num_queries:
        raise ValueError("2-D valid_lens must have one length per query")
    return bias[:, None, :, :]  # (B, 1, Q, K)


def keep_mask(shape: tuple[int, ...] | torch.Size, p: float, dtype: torch.dtype = torch.float32,
              device: torch.device | str | None = None) -> Tensor:
    """Inverted-dropout multipliers of ``shape``: 0 with probability p, else 1/(1-p).

    Each entry compares 16 random bits with a threshold, so one 64-bit random draw serves four entries
    (the CPU generator's per-number cost dominates the small tensors of the book's model; this is ~2x
    cheaper than ``rand(...).ge(p)``). p is thereby rounded to a multiple of 2⁻¹⁶ (0.1 -> 0.100006) and the
    scale uses the rounded p, so every entry still has mean exactly 1. Probabilities too close to 0 or 1
    for that grid use 24-bit ``rand`` as before.
    """
    drops = round(p * 65536)
    if not 64 <= drops <= 65536 - 64:  # p within 1/1024 of 0 or 1: keep the float law
        return torch.rand(shape, dtype=torch.float32, device=device).ge_(p).mul_(1.0 / (1.0 - p)).to(dtype)
    n = math.prod(shape)
    words = torch.empty((n + 3) // 4, dtype=torch.int64, device=device).random_(-2 ** 63, None)  # full range
    bits = words.view(torch.int16)[:n].view(shape)  # 4 uniform int16 per word
    # float32 holds every int16 exactly; keep where bits ≥ -32768 + drops (probability 1 - drops/65536)
    mask = bits.float().ge_(drops - 32768).mul_(65536.0 / (65536 - drops))
    return mask if dtype == torch.float32 else mask.to(dtype)


def dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    """Inverted dropout, the law of ``F.dropout`` (keep with probability 1 - p, scale by 1/(1-p)) with the
    multipliers of :func:`keep_mask` (p on a 2⁻¹⁶ grid); about half the cost of ``F.dropout`` on the CPU
    for the small tensors of the book's model.
    """
    if not training or p == 0.0:
        return x
    if p >= 1.0:
        return x * 0.0
    return x * keep_mask(x.shape, p, x.dtype, x.device)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention ``softmax(QKᵀ/√d) V`` (book §11.3.3)."""

    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor,
                valid_lens: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """queries (B, Q, d), keys (B, K, d), values (B, K, v) -> (output (B, Q, v), weights (B, Q, K))."""
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)  # (B, Q, K)
        weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(weights), values), weights


class AdditiveAttention(nn.Module):
    """Additive attention ``a(q, k) = w_vᵀ tanh(W_q q + W_k k)`` (book §11.3.2)."""

    def __init__(self, key_size: int, query_size: int, num_hiddens: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor,
                valid_lens: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """queries (B, Q, dq), keys (B, K, dk), values (B, K, v) -> (output (B, Q, v), weights (B, Q, K))."""
        q, k = self.W_q(queries), self.W_k(keys)
        features = torch.tanh(q.unsqueeze(2) + k.unsqueeze(1))  # (B, Q, K, h)
        scores = self.w_v(features).squeeze(-1)  # (B, Q, K)
        weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(weights), values), weights


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention with ``W_q, W_k, W_v, W_o`` (book §11.5).

    ``num_hiddens`` is split evenly over ``num_heads``; key, query and value inputs may have their own sizes.
    """

    def __init__(self, num_hiddens: int, num_heads: int, dropout: float = 0.0, bias: bool = False,
                 key_size: int | None = None, query_size: int | None = None,
                 value_size: int | None = None) -> None:
        super().__init__()
        if num_heads <= 0 or num_hiddens <= 0:
            raise ValueError("num_hiddens and num_heads must be positive")
        if num_hiddens % num_heads:
            raise ValueError(f"num_hiddens ({num_hiddens}) must be divisible by num_heads ({num_heads})")
        self.num_heads = num_heads
        self.num_hiddens = num_hiddens
        self.W_q = nn.Linear(query_size or num_hiddens, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size or num_hiddens, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size or num_hiddens, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def _split_heads(self, x: Tensor) -> Tensor:
        batch, steps, _ = x.shape
        # (B, T, h*d) -> (B, T, h, d) -> (B, h, T, d)
        return x.reshape(batch, steps, self.num_heads, -1).transpose(1, 2)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None,
                need_weights: bool = True, attn_bias: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        """Attend from queries to keys/values.

        Parameters
        ----------
        queries : (B, Q, query_size); keys : (B, K, key_size); values : (B, K, value_size).
        valid_lens : None, (B,) or (B, Q) valid key counts (ignored when ``attn_bias`` is given).
        need_weights : also return the attention weights.
        attn_bias : additive float mask broadcastable to (B, h, Q, K) (see ``valid_lens_bias``).

        Returns
        -------
        output (B, Q, num_hiddens) and weights (B, h, Q, K), or None when not requested.
        """
        q, k, v = self._project(queries, keys, values)  # each (B, T, h*d)
        scale = 1.0 / math.sqrt(self.num_hiddens // self.num_heads)
        if attn_bias is None and valid_lens is not None:  # the general path: exact zeros, empty rows all 0
            q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)  # each (B, h, T, d)
            weights = masked_softmax(torch.matmul(q, k.transpose(-1, -2)) * scale, valid_lens)  # (B, h, Q, K)
            context = torch.matmul(self._drop(weights), v)  # (B, h, Q, d)
            batch, _, steps, _ = context.shape
            context = context.transpose(1, 2).reshape(batch, steps, self.num_hiddens)  # (B, Q, h*d)
        elif self.num_heads * self.num_hiddens <= MAX_REPEATED_WIDTH:
            context, weights = _AttentionCore.apply(q, k, v, attn_bias, scale,
                                                    self.dropout.p if self.training else 0.0, self.num_heads)
        else:  # a wide model: the repeated-query trick would cost h times the flops; per-head batches instead
            q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)  # each (B, h, T, d)
            scores = torch.matmul(q, k.transpose(-1, -2)) * scale  # (B, h, Q, K)
            weights = torch.softmax(scores if attn_bias is None else scores + attn_bias, dim=-1)
            context = torch.matmul(self._drop(weights), v)  # (B, h, Q, d)
            batch, _, steps, _ = context.shape
            context = context.transpose(1, 2).reshape(batch, steps, self.num_hiddens)  # (B, Q, h*d)
        return self.W_o(context), (weights if need_weights else None)

    def _drop(self, weights: Tensor) -> Tensor:
        return dropout(weights, self.dropout.p, self.training)

    def _project(self, queries: Tensor, keys: Tensor, values: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Q, K, V projections (B, T, h*d) each; one fused matmul for self-attention (q = k = v), one for
        K and V when keys are values (cross-attention). Same weights, same results, fewer kernel calls."""
        W_q, W_k, W_v = self.W_q, self.W_k, self.W_v
        same_size = W_q.in_features == W_k.in_features == W_v.in_features
        if queries is keys and keys is values and same_size:
            weight = torch.cat([W_q.weight, W_k.weight, W_v.weight])  # (3hd, d_in)
            bias = None if W_q.bias is None else torch.cat([W_q.bias, W_k.bias, W_v.bias])
            q, k, v = F.linear(queries, weight, bias).split(self.num_hiddens, dim=-1)  # 3 × (B, T, hd)
        elif keys is values and W_k.in_features == W_v.in_features:
            weight = torch.cat([W_k.weight, W_v.weight])  # (2hd, d_in)
            bias = None if W_k.bias is None else torch.cat([W_k.bias, W_v.bias])
            q = W_q(queries)
            k, v = F.linear(keys, weight, bias).split(self.num_hiddens, dim=-1)  # 2 × (B, K, hd)
        else:
            q, k, v = W_q(queries), W_k(keys), W_v(values)
        return q, k, v


_HEAD_MASKS: dict[tuple[int, int, torch.dtype, torch.device], Tensor] = {}


def _head_mask(num_heads: int, width: int, dtype: torch.dtype, device: torch.device) -> Tensor:
    """(h, h·d) 0/1 matrix, row i selecting head i's d columns (cached per shape, dtype and device)."""
    key = (num_heads, width, dtype, device)
    mask = _HEAD_MASKS.get(key)
    if mask is None:
        eye = torch.eye(num_heads, dtype=dtype, device=device)  # (h, h)
        mask = _HEAD_MASKS[key] = eye.repeat_interleave(width // num_heads, dim=1)  # (h, h·d)
    return mask


def _key_major(bias: Tensor, K: int, h: int, Q: int, dtype: torch.dtype) -> Tensor:
    """An additive mask broadcastable to (B, h, Q, K), laid out for the key-major scores: (B|1, K, 1 or h·Q)."""
    bias4 = bias.reshape((1,) * (4 - bias.dim()) + tuple(bias.shape))  # (B|1, h|1, Q|1, K)
    keys_first = bias4.permute(0, 3, 1, 2).to(dtype)  # (B|1, K, h|1, Q|1)
    if keys_first.shape[2] == keys_first.shape[3] == 1:  # a key mask (the source's): a view, (B|1, K, 1)
        return keys_first.reshape(keys_first.shape[0], K, 1)
    return keys_first.expand(keys_first.shape[0], K, h, Q).reshape(keys_first.shape[0], K, h * Q)  # (B|1, K, h·Q)


def _own_heads(x: Tensor, h: int) -> Tensor:
    """Head i's columns of head i's rows: (B, h·Q, h·d) -> (B, Q, h·d), one strided copy."""
    B, rows, width = x.shape
    diag = x.view(B, h, rows // h, h, width // h).diagonal(dim1=1, dim2=3)  # (B, h, Q, h, d) -> (B, Q, d, h)
    return diag.transpose(-1, -2).reshape(B, rows // h, width)  # (B, Q, h, d) -> (B, Q, h·d)


class _AttentionCore(torch.autograd.Function):
    """``dropout(softmax(QKᵀ·scale + bias)) V`` for every head at once, with a hand-written backward.

    Q, K, V stay in their projected (B, T, h·d) layout, so heads are never split into (B·h) batches (two
    strided copies per tensor on the way in and out). Instead each query row is repeated once per head
    with the other heads' columns zeroed, Q̃ (B, h·Q, h·d), and one ``bmm`` per batch element computes every
    head's scores: the zeroed columns add exact zeros, so the scores are the per-head dot products. The
    context comes back the same way (R = PV for all heads, keep head i's columns of head i's rows). Fewer,
    larger matrix products than (B·h) tiny ones, same numbers. Scores are key-major, (B, K, h·Q), because
    a softmax over a non-last axis runs a vectorised CPU kernel ~4x faster than the one for short last
    axes (K is ~10 in the book's model). Returns the context (B, Q, h·d) and the (pre-dropout) weights
    (B, h, Q, K), the latter a view.
    """

    @staticmethod
    def forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, scale: float, p: float,
                num_heads: int) -> tuple[Tensor, Tensor]:
        if q.dtype == k.dtype == v.dtype == torch.float32 and not torch.is_autocast_enabled(q.device.type):
            return _AttentionCore._forward(ctx, q, k, v, bias, scale, p, num_heads)  # (skip ~20 µs of context)
        with torch.autocast(q.device.type, enabled=False):  # mixed precision: this core runs in float32
            return _AttentionCore._forward(ctx, q.float(), k.float(), v.float(), bias, scale, p, num_heads)

    @staticmethod
    def _forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, scale: float, p: float,
                 h: int) -> tuple[Tensor, Tensor]:
        B, Q, width = q.shape
        K = k.shape[1]
        heads = _head_mask(h, width, q.dtype, q.device)[None, :, None, :]  # (1, h, 1, h·d)
        q_rep = (q[:, None] * heads).view(B, h * Q, width)  # (B, h, Q, h·d) -> (B, h·Q, h·d)
        if bias is None:
            scores = torch.bmm(k, q_rep.transpose(1, 2)).mul_(scale)  # (B, K, h·Q)
        else:  # one kernel: bias + scale·K Q̃ᵀ
            scores = torch.baddbmm(_key_major(bias, K, h, Q, q.dtype), k, q_rep.transpose(1, 2), alpha=scale)
        weights = torch.softmax(scores, dim=1)  # over the keys
        mask = None
        dropped = weights
        if p > 0.0:
            mask = keep_mask(weights.shape, p, weights.dtype, weights.device)
            dropped = weights * mask
        r = torch.bmm(dropped.transpose(1, 2), v)  # (B, h·Q, h·d): every head's weights on all columns
        context = _own_heads(r, h)  # (B, Q, h·d)
        ctx.save_for_backward(q_rep, k, v, weights, dropped, mask, heads)
        ctx.scale, ctx.h = scale, h
        weights_out = weights.view(B, K, h, Q).permute(0, 2, 3, 1)  # (B, h, Q, K)
        ctx.mark_non_differentiable(weights_out)
        return context, weights_out

    @staticmethod
    def backward(ctx: Any, grad_context: Tensor, _grad_weights: Tensor | None) -> tuple[Tensor | None, ...]:
        q_rep, k, v, weights, dropped, mask, heads = ctx.saved_tensors
        B, Q, width = grad_context.shape
        h = ctx.h
        g_rep = (grad_context.float()[:, None] * heads).view(B, h * Q, width)  # (B, h·Q, h·d)
        grad_v = torch.bmm(dropped, g_rep)  # (B, K, h·d)
        grad_w = torch.bmm(v, g_rep.transpose(1, 2))  # (B, K, h·Q)
        if mask is not None:
            grad_w.mul_(mask)
        grad_s = torch._softmax_backward_data(grad_w, weights, 1, weights.dtype).mul_(ctx.scale)  # (B, K, h·Q)
        grad_k = torch.bmm(grad_s, q_rep)  # (B, K, h·d)
        grad_q_rep = torch.bmm(grad_s.transpose(1, 2), k)  # (B, h·Q, h·d)
        grad_q = _own_heads(grad_q_rep, h)  # (B, Q, h·d)
        return grad_q, grad_k, grad_v, None, None, None, None
