"""Attention scoring and multi-head attention against independent references (d2l §11.3, §11.5)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from explorer.core.model.attention import (AdditiveAttention, DotProductAttention, MultiHeadAttention,
                                     masked_softmax, sequence_mask, valid_lens_bias)


def numpy_masked_softmax(scores: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Reference: softmax over the first lens[b, q] keys of each row, zeros elsewhere."""
    out = np.zeros_like(scores, dtype=np.float64)
    B, Q, K = scores.shape
    for b in range(B):
        for q in range(Q):
            n = int(lens[b, q])
            if n > 0:
                row = scores[b, q, :n].astype(np.float64)
                e = np.exp(row - row.max())
                out[b, q, :n] = e / e.sum()
    return out


def test_masked_softmax_book_example_1d_and_2d() -> None:
    scores = torch.rand(2, 2, 4)
    w = masked_softmax(scores, torch.tensor([2, 3]))
    assert (w[0, :, 2:] == 0).all() and (w[1, :, 3:] == 0).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 2))
    w2 = masked_softmax(scores, torch.tensor([[1, 3], [2, 4]]))
    ref = numpy_masked_softmax(scores.numpy(), np.array([[1, 3], [2, 4]]))
    np.testing.assert_allclose(w2.numpy(), ref, atol=1e-6)


def test_masked_softmax_empty_row_is_zero_not_nan() -> None:
    w = masked_softmax(torch.randn(2, 3, 5), torch.tensor([0, 5]))
    assert not torch.isnan(w).any()
    assert (w[0] == 0).all()
    torch.testing.assert_close(w[1].sum(-1), torch.ones(3))


def test_masked_softmax_bool_mask_and_head_axis() -> None:
    scores = torch.randn(2, 4, 3, 6)  # (B, h, Q, K)
    mask = torch.rand(2, 1, 3, 6) > 0.4
    w = masked_softmax(scores, mask=mask)
    assert (w.masked_select(~mask.expand_as(w)) == 0).all()
    w_len = masked_softmax(scores, torch.tensor([2, 6]))
    assert (w_len[0, :, :, 2:] == 0).all()
    torch.testing.assert_close(w_len.sum(-1), torch.ones(2, 4, 3))


@settings(max_examples=60, deadline=None)
@given(B=st.integers(1, 4), Q=st.integers(1, 6), K=st.integers(1, 8), two_d=st.booleans(), seed=st.integers(0, 2**16))
def test_masked_softmax_property(B: int, Q: int, K: int, two_d: bool, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(B, Q, K, generator=g) * 10
    lens = torch.randint(0, K + 1, (B, Q) if two_d else (B,), generator=g)
    w = masked_softmax(scores, lens)
    full = lens if two_d else lens[:, None].expand(B, Q)
    np.testing.assert_allclose(w.numpy(), numpy_masked_softmax(scores.numpy(), full.numpy()), atol=1e-5)
    sums = w.sum(-1)
    torch.testing.assert_close(sums, (full > 0).float(), atol=1e-5, rtol=0)


def test_valid_lens_bias_matches_mask() -> None:
    lens = torch.tensor([1, 3])
    bias = valid_lens_bias(lens, 2, 4)
    assert bias.shape == (2, 1, 1, 4)
    assert ((bias[:, 0, 0] == 0) == sequence_mask(lens, 4)).all()


def test_dot_product_attention_formula() -> None:
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    out, w = DotProductAttention(0.0)(q, k, v, torch.tensor([5, 2]))
    ref_w = numpy_masked_softmax((q @ k.transpose(1, 2)).numpy() / 2.0, np.array([[5] * 3, [2] * 3]))
    np.testing.assert_allclose(w.numpy(), ref_w, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), ref_w @ v.numpy(), atol=1e-5)


def test_additive_attention_formula() -> None:
    torch.manual_seed(1)
    att = AdditiveAttention(key_size=3, query_size=5, num_hiddens=7).eval()
    q, k, v = torch.randn(2, 4, 5), torch.randn(2, 6, 3), torch.randn(2, 6, 2)
    out, w = att(q, k, v, torch.tensor([6, 3]))
    Wq, Wk, wv = (m.weight.detach().numpy() for m in (att.W_q, att.W_k, att.w_v))
    scores = np.einsum("h,bqkh->bqk", wv[0], np.tanh((q.numpy() @ Wq.T)[:, :, None] + (k.numpy() @ Wk.T)[:, None]))
    ref = numpy_masked_softmax(scores, np.array([[6] * 4, [3] * 4]))
    np.testing.assert_allclose(w.detach().numpy(), ref, atol=1e-5)
    np.testing.assert_allclose(out.detach().numpy(), ref @ v.numpy(), atol=1e-5)


def _load_into_torch_mha(ours: MultiHeadAttention, bias: bool) -> nn.MultiheadAttention:
    ref = nn.MultiheadAttention(ours.num_hiddens, ours.num_heads, bias=bias, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        ref.out_proj.weight.copy_(ours.W_o.weight)
        if bias:
            ref.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
            ref.out_proj.bias.copy_(ours.W_o.bias)
    return ref.eval()


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_multihead_equals_torch_reference(bias: bool, padded: bool) -> None:
    torch.manual_seed(2)
    ours = MultiHeadAttention(num_hiddens=16, num_heads=4, dropout=0.0, bias=bias).eval()
    ref = _load_into_torch_mha(ours, bias)
    q, kv = torch.randn(3, 5, 16), torch.randn(3, 7, 16)
    lens = torch.tensor([7, 4, 1]) if padded else None
    out, w = ours(q, kv, kv, lens)
    pad = ~sequence_mask(lens, 7) if padded else None
    ref_out, ref_w = ref(q, kv, kv, key_padding_mask=pad, need_weights=True, average_attn_weights=True)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(w.mean(dim=1), ref_w, atol=1e-5, rtol=0)
    _, per_head = ref(q, kv, kv, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
    torch.testing.assert_close(w, per_head, atol=1e-5, rtol=0)


def test_multihead_fast_path_and_sizes() -> None:
    torch.manual_seed(3)
    mha = MultiHeadAttention(12, 3, key_size=5, query_size=4, value_size=6).eval()
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 8, 5), torch.randn(2, 8, 6)
    lens = torch.tensor([8, 2])
    out, w = mha(q, k, v, lens)
    fast, none = mha(q, k, v, need_weights=False, attn_bias=valid_lens_bias(lens, 3, 8))
    assert none is None and w.shape == (2, 3, 3, 8) and out.shape == (2, 3, 12)
    torch.testing.assert_close(out, fast, atol=1e-6, rtol=0)
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 3)


def test_scaling_keeps_unit_variance() -> None:
    g = torch.Generator().manual_seed(0)
    d = 256
    q, k = torch.randn(4000, d, generator=g), torch.randn(4000, d, generator=g)
    raw = (q * k).sum(-1)
    assert abs(raw.var().item() / d - 1) < 0.1
    assert abs((raw / math.sqrt(d)).var().item() - 1) < 0.1


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 1e-5])
def test_keep_mask_law(p: float) -> None:
    from explorer.core.model.attention import keep_mask

    torch.manual_seed(3)
    mask = keep_mask((1001, 7, 3), p)  # 21021 entries: not a multiple of 4
    assert mask.shape == (1001, 7, 3) and mask.dtype == torch.float32
    values = torch.unique(mask)
    assert values[0] == 0.0 or p < 1e-3
    scale = float(values[-1])
    assert abs(scale - 1 / (1 - p)) < 1e-4  # 1/(1-p) with p on a 2^-16 grid
    dropped = float((mask == 0).float().mean())
    assert abs(dropped - p) < 5 * (p * (1 - p) / mask.numel()) ** 0.5 + 1e-4  # five standard errors
    torch.manual_seed(3)
    assert torch.equal(keep_mask((1001, 7, 3), p), mask)  # the seed decides it
    big = keep_mask((400_000,), 0.1)
    assert abs(float(big.mean()) - 1.0) < 5 * (0.1 / 0.9 / 400_000) ** 0.5  # unbiased: E[mask] = 1


@pytest.mark.parametrize("heads", [2, 16])
def test_multihead_fast_path_any_head_count_equals_general_path(heads: int) -> None:
    from explorer.core.model import attention
    torch.manual_seed(4)
    mha = MultiHeadAttention(32, heads).eval()
    assert (heads * 32 <= attention.MAX_REPEATED_WIDTH) == (heads == 2)  # the fused core, then the fallback
    q, kv = torch.randn(3, 5, 32), torch.randn(3, 6, 32)
    lens = torch.tensor([6, 3, 1])
    out, w = mha(q, kv, kv, lens)
    fast, fast_w = mha(q, kv, kv, attn_bias=valid_lens_bias(lens, 5, 6))
    torch.testing.assert_close(out, fast, atol=1e-6, rtol=0)
    torch.testing.assert_close(w, fast_w, atol=1e-6, rtol=0)
    assert fast_w.shape == (3, heads, 5, 6)
