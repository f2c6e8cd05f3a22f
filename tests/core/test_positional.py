"""Positional encoding against its closed form and the relative-position property (d2l §11.6.3)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from explorer.core.model.positional import (LearnedPositionalEncoding, PositionalEncoding, binary_table,
                                      offset_matrix, position_similarity, sinusoidal_encoding)


@pytest.mark.parametrize("max_len,dim", [(60, 32), (7, 5), (1, 1), (100, 64)])
def test_sinusoidal_matches_closed_form(max_len: int, dim: int) -> None:
    P = sinusoidal_encoding(max_len, dim).numpy()
    assert P.shape == (max_len, dim) and P.dtype == np.float32
    for i in range(max_len):
        for c in range(dim):
            j = c // 2
            angle = i / 10000 ** (2 * j / dim)
            expected = math.sin(angle) if c % 2 == 0 else math.cos(angle)
            assert P[i, c] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("delta", [1, 3, 17, -5])
def test_offset_matrix_shifts_every_row(delta: int) -> None:
    dim, max_len = 32, 80
    P = sinusoidal_encoding(max_len, dim).double()
    M = offset_matrix(delta, dim).double()
    rows = range(max(0, -delta), min(max_len, max_len - delta))
    for i in rows:
        torch.testing.assert_close(M @ P[i], P[i + delta], atol=1e-5, rtol=0)


def test_offset_matrix_refuses_odd_dimension() -> None:
    with pytest.raises(ValueError, match="even"):
        offset_matrix(2, 5)


def test_module_adds_encoding_and_checks_length() -> None:
    pe = PositionalEncoding(8, dropout=0.0, max_len=20).eval()
    X = torch.randn(2, 6, 8)
    torch.testing.assert_close(pe(X), X + sinusoidal_encoding(6, 8)[None])
    assert "P" not in pe.state_dict()
    with pytest.raises(ValueError, match="limit of 20"):
        pe(torch.zeros(1, 21, 8))


def test_learned_encoding_is_trainable() -> None:
    pe = LearnedPositionalEncoding(4, dropout=0.0, max_len=10)
    out = pe(torch.zeros(1, 3, 4))
    out.sum().backward()
    assert pe.P.grad is not None and pe.P.grad[0, :3].abs().sum() > 0 and pe.P.grad[0, 3:].abs().sum() == 0


def test_similarity_and_binary_table() -> None:
    P = sinusoidal_encoding(10, 16)
    S = position_similarity(P)
    torch.testing.assert_close(S, S.T)
    # Each row has norm² = d/2 (sin² + cos² per pair), and similarity is largest on the diagonal.
    torch.testing.assert_close(torch.diagonal(S), torch.full((10,), 8.0), atol=1e-5, rtol=0)
    assert bool((S.argmax(dim=1) == torch.arange(10)).all())
    bits = binary_table(8, 3)
    assert bits.tolist()[5] == [1, 0, 1]
    assert (bits @ (2 ** np.arange(3)) == np.arange(8)).all()
