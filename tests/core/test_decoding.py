"""Greedy, batched and beam decoding (d2l §10.7.6, §10.8) against full re-runs and exhaustive search."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from explorer.core.model.decoding import DecodingError, IncrementalDecoder, beam_search, translate, translate_batch
from explorer.core.model.search import Greedy, search
from explorer.core.data.text import Vocab, encode_sentence
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

SRC = Vocab([["a", "b", "c", "d", "e"]])
TGT = Vocab([["x", "y", "z"]])  # 4 + 3 tokens: small enough for exhaustive search


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _model(seed: int = 0, norm_first: bool = False) -> Seq2SeqTransformer:
    torch.manual_seed(seed)
    model = Seq2SeqTransformer(TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32,
                                                 norm_first=norm_first), len(SRC), len(TGT))
    with torch.no_grad():  # sharpen the output layer so greedy, beam and ties are well separated
        model.decoder.dense.weight.mul_(3.0)
    return model.eval()


def _src(sentence: str, steps: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    enc = encode_sentence(sentence, SRC, steps)
    return enc.ids[None], torch.tensor([enc.valid_len])


@pytest.mark.parametrize("norm_first", [False, True])
def test_incremental_decoding_equals_rerunning_the_full_decoder(norm_first: bool) -> None:
    model = _model(1, norm_first)
    src, valid = _src("a c b e")
    inc = IncrementalDecoder(model, src, valid, need_weights=True)
    tokens = [TGT.bos, 4, 6, 5, 4, 6]
    with torch.no_grad():
        for t in range(len(tokens)):
            step_logits, step_cross = inc.step(torch.tensor([tokens[t]]))
            full, maps = model(src, valid, torch.tensor([tokens[: t + 1]]), need_weights=True)
            torch.testing.assert_close(step_logits[0], full[0, -1], atol=1e-5, rtol=1e-5)
            cross_last = torch.stack([m[0, :, -1] for m in maps.cross])  # (L, h, Ts)
            torch.testing.assert_close(step_cross[0], cross_last, atol=1e-6, rtol=1e-5)


def test_batched_greedy_equals_one_sentence_at_a_time() -> None:
    model = _model(2)
    sentences = ["a", "b c d e a", "e e", "c a b", "d", "a b c d e a b c d"]
    batch = translate_batch(model, SRC, TGT, sentences, num_steps=6, need_weights=True, batch_size=4)
    for sentence, together in zip(sentences, batch):
        alone = translate(model, SRC, TGT, sentence, num_steps=6)
        assert alone.tokens == together.tokens and alone.finished == together.finished
        assert alone.score == pytest.approx(together.score, abs=1e-5)
        np.testing.assert_allclose(alone.cross_attention, together.cross_attention, atol=1e-6)


def test_greedy_matches_a_plain_argmax_loop_over_full_passes() -> None:
    model = _model(3)
    src, valid = _src("b d a")
    seq = [TGT.bos]
    with torch.no_grad():
        for _ in range(6):
            logits, _ = model(src, valid, torch.tensor([seq]))
            seq.append(int(logits[0, -1].argmax()))
            if seq[-1] == TGT.eos:
                break
    out = translate(model, SRC, TGT, "b d a", num_steps=6)
    expected = seq[1:-1] if seq[-1] == TGT.eos else seq[1:]
    assert out.ids == expected and out.finished == (seq[-1] == TGT.eos)
    L, h = 2, 2
    assert out.cross_attention.shape == (L, h, len(out.row_labels), 4)  # src: b d a <eos>
    np.testing.assert_allclose(out.cross_attention.sum(-1), 1.0, atol=1e-5)
    assert out.src_tokens == ["b", "d", "a", "<eos>"] and out.text == " ".join(out.tokens)


def _sequence_logp(model: Seq2SeqTransformer, src: torch.Tensor, valid: torch.Tensor, ids: list[int]) -> float:
    with torch.no_grad():
        logits, _ = model(src, valid, torch.tensor([[TGT.bos, *ids[:-1]]]))
    logp = torch.log_softmax(logits[0].double(), -1)
    return float(sum(logp[i, t] for i, t in enumerate(ids)))


@pytest.mark.parametrize("penalty", [0.0, 0.75])
def test_wide_beam_finds_the_exhaustive_optimum(penalty: float) -> None:
    model = _model(4)
    src, valid = _src("c e a")
    max_len, V = 3, len(TGT)
    best, best_score = None, -math.inf
    for n in range(1, max_len + 1):  # every sequence: ended by <eos> within max_len, or cut at max_len
        for body in itertools.product(range(V), repeat=n):
            if TGT.eos in body[:-1]:
                continue
            ids = list(body)
            score = _sequence_logp(model, src, valid, ids) / len(ids) ** penalty
            if (ids[-1] == TGT.eos or n == max_len) and score > best_score:
                best, best_score = ids, score
    with torch.no_grad():
        out = beam_search(model, src, valid, TGT.bos, TGT.eos, max_len, beam_width=V ** max_len,
                          length_penalty=penalty)
    found = out.ids + [TGT.eos] if out.finished else out.ids
    assert found == best
    assert out.score == pytest.approx(best_score, abs=1e-4)
    assert out.cross is not None and out.cross.shape[0] == len(found)


def test_beam_of_width_one_is_greedy() -> None:
    model = _model(5)
    for sentence in ["a b", "e d c b", "c"]:
        greedy = translate(model, SRC, TGT, sentence, num_steps=6)
        beam = translate(model, SRC, TGT, sentence, num_steps=6, method="beam", beam_width=1, length_penalty=0.0)
        assert beam.tokens == greedy.tokens and beam.finished == greedy.finished
        assert beam.score == pytest.approx(greedy.score, abs=1e-4)
        np.testing.assert_allclose(beam.cross_attention, greedy.cross_attention, atol=1e-6)


def test_unknown_words_empty_input_and_bad_settings() -> None:
    model = _model(6)
    out = translate(model, SRC, TGT, "a Zebra b", num_steps=6, method="beam")
    assert out.unknown == ["zebra"] and out.src_tokens == ["a", "zebra", "b", "<eos>"]
    with pytest.raises(ValueError, match="empty"):
        translate(model, SRC, TGT, "   ", num_steps=6)
    with pytest.raises(DecodingError, match="method"):
        translate(model, SRC, TGT, "a", num_steps=6, method="sampling")
    with pytest.raises(DecodingError, match="beam width"):
        translate(model, SRC, TGT, "a", num_steps=6, method="beam", beam_width=0)
    with pytest.raises(DecodingError, match="max_len"):
        translate(model, SRC, TGT, "a", num_steps=6, max_len=5000)
    assert translate_batch(model, SRC, TGT, [], num_steps=6) == []
    with pytest.raises(ValueError, match="sentence 2: empty"):
        translate_batch(model, SRC, TGT, ["a b", ""], num_steps=6)


def test_greedy_decode_stops_when_every_sentence_ended() -> None:
    model = _model(7)
    with torch.no_grad():
        model.decoder.dense.bias.fill_(0.0)
        model.decoder.dense.bias[TGT.eos] = 100.0  # <eos> always wins
    src = torch.stack([_src(s)[0][0] for s in ["a", "b c"]])
    stepper = IncrementalDecoder(model, src, torch.tensor([2, 3]))
    found = search(stepper, torch.full((2,), TGT.bos), Greedy(), 6, {TGT.eos})
    assert stepper.length == 1  # one step, then every sentence had ended
    assert [f.ids for f in found] == [[], []] and all(f.finished and f.cross is None for f in found)
    assert model.training is False
