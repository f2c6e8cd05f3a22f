"""Transformer anatomy (book §11.7): the traced blocks equal the model's own forward pass, the FFN maps equal rows
to equal rows, LayerNorm and BatchNorm equal torch's modules on the book's tensor and on a padded batch."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from explorer.core.chapter.anatomy_model import AnatomyError, AnatomyModel, builtin_model
from explorer.core.chapter.block_trace import trace_blocks
from explorer.core.chapter.sublayer_demos import (batch_norm, book_norms, ffn_demo, layer_norm, sentence_batch,
                                          split_sentences)
from explorer.core.data.text import Vocab
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig


@pytest.fixture(scope="module")
def book_model() -> AnatomyModel:
    return builtin_model(seed=0)


def tiny_model(norm_first: bool) -> AnatomyModel:
    src = Vocab([["a", "b", "c", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    tgt = Vocab([["x", "y", "z", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    torch.manual_seed(1)
    cfg = TransformerConfig(num_hiddens=8, num_layers=3, num_heads=2, ffn_num_hiddens=16, norm_first=norm_first)
    return AnatomyModel(Seq2SeqTransformer(cfg, len(src), len(tgt)).eval(), src, tgt, "tiny")


def test_builtin_model_is_the_books(book_model: AnatomyModel) -> None:
    cfg = book_model.config
    assert (cfg.num_hiddens, cfg.num_layers, cfg.num_heads, cfg.ffn_num_hiddens) == (32, 2, 4, 64)
    assert not book_model.model.training and "untrained" in book_model.origin
    again = builtin_model(seed=0)
    for a, b in zip(book_model.model.parameters(), again.model.parameters()):
        assert torch.equal(a, b)  # seeded, and the global random state is not used


@pytest.mark.parametrize("norm_first", [False, True])
def test_trace_equals_the_models_forward_pass(norm_first: bool) -> None:
    m = tiny_model(norm_first)
    trace = trace_blocks(m, "a b c .", "x y .")
    src = torch.tensor([m.src_vocab[["a", "b", "c", ".", "<eos>"]]])
    dec = torch.tensor([m.tgt_vocab[["<bos>", "x", "y", "."]]])
    with torch.no_grad():
        enc, _, _ = m.model.encode(src, torch.tensor([5]))
        logits, _ = m.model(src, torch.tensor([5]), dec)
    np.testing.assert_allclose(trace.encoder_output, enc[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.logits, logits[0].numpy(), atol=1e-5)
    kinds = [s.kind for s in trace.stages[("encoder", 0)]]
    post = ["input", "attention", "addnorm", "ffn", "addnorm"]
    pre = ["input", "norm", "attention", "add", "norm", "ffn", "add"]
    assert kinds == (pre if norm_first else post)
    dec_kinds = [s.kind for s in trace.stages[("decoder", 1)]]
    assert dec_kinds == (["input", "norm", "masked_attention", "add", "norm", "cross_attention", "add", "norm", "ffn",
                          "add"] if norm_first else
                         ["input", "masked_attention", "addnorm", "cross_attention", "addnorm", "ffn", "addnorm"])
    for (side, layer), stages in trace.stages.items():
        t = 5 if side == "encoder" else 4
        for before, after in zip(stages, stages[1:]):  # each box's output enters the next
            assert any(np.array_equal(v.values, before.output.values) for v in after.inputs)
        for s in stages:
            assert s.output.shape == (1, t, 8)  # (batch, steps, num_hiddens) through the whole stack
        if layer:
            np.testing.assert_array_equal(stages[0].output.values, trace.stages[(side, layer - 1)][-1].output.values)
    cross = next(s for s in trace.stages[("decoder", 0)] if s.kind == "cross_attention")
    assert [v.shape for v in cross.inputs] == [(1, 4, 8), (1, 5, 8)] and cross.weights.shape == (2, 4, 5)
    masked = next(s for s in trace.stages[("decoder", 0)] if s.kind == "masked_attention")
    assert np.allclose(np.triu(masked.weights, 1), 0)  # a decoder position never sees later ones


def test_ffn_maps_a_repeated_word_to_the_same_output(book_model: AnatomyModel) -> None:
    demo = ffn_demo(book_model, "he's calm , she's calm .")
    assert demo.tokens == ["he's", "calm", ",", "she's", "calm", ".", "<eos>"]
    assert demo.repeats == [(1, 4)] and demo.input_gap == 0
    assert demo.output_gap < 1e-5  # equal up to float32 rounding (a matrix product may block rows differently)
    ffn = book_model.model.encoder.blocks[0].ffn
    with torch.no_grad():
        direct = ffn(torch.from_numpy(demo.X).float()[None])[0].double().numpy()
    np.testing.assert_allclose(demo.Y, direct, atol=1e-6)
    positioned = ffn_demo(book_model, "he's calm , she's calm .", positions=True)
    assert positioned.input_gap > 0.1 and positioned.output_gap > 1e-3  # positions tell the two apart
    with pytest.raises(AnatomyError):
        ffn_demo(book_model, "  ")


def test_book_example_of_layer_and_batch_norm() -> None:
    r = book_norms()
    X = torch.tensor([[1.0, 2.0], [2.0, 3.0]])
    ln, bn = nn.LayerNorm(2), nn.BatchNorm1d(2)
    bn.train()
    with torch.no_grad():
        np.testing.assert_allclose(r.ln, ln(X).numpy(), atol=1e-6)
        np.testing.assert_allclose(r.bn, bn(X).numpy(), atol=1e-6)
    np.testing.assert_allclose(r.ln, [[-1, 1], [-1, 1]], atol=1e-4)
    np.testing.assert_allclose(r.bn, [[-1, -1], [1, 1]], atol=1e-4)


def test_padded_batch_norms_equal_torch(book_model: AnatomyModel) -> None:
    r = sentence_batch(book_model, ["go .", "i lost .", "he's calm .", "i'm home ."], num_steps=10)
    assert r.X.shape == (4, 10, 32) and r.valid.sum(axis=1).tolist() == [3, 4, 4, 4]
    assert r.tokens[0][:4] == ["go", ".", "<eos>", "<pad>"]
    X = torch.from_numpy(r.X)
    ln, bn = nn.LayerNorm(32).double(), nn.BatchNorm1d(32).double()
    bn.train()
    with torch.no_grad():
        np.testing.assert_allclose(r.ln, ln(X).numpy(), atol=1e-10)
        np.testing.assert_allclose(r.bn, bn(X.transpose(1, 2)).transpose(1, 2).numpy(), atol=1e-10)  # (B, d, T)
    np.testing.assert_allclose(layer_norm(r.X[0]), r.ln[0])
    np.testing.assert_allclose(batch_norm(r.X.reshape(-1, 32)).reshape(r.X.shape), r.bn)
    assert r.ln_alone_shift < 1e-12 and r.bn_shift > 0.05  # padding moves BatchNorm, never LayerNorm
    assert split_sentences(" go . | i lost .|") == ["go .", "i lost ."]
    with pytest.raises(AnatomyError):
        sentence_batch(book_model, ["a b c d e f g h i j k"], num_steps=10)
