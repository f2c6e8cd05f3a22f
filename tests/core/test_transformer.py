"""The book's Transformer (d2l §11.7) against an independent numpy forward pass and the book's own code."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.model.transformer import AttentionMaps, ConfigError, Seq2SeqTransformer, TransformerConfig

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "bench" / "d2l_reference.py"


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _model(seed: int = 0, **kw: object) -> Seq2SeqTransformer:
    torch.manual_seed(seed)
    return Seq2SeqTransformer(TransformerConfig(**kw), 13, 17)  # type: ignore[arg-type]


def _batch(seed: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(0, 13, (3, 7), generator=g)
    dec = torch.randint(0, 17, (3, 6), generator=g)
    return src, torch.tensor([2, 7, 4]), dec


# ---------------------------------------------------------------- an independent numpy forward pass
def _ln(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def _mha(sd: dict, pre: str, q: np.ndarray, kv: np.ndarray, keep: np.ndarray, heads: int):
    Q, K, V = (x @ sd[f"{pre}.W_{n}.weight"].T for x, n in ((q, "q"), (kv, "k"), (kv, "v")))
    dh = Q.shape[-1] // heads
    out, weights = np.zeros_like(Q), np.zeros((heads, len(q), len(kv)))
    for i in range(heads):  # one head at a time, no reshapes
        cols = slice(i * dh, (i + 1) * dh)
        s = Q[:, cols] @ K[:, cols].T / math.sqrt(dh)
        s = np.where(keep, s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[i] = e / e.sum(-1, keepdims=True)
        out[:, cols] = weights[i] @ V[:, cols]
    return out @ sd[f"{pre}.W_o.weight"].T, weights


def _ffn(sd: dict, pre: str, x: np.ndarray) -> np.ndarray:
    h = np.maximum(x @ sd[f"{pre}.dense1.weight"].T + sd[f"{pre}.dense1.bias"], 0)
    return h @ sd[f"{pre}.dense2.weight"].T + sd[f"{pre}.dense2.bias"]


def _pe(T: int, d: int) -> np.ndarray:
    P = np.zeros((T, d))
    ang = np.arange(T)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    P[:, 0::2], P[:, 1::2] = np.sin(ang), np.cos(ang)
    return P


def numpy_forward(model: Seq2SeqTransformer, src: np.ndarray, n_src: int, dec: np.ndarray):
    """Post-LN encoder–decoder for one sequence, eval mode: logits (Tt, V) and the three map kinds."""
    sd = {k: v.double().numpy() for k, v in model.state_dict().items()}
    cfg = model.config
    d, h, L = cfg.num_hiddens, cfg.num_heads, cfg.num_layers
    an = lambda pre, x, y: _ln(x + y, sd[f"{pre}.ln.weight"], sd[f"{pre}.ln.bias"])  # noqa: E731
    x = sd["encoder.embedding.weight"][src] * math.sqrt(d) + _pe(len(src), d)
    src_keep = np.arange(len(src))[None, :] < n_src
    enc_w, self_w, cross_w = [], [], []
    for i in range(L):
        p = f"encoder.blocks.{i}"
        a, w = _mha(sd, f"{p}.attention", x, x, src_keep, h)
        y = an(f"{p}.addnorm1", x, a)
        x = an(f"{p}.addnorm2", y, _ffn(sd, f"{p}.ffn", y))
        enc_w.append(w)
    T = len(dec)
    causal = np.tril(np.ones((T, T), dtype=bool))
    z = sd["decoder.embedding.weight"][dec] * math.sqrt(d) + _pe(T, d)
    for i in range(L):
        p = f"decoder.blocks.{i}"
        a, w1 = _mha(sd, f"{p}.attention1", z, z, causal, h)
        y = an(f"{p}.addnorm1", z, a)
        c, w2 = _mha(sd, f"{p}.attention2", y, x, src_keep, h)
        u = an(f"{p}.addnorm2", y, c)
        z = an(f"{p}.addnorm3", u, _ffn(sd, f"{p}.ffn", u))
        self_w.append(w1)
        cross_w.append(w2)
    logits = z @ sd["decoder.dense.weight"].T + sd["decoder.dense.bias"]
    return logits, enc_w, self_w, cross_w


def test_forward_matches_independent_numpy_reference() -> None:
    model = _model().eval()
    src, lens, dec = _batch()
    with torch.no_grad():
        logits, maps = model(src, lens, dec, need_weights=True)
    assert isinstance(maps, AttentionMaps) and logits.shape == (3, 6, 17)
    for b in range(3):
        ref, enc_w, self_w, cross_w = numpy_forward(model, src[b].numpy(), int(lens[b]), dec[b].numpy())
        np.testing.assert_allclose(logits[b].numpy(), ref, atol=2e-4, rtol=1e-4)
        for layer in range(2):
            np.testing.assert_allclose(maps.encoder[layer][b].numpy()[:, :, : int(lens[b])],
                                       enc_w[layer][:, :, : int(lens[b])], atol=1e-5)
            np.testing.assert_allclose(maps.decoder[layer][b].numpy(), self_w[layer], atol=1e-5)
            np.testing.assert_allclose(maps.cross[layer][b].numpy(), cross_w[layer], atol=1e-5)


def test_weights_are_optional_and_do_not_change_the_output() -> None:
    model = _model().eval()
    src, lens, dec = _batch()
    with torch.no_grad():
        fast, none = model(src, lens, dec)
        slow, maps = model(src, lens, dec, need_weights=True)
    assert none is None and maps is not None
    torch.testing.assert_close(fast, slow)
    assert [m.shape for m in maps.cross] == [(3, 4, 6, 7)] * 2
    cropped = maps.cropped_numpy(0, 2, 6)
    assert cropped["encoder"].shape == (2, 4, 2, 2) and cropped["cross"].shape == (2, 4, 6, 2)
    assert cropped["decoder"].dtype == np.float32
    np.testing.assert_allclose(cropped["cross"].sum(-1), 1.0, atol=1e-5)  # the 2 valid keys hold all mass
    assert np.all(np.triu(cropped["decoder"], k=1) == 0)  # causal: no weight on later positions


def test_padding_and_future_tokens_do_not_leak() -> None:
    model = _model().eval()
    src, lens, dec = _batch()
    src2, dec2 = src.clone(), dec.clone()
    src2[0, 2:] = (src2[0, 2:] + 1) % 13  # beyond the valid length of sequence 0
    dec2[:, 4:] = (dec2[:, 4:] + 1) % 17  # future decoder positions
    with torch.no_grad():
        a, _ = model(src, lens, dec)
        b, _ = model(src2, lens, dec2)
    torch.testing.assert_close(a[0, :4], b[0, :4])
    torch.testing.assert_close(a[1:, :4], b[1:, :4])
    assert not torch.allclose(a[:, 4:], b[:, 4:])


def test_xavier_uniform_init_of_every_linear() -> None:
    model = _model(num_hiddens=64, ffn_num_hiddens=256)
    linears = [m for m in model.modules() if type(m) is torch.nn.Linear]
    assert len(linears) == 2 * 6 + 2 * 10 + 1  # encoder 2×(4+2), decoder 2×(8+2), output layer
    for lin in linears:
        fan_out, fan_in = lin.weight.shape
        bound = math.sqrt(6.0 / (fan_in + fan_out))
        w = lin.weight.detach()
        assert float(w.abs().max()) <= bound
        if w.numel() >= 4096:
            assert abs(float(w.std()) - bound / math.sqrt(3)) < 0.1 * bound
    projections = [m for n, m in model.named_modules() if n.endswith(("W_q", "W_k", "W_v", "W_o"))]
    assert projections and all(p.bias is None for p in projections)  # bias=False, as the book


def test_pre_ln_variant_has_final_norms_and_trains() -> None:
    post, pre = _model(), _model(norm_first=True)
    assert post.encoder.final_norm is None and pre.encoder.final_norm is not None
    assert pre.decoder.final_norm is not None
    src, lens, dec = _batch()
    logits, _ = pre(src, lens, dec)
    logits.sum().backward()
    assert all(p.grad is not None for p in pre.parameters())
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize("kwargs, fragment", [
    ({"num_hiddens": 30, "num_heads": 4}, "divisible by num_heads"),
    ({"num_layers": 0}, "num_layers must be at least 1"),
    ({"dropout": 1.0}, "dropout"),
    ({"num_heads": 2.5}, "whole number"),
    ({"num_hiddens": True}, "whole number"),
])
def test_config_rejects_impossible_settings(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        TransformerConfig(**kwargs).validate()
    with pytest.raises(ConfigError):
        Seq2SeqTransformer(TransformerConfig(**kwargs), 5, 5)


def test_config_round_trips_and_rejects_unknown_keys() -> None:
    cfg = TransformerConfig(num_hiddens=48, num_heads=6, norm_first=True, dropout=0.0)
    assert TransformerConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ConfigError, match="unknown model setting"):
        TransformerConfig.from_dict({**cfg.to_dict(), "wings": 2})
    assert issubclass(ConfigError, ValueError)


def _load_reference():
    spec = importlib.util.spec_from_file_location("d2l_reference", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_same_outputs_and_gradients_as_the_books_code(skip_outside_ci) -> None:
    if not REFERENCE.exists():  # ../shared is checked out next to the repository in CI
        skip_outside_ci(f"the book's reference code {REFERENCE} is not next to the repository")
    d2l = _load_reference()
    ours = _model(dropout=0.0)
    enc = d2l.TransformerEncoder(13, 32, 32, 32, 32, [32], 32, 64, 4, 2, 0.0)
    dec = d2l.TransformerDecoder(17, 32, 32, 32, 32, [32], 32, 64, 4, 2, 0.0)
    ref = d2l.EncoderDecoder(enc, dec)
    renamed = {k.replace("blocks.", "blks.block"): v for k, v in ours.state_dict().items()}
    ref.load_state_dict(renamed)
    src, lens, dec_in = _batch()
    ours.train()
    ref.train()  # the book's decoder masks future positions only in training mode
    a, _ = ours(src, lens, dec_in)
    b, _ = ref(src, dec_in, lens)
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    a.square().sum().backward()
    b.square().sum().backward()
    grads = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        torch.testing.assert_close(p.grad, grads[name.replace("blocks.", "blks.block")].grad, atol=1e-4, rtol=1e-4)


def test_fused_attention_core_equals_composite_ops_with_dropout() -> None:
    """The hand-written attention backward (attention.py) gives the autograd result, dropout included."""
    from explorer.core.model.attention import MultiHeadAttention, keep_mask

    mha = MultiHeadAttention(16, 4, dropout=0.3).train()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 5, 16, generator=g, requires_grad=True)
    bias = torch.zeros(3, 1, 1, 5)
    bias[0, ..., 3:] = float("-inf")
    torch.manual_seed(7)
    out, w = mha(x, x, x, attn_bias=bias)
    out.square().sum().backward()
    fused_grads = [x.grad.clone()] + [p.grad.clone() for p in mha.parameters()]
    x.grad = None
    mha.zero_grad()
    torch.manual_seed(7)  # same dropout mask: drawn in the core's (B, K, h, Q) order below
    W = torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight])
    q, k, v = (t.reshape(3, 5, 4, 4).transpose(1, 2) for t in (x @ W.T).split(16, dim=-1))  # (B, h, T, d)
    scores_t = k @ q.transpose(-1, -2) / 2.0 + bias.transpose(-1, -2)  # (B, h, K, Q)
    weights_t = torch.softmax(scores_t, dim=-2)
    keep = keep_mask((3, 5, 4, 5), 0.3).permute(0, 2, 1, 3)  # drawn (B, K, h, Q) -> (B, h, K, Q)
    context = (weights_t * keep).transpose(-1, -2) @ v  # (B, h, Q, d)
    ref = mha.W_o(context.transpose(1, 2).reshape(3, 5, 16))
    ref.square().sum().backward()
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(w, weights_t.transpose(-1, -2))
    assert float(w[0, :, :, 3:].abs().sum()) == 0.0
    for a, b in zip(fused_grads, [x.grad] + [p.grad for p in mha.parameters()]):
        torch.testing.assert_close(a, b)


def test_mixed_precision_forward_and_backward_run() -> None:
    """Under bfloat16 autocast (as the trainer's ``amp``), the fused attention core stays in float32."""
    model = _model().train()
    src, lens, dec = _batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, _ = model(src, lens, dec)
        loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, 17), dec.reshape(-1))
    loss.backward()
    assert torch.isfinite(loss)
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
