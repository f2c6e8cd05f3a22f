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


def dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    """Inverted dropout, the same law as ``F.dropout`` (keep with probability 1 - p, scale by 1/(1-p)).

    Built from one ``rand`` and in-place ops, which costs about a third less than ``F.dropout`` on the CPU
    for the small tensors of the book's model.
    """
    if not training or p == 0.0:
        return x
    if p >= 1.0:
        return x * 0.0
    keep = torch.rand(x.shape, dtype=x.dtype, device=x.device).ge_(p).mul_(1.0 / (1.0 - p))
    return x * keep


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
        q, k, v = self._project(queries, keys, values)  # each (B, h, T, d)
        scale = 1.0 / math.sqrt(q.shape[-1])
        if attn_bias is None and valid_lens is not None:  # the general path: exact zeros, empty rows all 0
            weights = masked_softmax(torch.matmul(q, k.transpose(-1, -2)) * scale, valid_lens)  # (B, h, Q, K)
            context = torch.matmul(self._drop(weights), v)  # (B, h, Q, d)
        else:
            context, weights = _AttentionCore.apply(q, k, v, attn_bias, scale,
                                                    self.dropout.p if self.training else 0.0)
        batch, _, steps, _ = context.shape
        output = self.W_o(context.transpose(1, 2).reshape(batch, steps, self.num_hiddens))  # (B, Q, h*d)
        return output, (weights if need_weights else None)

    def _drop(self, weights: Tensor) -> Tensor:
        return dropout(weights, self.dropout.p, self.training)

    def _project(self, queries: Tensor, keys: Tensor, values: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Q, K, V projections split into heads; one fused matmul for self-attention (q = k = v), one for
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
        return self._split_heads(q), self._split_heads(k), self._split_heads(v)


class _AttentionCore(torch.autograd.Function):
    """``dropout(softmax(QKᵀ·scale + bias)) V`` for (B, h, T, d) heads, with a hand-written backward.

    Scores are built key-major, (B·h, K, Q), because a softmax over a non-last axis runs a vectorised CPU
    kernel ~4x faster than the one for short last axes (K is ~10 in the book's model); one ``baddbmm``
    applies scale and mask. Fewer autograd nodes and temporaries than the composite ops; same numbers.
    Returns the context (B, h, Q, d) and the (pre-dropout) weights (B, h, Q, K), the latter a view.
    """

    @staticmethod
    def forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, scale: float,
                p: float) -> tuple[Tensor, Tensor]:
        with torch.autocast(q.device.type, enabled=False):  # mixed precision: this core runs in float32
            return _AttentionCore._forward(ctx, q.float(), k.float(), v.float(), bias, scale, p)

    @staticmethod
    def _forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, scale: float,
                 p: float) -> tuple[Tensor, Tensor]:
        B, h, Q, d = q.shape
        K = k.shape[2]
        q3, k3, v3 = q.reshape(B * h, Q, d), k.reshape(B * h, K, d), v.reshape(B * h, K, d)  # (B·h, T, d)
        if bias is None:
            scores = torch.bmm(k3, q3.transpose(1, 2)).mul_(scale)  # (B·h, K, Q)
        else:
            bias_t = bias.transpose(-1, -2).expand(B, h, K, Q).reshape(B * h, K, Q)  # (B·h, K, Q)
            scores = torch.baddbmm(bias_t.to(q.dtype), k3, q3.transpose(1, 2), alpha=scale)
        weights = torch.softmax(scores, dim=1)  # over the keys
        mask = None
        dropped = weights
        if p > 0.0:
            mask = torch.rand(weights.shape, dtype=weights.dtype, device=weights.device).ge_(p).mul_(1.0 / (1.0 - p))
            dropped = weights * mask
        context = torch.bmm(dropped.transpose(1, 2), v3)  # (B·h, Q, d)
        ctx.save_for_backward(q3, k3, v3, weights, mask)
        ctx.scale, ctx.shape = scale, (B, h, Q, K, d)
        weights_out = weights.view(B, h, K, Q).transpose(-1, -2)  # (B, h, Q, K)
        ctx.mark_non_differentiable(weights_out)
        return context.view(B, h, Q, d), weights_out

    @staticmethod
    def backward(ctx: Any, grad_context: Tensor, _grad_weights: Tensor | None) -> tuple[Tensor | None, ...]:
        q3, k3, v3, weights, mask = ctx.saved_tensors
        B, h, Q, K, d = ctx.shape
        g = grad_context.float().reshape(B * h, Q, d)
        dropped = weights if mask is None else weights * mask
        grad_v = torch.bmm(dropped, g)  # (B·h, K, d)
        grad_w = torch.bmm(v3, g.transpose(1, 2))  # (B·h, K, Q)
        if mask is not None:
            grad_w.mul_(mask)
        grad_s = torch._softmax_backward_data(grad_w, weights, 1, weights.dtype)  # (B·h, K, Q)
        grad_q = torch.bmm(grad_s.transpose(1, 2), k3).mul_(ctx.scale)  # (B·h, Q, d)
        grad_k = torch.bmm(grad_s, q3).mul_(ctx.scale)  # (B·h, K, d)
        return (grad_q.view(B, h, Q, d), grad_k.view(B, h, K, d), grad_v.view(B, h, K, d), None, None, None)
