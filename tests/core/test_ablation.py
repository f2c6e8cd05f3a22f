"""Head ablation: a head switched off equals its output zeroed by hand (W_o for a whole layer, the
value projection for one head), for our checkpoints and Hugging Face models; nothing off equals the
baseline computed by hand; a sweep has one row per head; hooks never outlive the block; bad input."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from explorer.core.debug.ablation import evaluate, load_pairs, sweep
from explorer.core.inspect.checkpoint_model import CheckpointModel
from explorer.core.model.decoding import translate_batch
from explorer.core.debug.head_ablation import ablated, all_heads, attention_modules, check_heads, parse_head
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.opening import open_model
from explorer.core.model.metrics import corpus_bleu
from explorer.core.data.text import build_dataset
from explorer.core.data.readers import DatasetError

sys.path.insert(0, str(Path(__file__).parent))
import debug_helpers  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> CheckpointModel:
    torch.set_num_threads(1)
    m = open_model(debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models"))
    assert isinstance(m, CheckpointModel)
    return m


def _logits(m: CheckpointModel, net: torch.nn.Module | None = None) -> torch.Tensor:
    """Teacher-forced logits of the test pairs (B, T, V)."""
    net = net or m.loaded.model
    ds = build_dataset(debug_helpers.pairs(), m.num_steps, src_vocab=m.loaded.src_vocab, tgt_vocab=m.loaded.tgt_vocab)
    bos = torch.full((len(ds), 1), m.loaded.tgt_vocab.bos)
    with torch.no_grad():
        return net(ds.src, ds.src_valid_len, torch.cat([bos, ds.tgt[:, :-1]], dim=1))[0]


def _module(net: torch.nn.Module, kind: str, layer: int) -> torch.nn.Module:
    if kind == "encoder":
        return net.encoder.blocks[layer].attention
    return getattr(net.decoder.blocks[layer], "attention1" if kind == "decoder" else "attention2")


def _hand_baseline(m: CheckpointModel) -> tuple[float, float]:
    """Corpus BLEU (n ≤ 2) of batched greedy translations and the mean token cross-entropy, computed by hand."""
    pairs = debug_helpers.pairs()
    outs = translate_batch(m.loaded.model, m.loaded.src_vocab, m.loaded.tgt_vocab, [s for s, _ in pairs], m.num_steps)
    bleu = corpus_bleu([t.tokens for t in outs], [r.split() for _, r in pairs], max_n=2)
    ds = build_dataset(pairs, m.num_steps, src_vocab=m.loaded.src_vocab, tgt_vocab=m.loaded.tgt_vocab)
    logits = _logits(m)
    total, count = 0.0, 0
    for i in range(len(ds)):
        n = int(ds.tgt_valid_len[i])
        total += float(F.cross_entropy(logits[i, :n], ds.tgt[i, :n], reduction="sum"))
        count += n
    return bleu, total / count


def test_nothing_off_is_the_baseline(model: CheckpointModel) -> None:
    pairs = debug_helpers.pairs()
    bleu, loss = _hand_baseline(model)
    plain, empty = evaluate(model, pairs), evaluate(model, pairs, heads=[])
    assert plain.bleu == empty.bleu == pytest.approx(bleu) and plain.bleu > 0.5  # the tiny model has learnt
    assert plain.loss == pytest.approx(loss, rel=1e-5) and empty.loss == plain.loss
    assert plain.tokens == sum(len(t.split()) + 1 for _, t in pairs)
    assert plain.translations == empty.translations and plain.heads == []


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_a_whole_layer_off_equals_zeroing_its_attention_output(model: CheckpointModel, kind: str) -> None:
    net = copy.deepcopy(model.loaded.model)
    with torch.no_grad():
        _module(net, kind, 1).W_o.weight.zero_()  # the layer's attention output is 0 (W_o has no bias)
    heads = [(kind, 1, h) for h in range(2)]
    with ablated(model, heads) as chosen:
        ablated_logits = _logits(model)
    assert chosen == heads
    torch.testing.assert_close(ablated_logits, _logits(model, net), rtol=1e-5, atol=1e-5)
    assert not torch.allclose(ablated_logits, _logits(model))  # and it did change something
    by_hand = CheckpointModel(copy.copy(model.loaded), "zeroed")
    by_hand.loaded.model = net
    ev, ref = evaluate(model, debug_helpers.pairs(), heads), evaluate(by_hand, debug_helpers.pairs())
    assert (ev.bleu, ev.translations) == (ref.bleu, ref.translations)
    assert ev.loss == pytest.approx(ref.loss, rel=1e-5)


@pytest.mark.parametrize("kind, layer, head", [("encoder", 0, 1), ("decoder", 1, 0), ("cross", 0, 0)])
def test_one_head_off_equals_zeroing_its_values(model: CheckpointModel, kind: str, layer: int, head: int) -> None:
    net = copy.deepcopy(model.loaded.model)
    d = net.config.num_hiddens // net.config.num_heads
    with torch.no_grad():
        _module(net, kind, layer).W_v.weight[head * d:(head + 1) * d] = 0  # the head's values, so its output, are 0
    with ablated(model, [(kind, layer, head)]):
        got = _logits(model)
    torch.testing.assert_close(got, _logits(model, net), rtol=1e-5, atol=1e-5)


def test_the_sweep_has_one_row_per_head(model: CheckpointModel) -> None:
    pairs = debug_helpers.pairs()
    calls: list[tuple[int, int]] = []
    result = sweep(model, pairs, progress=lambda done, total: calls.append((done, total)))
    info = model.describe()
    assert [(r.kind, r.layer, r.head) for r in result.rows] == all_heads(info) and len(result.rows) == 12
    assert calls == [(i, 13) for i in range(1, 14)]
    base = evaluate(model, pairs)
    assert (result.baseline.bleu, result.baseline.loss) == (base.bleu, base.loss)
    row = result.rows[7]
    alone = evaluate(model, pairs, [(row.kind, row.layer, row.head)])
    assert (row.bleu, row.loss) == (alone.bleu, alone.loss)
    for r in result.rows:
        assert r.delta_bleu == pytest.approx(r.bleu - base.bleu) and r.delta_loss == pytest.approx(r.loss - base.loss)
    assert any(r.delta_loss > 0.01 for r in result.rows)
    data = result.to_dict()
    assert set(data["heads"][0]) == {"kind", "layer", "head", "bleu", "delta_bleu", "loss", "delta_loss"}
    only_cross = sweep(model, pairs, kinds=["cross"], also_off=[("encoder", 0, 0)])
    assert [(r.kind, r.layer, r.head) for r in only_cross.rows] == all_heads(info, ["cross"])
    assert only_cross.baseline.heads == [("encoder", 0, 0)] and only_cross.baseline.loss > base.loss


def test_hooks_never_outlive_the_block(model: CheckpointModel) -> None:
    modules = attention_modules(model)
    with pytest.raises(RuntimeError, match="inside"):
        with ablated(model, all_heads(model.describe())):
            assert all(proj._forward_pre_hooks for _, proj in modules.values())
            raise RuntimeError("inside")
    assert not any(proj._forward_pre_hooks or mod._forward_hooks for mod, proj in modules.values())


def test_bad_heads_and_sentence_sets(model: CheckpointModel) -> None:
    info = model.describe()
    for heads, match in (([("cross", 2, 0)], "layer 2 does not exist"), ([("encoder", 0, 5)], "head 5 does not exist"),
                         ([("self", 0, 0)], "no self attention"), ([("encoder", 0)], r"\(kind, layer, head\)"),
                         ([("encoder", 0.5, 0)], "whole numbers")):
        with pytest.raises(ModelError, match=match):
            check_heads(info, heads)
    with pytest.raises(ModelError, match="layer 9"):
        evaluate(model, debug_helpers.pairs(), [("decoder", 9, 0)])
    with pytest.raises(ModelError, match="empty"):
        evaluate(model, [])
    with pytest.raises(ModelError, match="pair 2"):
        evaluate(model, [("go .", "va !"), ("go .",)])  # type: ignore[list-item]
    assert parse_head("cross:1:0") == parse_head("cross.1.0") == ("cross", 1, 0)
    with pytest.raises(ModelError, match="KIND:LAYER:HEAD"):
        parse_head("cross:1")
    with pytest.raises(DatasetError):
        load_pairs("task:nonsense")
    assert check_heads(info, [("cross", 1, 1), ("encoder", 0, 0), ("cross", 1, 1)]) == [("encoder", 0, 0),
                                                                                         ("cross", 1, 1)]


# ----------------------------------------------------------------------------------------- Hugging Face
def _hf(family: str, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    pytest.importorskip("transformers")
    import hf_tiny

    return open_model(hf_tiny.folder(family, tmp_path_factory.getbasetemp() / "hf_tiny")), hf_tiny


def test_hf_bert_head_off_equals_zeroing_its_values(tmp_path_factory: pytest.TempPathFactory) -> None:
    m, hf_tiny = _hf("bert", tmp_path_factory)  # BERT's heads are masked at the self-attention's output
    ids = torch.tensor([m.tokenizer(hf_tiny.SOURCE)["input_ids"]])
    net = copy.deepcopy(m.model)
    value = net.encoder.layer[1].attention.self.value
    with torch.no_grad():
        value.weight[16:24] = 0  # head 2 of 4 (d = 8): its values, weights and bias
        value.bias[16:24] = 0
    with torch.no_grad(), ablated(m, [("encoder", 1, 2)]):
        got = m.model(input_ids=ids).last_hidden_state
    with torch.no_grad():
        want, before = net(input_ids=ids).last_hidden_state, m.model(input_ids=ids).last_hidden_state
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(got, before)
    with pytest.raises(ModelError, match="encoder-only"):
        evaluate(m, [("a", "b")])


def test_hf_bart_heads_off_and_its_sweep(tmp_path_factory: pytest.TempPathFactory) -> None:
    m, hf_tiny = _hf("bart", tmp_path_factory)  # BART's heads are masked at out_proj's input
    src = torch.tensor([m.tokenizer(hf_tiny.SOURCE)["input_ids"]])
    dec = torch.tensor([[2, 0, 5, 9]])
    net = copy.deepcopy(m.model)
    v_proj = net.model.decoder.layers[0].encoder_attn.v_proj
    with torch.no_grad():
        v_proj.weight[8:16] = 0  # cross head 1
        v_proj.bias[8:16] = 0
        want = net(input_ids=src, decoder_input_ids=dec).logits
    with torch.no_grad(), ablated(m, [("cross", 0, 1)]):
        got = m.model(input_ids=src, decoder_input_ids=dec).logits
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    pairs = [(hf_tiny.SOURCE, hf_tiny.TARGET)]
    result = sweep(m, pairs, kinds=["cross"])
    assert len(result.rows) == 2 * 4 and result.baseline.tokens > 0
    assert result.rows[1].loss == evaluate(m, pairs, [("cross", 0, 1)]).loss != result.baseline.loss
