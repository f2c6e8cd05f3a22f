"""Positional encodings (d2l §11.6.3): the sinusoidal matrix, a learned alternative, and the
relative-position property ``P[i + δ] = M(δ) P[i]``.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn


def _frequencies(dim: int) -> Tensor:
    """ω_j = 1 / 10000^(2j/d) for the column pairs j = 0 .. ceil(d/2)-1, float64."""
    pairs = torch.arange(0, dim, 2, dtype=torch.float64)
    return torch.pow(10000.0, -pairs / dim)


def building_on_meta() -> bool:
    """True while new tensors go to ``torch.device("meta")`` (a model built as shapes only, e.g. to check a file's
    shapes or to receive saved weights): drawing or computing there imports ``torch._dynamo`` (~1.3 s the first time
    in a process), so modules make empty tensors of the right shape instead."""
    return torch.empty(0).is_meta


def sinusoidal_encoding(max_len: int, dim: int) -> Tensor:
    """The book's matrix ``P``: ``P[i, 2j] = sin(i ω_j)``, ``P[i, 2j+1] = cos(i ω_j)``.

    Parameters
    ----------
    max_len : number of positions (rows); dim : encoding dimension (columns), odd allowed
        (the last column is then a lone sine).

    Returns
    -------
    (max_len, dim) float32 tensor; an empty one of that shape while :func:`building_on_meta`.
    """
    if max_len < 0 or dim <= 0:
        raise ValueError("max_len must be ≥ 0 and the encoding dimension ≥ 1")
    if building_on_meta():
        return torch.empty(max_len, dim)
    angles = torch.arange(max_len, dtype=torch.float64)[:, None] * _frequencies(dim)[None, :]  # (T, ceil(d/2))
    P = torch.empty(max_len, dim, dtype=torch.float64)
    P[:, 0::2] = torch.sin(angles)
    P[:, 1::2] = torch.cos(angles[:, : dim // 2])
    return P.float()


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal encoding to its input, then applies dropout."""

    def __init__(self, num_hiddens: int, dropout: float, max_len: int = 1000) -> None:
        super().__init__()
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        # Not a parameter and not saved: it is recomputed from (max_len, num_hiddens).
        self.register_buffer("P", sinusoidal_encoding(max_len, num_hiddens)[None], persistent=False)

    def compute_on_cpu(self) -> None:
        """Compute ``P`` on the CPU where it is a shape only (a module built on ``meta``: it is never saved)."""
        if self.P.is_meta:
            self.P = sinusoidal_encoding(self.max_len, self.P.shape[-1])[None]

    def forward(self, X: Tensor) -> Tensor:
        """X (B, T, d) -> X + P[:T] with dropout, (B, T, d)."""
        steps = X.shape[1]
        if steps > self.max_len:
            raise ValueError(f"sequence of {steps} positions exceeds the positional encoding's limit of {self.max_len}")
        return self.dropout(X + self.P[:, :steps].to(X.dtype))


class LearnedPositionalEncoding(nn.Module):
    """A learned position embedding (as in BERT/GPT) with the same interface as ``PositionalEncoding``."""

    def __init__(self, num_hiddens: int, dropout: float, max_len: int = 1000) -> None:
        super().__init__()
        self.max_len = max_len
        self.P = nn.Parameter(torch.randn(1, max_len, num_hiddens) * 0.02)
        self.dropout = nn.Dropout(dropout)

    def forward(self, X: Tensor) -> Tensor:
        """X (B, T, d) -> X + P[:T] with dropout, (B, T, d)."""
        steps = X.shape[1]
        if steps > self.max_len:
            raise ValueError(f"sequence of {steps} positions exceeds the positional encoding's limit of {self.max_len}")
        return self.dropout(X + self.P[:, :steps])


def offset_matrix(delta: int | float, dim: int) -> Tensor:
    """The linear map ``M(δ)`` with ``P[i + δ] = M(δ) @ P[i]`` for every position i.

    Each (sin, cos) column pair at frequency ω is rotated by the angle δω:
    ``[[cos δω, sin δω], [-sin δω, cos δω]]``; M is block diagonal and does not depend on i.

    Returns
    -------
    (dim, dim) float32 tensor. Raises ``ValueError`` for odd ``dim``: the lone last sine column has no
    cosine partner, so no matrix can shift it.
    """
    if dim <= 0 or dim % 2:
        raise ValueError(f"the offset matrix needs an even encoding dimension (got {dim}): "
                         "a lone sine column has no cosine partner to rotate with")
    theta = float(delta) * _frequencies(dim)  # (d/2,)
    c, s = torch.cos(theta), torch.sin(theta)
    M = torch.zeros(dim, dim, dtype=torch.float64)
    idx = torch.arange(0, dim, 2)
    M[idx, idx] = c
    M[idx, idx + 1] = s
    M[idx + 1, idx] = -s
    M[idx + 1, idx + 1] = c
    return M.float()


def position_similarity(P: Tensor) -> Tensor:
    """``P Pᵀ``: (T, d) -> (T, T) similarity of every pair of positions."""
    return P @ P.T


def binary_table(n: int, bits: int) -> np.ndarray:
    """Bits of 0..n-1: (n, bits) array of 0/1, column j = bit j (column 0 = least significant)."""
    if n < 0 or bits <= 0:
        raise ValueError("n must be ≥ 0 and bits ≥ 1")
    numbers = np.arange(n)[:, None]
    return ((numbers >> np.arange(bits)[None, :]) & 1).astype(np.int64)
