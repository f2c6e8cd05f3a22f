"""Numbers the scoring, multi-head and positional-encoding panels draw (d2l §11.3, §11.5, §11.6).

Seeded random queries/keys/values scored both ways, masked softmax with valid lengths, per-head
self-attention of a typed sentence, and the relative-position check ``P[i+δ] = M(δ) P[i]``.
"""
from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

import numpy as np
import torch

from explorer.core.model.attention import AdditiveAttention, DotProductAttention, MultiHeadAttention, sequence_mask
from explorer.core.model.positional import binary_table, offset_matrix, sinusoidal_encoding

MAX_TOKENS = 40


class DemoError(ValueError):
    """A demo setting that cannot work, with a message fit for users."""


def _np(t: torch.Tensor) -> np.ndarray:
    """A fresh float32 numpy copy (never a view of torch storage)."""
    return t.detach().cpu().numpy().astype(np.float32, copy=True)


def _check_range(name: str, value: int, lo: int, hi: int) -> None:
    if not lo <= value <= hi:
        raise DemoError(f"{name} must be between {lo} and {hi} (got {value})")


# ----------------------------------------------------------------------------- scoring (§11.3)
@dataclass(frozen=True)
class ScoringResult:
    """Additive and scaled dot-product attention on the same inputs.

    Arrays: ``queries (B,Q,d)``, ``keys (B,K,d)``, ``values (B,K,v)``; ``*_scores (B,Q,K)`` before
    masking; ``*_weights (B,Q,K)``; ``*_output (B,Q,v)``; ``keep (B,Q,K)`` bool, True = key visible;
    additive parameters ``W_q (h,d)``, ``W_k (h,d)``, ``w_v (h,)``.
    """

    queries: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    additive_scores: np.ndarray
    additive_weights: np.ndarray
    additive_output: np.ndarray
    dot_scores: np.ndarray
    dot_weights: np.ndarray
    dot_output: np.ndarray
    keep: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    w_v: np.ndarray


def parse_lengths(text: str, count: int, num_keys: int) -> list[int]:
    """Parse ``count`` key counts typed as ``"1 2 3"`` or ``"1, 2, 3"`` (each 0..num_keys).

    A single number is repeated for every query.
    """
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    try:
        lengths = [int(p) for p in parts]
    except ValueError:
        raise DemoError(f"valid lengths must be whole numbers, e.g. '1 2 3' (got '{text}')") from None
    if len(lengths) == 1:
        lengths = lengths * count
    if len(lengths) != count:
        raise DemoError(f"type one valid length per query: {count} numbers (got {len(lengths)})")
    for n in lengths:
        _check_range("each valid length", n, 0, num_keys)
    return lengths


def default_lengths(count: int, num_keys: int, offset: int = 0) -> list[int]:
    """A causal-looking pattern of ``count`` valid lengths: query i sees keys 0..i+offset (at most ``num_keys``)."""
    return [min(i + 1 + offset, num_keys) for i in range(count)]


def clamp_lengths(text: str, num_keys: int) -> str:
    """``text`` with every typed length above ``num_keys`` lowered to it; unreadable text is returned as it is
    (its error is reported when it is used)."""
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    try:
        lengths = [int(p) for p in parts]
    except ValueError:
        return text
    if all(n <= num_keys for n in lengths):
        return text  # keep the user's spelling
    return " ".join(str(min(n, num_keys)) for n in lengths)


def _valid_lens_tensor(valid_lens, batch_size: int, num_queries: int, num_keys: int) -> torch.Tensor | None:
    """Validate 1-D ``(B,)`` or 2-D ``(B, Q)`` valid lengths; None means no masking."""
    if valid_lens is None:
        return None
    lens = np.asarray(valid_lens)
    if lens.dtype.kind not in "iu":
        raise DemoError("valid lengths must be whole numbers")
    if lens.shape not in ((batch_size,), (batch_size, num_queries)):
        raise DemoError(f"valid lengths need shape ({batch_size},) or ({batch_size}, {num_queries}), "
                        f"got {lens.shape}")
    if lens.min() < 0 or lens.max() > num_keys:
        raise DemoError(f"valid lengths must lie between 0 and the number of keys ({num_keys})")
    return torch.as_tensor(lens, dtype=torch.long)


def scoring_demo(batch_size: int = 2, num_queries: int = 4, num_keys: int = 10, dim: int = 8,
                 num_hiddens: int = 8, value_dim: int = 4, seed: int = 0,
                 valid_lens: list[int] | list[list[int]] | np.ndarray | None = None) -> ScoringResult:
    """Score the same seeded random queries and keys with additive and scaled dot-product attention.

    Parameters
    ----------
    batch_size, num_queries, num_keys : B, Q, K. dim : d, the size of queries and keys (equal, so
    the dot product is defined). num_hiddens : h, the additive scorer's hidden size.
    valid_lens : None, ``(B,)`` key counts per batch element or ``(B, Q)`` per query (as in the book).
    """
    for name, value, hi in (("batch size", batch_size, 16), ("number of queries", num_queries, 64),
                            ("number of keys", num_keys, 64), ("query/key size", dim, 1024),
                            ("hidden size", num_hiddens, 1024), ("value size", value_dim, 256)):
        _check_range(name, value, 1, hi)
    lens = _valid_lens_tensor(valid_lens, batch_size, num_queries, num_keys)
    gen = torch.Generator().manual_seed(seed)
    queries = torch.randn(batch_size, num_queries, dim, generator=gen)
    keys = torch.randn(batch_size, num_keys, dim, generator=gen)
    values = torch.randn(batch_size, num_keys, value_dim, generator=gen)
    additive = AdditiveAttention(key_size=dim, query_size=dim, num_hiddens=num_hiddens)
    with torch.no_grad():
        for layer in (additive.W_q, additive.W_k, additive.w_v):
            bound = 1.0 / math.sqrt(layer.in_features)  # nn.Linear's default range, drawn from our seed
            layer.weight.copy_(torch.rand(layer.weight.shape, generator=gen) * 2 * bound - bound)
        add_out, add_w = additive.eval()(queries, keys, values, lens)
        dot_out, dot_w = DotProductAttention().eval()(queries, keys, values, lens)
        features = torch.tanh(additive.W_q(queries)[:, :, None, :] + additive.W_k(keys)[:, None, :, :])  # (B,Q,K,h)
        add_scores = additive.w_v(features)[..., 0]  # (B, Q, K)
        dot_scores = queries @ keys.transpose(1, 2) / math.sqrt(dim)  # (B, Q, K)
    if lens is None:
        keep = np.ones((batch_size, num_queries, num_keys), dtype=bool)
    else:
        mask = sequence_mask(lens, num_keys)  # (B, K) or (B, Q, K)
        keep = np.broadcast_to(mask.numpy()[:, None, :] if lens.dim() == 1 else mask.numpy(),
                               (batch_size, num_queries, num_keys)).copy()
    return ScoringResult(
        queries=_np(queries), keys=_np(keys), values=_np(values),
        additive_scores=_np(add_scores), additive_weights=_np(add_w), additive_output=_np(add_out),
        dot_scores=_np(dot_scores), dot_weights=_np(dot_w), dot_output=_np(dot_out), keep=keep,
        W_q=_np(additive.W_q.weight), W_k=_np(additive.W_k.weight), w_v=_np(additive.w_v.weight[0]),
    )


# ----------------------------------------------------------------------------- multi-head (§11.5)
@dataclass(frozen=True)
class MultiHeadResult:
    """Self-attention weights per head: ``weights (h, T, T)``, ``average (T, T)``, ``tokens`` (T labels)."""

    weights: np.ndarray
    average: np.ndarray
    tokens: list[str]


def head_choices(num_hiddens: int) -> list[int]:
    """Head counts that divide ``num_hiddens`` (each head gets num_hiddens / num_heads dimensions)."""
    return [h for h in range(1, num_hiddens + 1) if num_hiddens % h == 0]


def check_heads(num_hiddens: int, num_heads: int) -> None:
    """Raise `DemoError` explaining why ``num_hiddens`` cannot be split into ``num_heads`` heads."""
    _check_range("num_hiddens", num_hiddens, 1, 1024)
    _check_range("num_heads", num_heads, 1, 64)
    if num_hiddens % num_heads:
        near = sorted(head_choices(num_hiddens), key=lambda h: (abs(h - num_heads), h))[:3]
        raise DemoError(
            f"num_hiddens ({num_hiddens}) is not divisible by num_heads ({num_heads}): the hidden "
            f"vector is cut into equal slices, one per head. Try num_heads = "
            f"{', '.join(str(h) for h in sorted(near))}.")


def tokenize_sentence(text: str) -> list[str]:
    """Split a typed sentence into words and punctuation (what the axes show)."""
    tokens = re.findall(r"\w+|[^\w\s]", text.lower())
    if not tokens:
        raise DemoError("type a sentence with at least one word")
    if len(tokens) > MAX_TOKENS:
        raise DemoError(f"the sentence has {len(tokens)} tokens; at most {MAX_TOKENS} fit the heatmaps")
    return tokens


def _token_embedding(token: str, dim: int, seed: int) -> torch.Tensor:
    """A random unit-variance embedding fixed by (token, seed): equal words get equal vectors."""
    gen = torch.Generator().manual_seed(zlib.crc32(token.encode("utf-8")) * 1009 + seed)
    return torch.randn(dim, generator=gen)


def multihead_demo(num_hiddens: int = 16, num_heads: int = 4, sentence: str | None = None,
                   num_tokens: int = 8, seed: int = 0, add_positions: bool = False) -> MultiHeadResult:
    """Self-attention weights of a seeded random `MultiHeadAttention` over random token embeddings.

    Parameters
    ----------
    sentence : text to tokenize; None uses ``num_tokens`` random inputs labelled ``x0..``.
    add_positions : add the sinusoidal encoding to the embeddings first (§11.6), so equal words at
        different places no longer attend identically.
    """
    check_heads(num_hiddens, num_heads)
    if sentence is None:
        _check_range("number of tokens", num_tokens, 1, MAX_TOKENS)
        tokens = [f"x{i}" for i in range(num_tokens)]
        gen = torch.Generator().manual_seed(seed)
        X = torch.randn(1, num_tokens, num_hiddens, generator=gen)  # (1, T, H)
    else:
        tokens = tokenize_sentence(sentence)
        X = torch.stack([_token_embedding(t, num_hiddens, seed) for t in tokens])[None]  # (1, T, H)
    if add_positions:
        X = X + sinusoidal_encoding(X.shape[1], num_hiddens)[None]
    mha = MultiHeadAttention(num_hiddens, num_heads)
    gen = torch.Generator().manual_seed(seed + 7919)
    with torch.no_grad():
        for layer, gain in ((mha.W_q, 2.0), (mha.W_k, 2.0), (mha.W_v, 1.0), (mha.W_o, 1.0)):
            # N(0, gain/H): queries and keys of variance 2 give scaled scores of std ≈ 2, so the
            # heads show visible structure instead of near-uniform weights
            layer.weight.copy_(torch.randn(layer.weight.shape, generator=gen) * math.sqrt(gain / layer.in_features))
        _, weights = mha.eval()(X, X, X, need_weights=True)
    w = _np(weights[0])  # (h, T, T)
    return MultiHeadResult(weights=w, average=w.mean(axis=0), tokens=tokens)


# ----------------------------------------------------------------------------- positional (§11.6)
@dataclass(frozen=True)
class PositionalResult:
    """Everything the positional panel draws.

    ``P (T, d)``, ``similarity (T, T) = P Pᵀ``, ``binary (8, bits)`` bits of 0..7; for the offset
    demo (None when d is odd or the row is out of range): ``M (d, d)``, ``target = P[i+δ] (d,)``,
    ``mapped = M(δ) P[i] (d,)``, ``max_error`` over every valid row i.
    """

    P: np.ndarray
    similarity: np.ndarray
    binary: np.ndarray
    M: np.ndarray | None
    target: np.ndarray | None
    mapped: np.ndarray | None
    max_error: float | None
    offset_message: str


@dataclass(frozen=True)
class OffsetBounds:
    """A row i and an offset δ with 0 ≤ i < T and 0 ≤ i + δ < T, and the ranges each may move in
    while the other stays: ``row_range`` given δ, ``delta_range`` given i (both inclusive)."""

    row: int
    delta: int
    row_range: tuple[int, int]
    delta_range: tuple[int, int]


def offset_bounds(num_steps: int, row: int, delta: int) -> OffsetBounds:
    """Clamp (i, δ) into the matrix P of ``num_steps`` rows (i first, then δ) and give their ranges."""
    last = num_steps - 1
    row = min(max(row, 0), last)
    delta = min(max(delta, -row), last - row)
    return OffsetBounds(row, delta, (max(0, -delta), last - max(0, delta)), (-row, last - row))


def positional_demo(num_steps: int = 60, encoding_dim: int = 32, delta: int = 2, row: int = 10,
                    bits: int = 3) -> PositionalResult:
    """P, P Pᵀ, the bits of 0..2^bits-1 and the offset map check for (δ, i)."""
    _check_range("num_steps", num_steps, 2, 1000)
    _check_range("encoding_dim", encoding_dim, 1, 512)
    # core builds P and M; the products below are tiny, so numpy does them: torch's threaded matmul
    # can stall for tens of ms on a busy 2-core machine, and this runs on every slider step
    P = sinusoidal_encoding(num_steps, encoding_dim).numpy().astype(np.float64)  # (T, d)
    sim, binary = (P @ P.T).astype(np.float32), binary_table(2 ** bits, bits)  # P Pᵀ: (T, T)
    P32 = P.astype(np.float32)
    if encoding_dim % 2:
        msg = (f"M(δ) needs an even encoding_dim (got {encoding_dim}): the last sine column has no "
               "cosine partner to rotate with.")
        return PositionalResult(P32, sim, binary, None, None, None, None, msg)
    if not (0 <= row < num_steps and 0 <= row + delta < num_steps):
        msg = f"row i = {row} and i + δ = {row + delta} must both lie in 0..{num_steps - 1}"
        return PositionalResult(P32, sim, binary, None, None, None, None, msg)
    M = offset_matrix(delta, encoding_dim).numpy().astype(np.float64)  # (d, d)
    rows = np.arange(max(0, -delta), min(num_steps, num_steps - delta))
    mapped_all = P[rows] @ M.T  # (n, d): row i -> M(δ) P[i]
    max_error = float(np.abs(mapped_all - P[rows + delta]).max())
    return PositionalResult(P32, sim, binary, M.astype(np.float32), P32[row + delta],
                            (M @ P[row]).astype(np.float32), max_error,
                            f"max |P[i+δ] − M(δ)P[i]| over all i: {max_error:.2e}")
