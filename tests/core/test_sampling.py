"""Output probabilities and decoding choices: greedy picks each step's argmax and equals
``translate``; a seeded sample repeats; top-k and top-p restrict the support exactly as defined; temperature
→ 0 is greedy; settings are validated; Hugging Face decoder-only models decode the same way."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from explorer.core.model.decoding import translate
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.opening import open_model
from explorer.core.debug.sampling import DecodeChoice, decode_steps
from explorer.core.inspect.step_model import CheckpointSteps
from explorer.core.model.search import sampling_probs
from explorer.core.inspect.opening import step_model

sys.path.insert(0, str(Path(__file__).parent))
import debug_helpers  # noqa: E402

SOURCES = ("i lost .", "he's calm .", "go .", "i'm home .")


@pytest.fixture(scope="module")
def sm(tmp_path_factory: pytest.TempPathFactory) -> CheckpointSteps:
    torch.set_num_threads(1)  # an under-trained model, so that sampling has choices to make
    m = open_model(debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models", epochs=8))
    out = step_model(m)
    assert isinstance(out, CheckpointSteps)
    return out


def test_greedy_chooses_each_steps_argmax_and_equals_translate(sm: CheckpointSteps) -> None:
    for source in SOURCES:
        trace = decode_steps(sm, source, DecodeChoice("greedy"), top=4)
        ref = translate(sm.net, sm.loaded.src_vocab, sm.loaded.tgt_vocab, source, sm.num_steps)
        assert trace.ids == ref.ids + ([sm.loaded.tgt_vocab.eos] if ref.finished else [])
        assert trace.finished == ref.finished and trace.text == ref.text
        assert trace.log_prob == pytest.approx(ref.score, abs=1e-4)
        for i, step in enumerate(trace.steps):
            assert step.index == i and step.chosen_rank == 0 and step.chosen_id == step.top_ids[0]
            assert step.top_probs == sorted(step.top_probs, reverse=True) and len(step.top_ids) == 4
            assert step.support == 1 and step.top_choice_probs[0] == 1.0
            assert step.chosen_token == step.top_tokens[0] and step.chosen_prob == pytest.approx(step.top_probs[0])
            assert step.cross_attention is not None and step.cross_attention.shape == (2, 2, len(trace.source_tokens))
            # the step's cross-attention row is the translation's own
            assert step.cross_attention == pytest.approx(ref.cross_attention[:, :, i], abs=1e-6)


def test_a_seeded_sample_repeats(sm: CheckpointSteps) -> None:
    choice = DecodeChoice("sample", temperature=1.5, seed=7)
    first = [decode_steps(sm, s, choice).ids for s in SOURCES]
    assert [decode_steps(sm, s, choice).ids for s in SOURCES] == first
    others = {tuple(decode_steps(sm, SOURCES[0], DecodeChoice("sample", temperature=1.5, seed=s)).ids)
              for s in range(8)}
    assert len(others) > 1  # the seed matters


def test_top_k_and_top_p_restrict_the_support() -> None:
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(50, 30, generator=gen) * 3  # (B, V)
    for k in (1, 3, 29):
        probs = sampling_probs(logits, top_k=k)
        assert ((probs > 0).sum(-1) == k).all()
        kept_min = torch.where(probs > 0, logits, torch.inf).min(-1).values
        dropped_max = torch.where(probs > 0, -torch.inf, logits).max(-1).values
        assert (kept_min >= dropped_max).all()  # the k most probable ones
        torch.testing.assert_close(probs.sum(-1), torch.ones(50))
    for p in (0.05, 0.5, 0.9, 1.0):
        probs = sampling_probs(logits, top_p=p)
        full = torch.softmax(logits, -1)
        for row in range(50):
            order = full[row].argsort(descending=True)
            n = int((probs[row] > 0).sum())
            assert set(order[:n].tolist()) == set(torch.nonzero(probs[row]).flatten().tolist())
            assert float(full[row, order[:n]].sum()) >= p - 1e-6  # enough mass…
            assert n == (30 if p == 1 else n)  # top-p 1 keeps every token
            assert p == 1 or n == 1 or float(full[row, order[:n - 1]].sum()) < p  # …and no fewer would do
            torch.testing.assert_close(probs[row, order[:n]], full[row, order[:n]] / full[row, order[:n]].sum())
    both = sampling_probs(logits, temperature=2.0, top_k=5, top_p=0.6)
    assert ((both > 0).sum(-1) <= 5).all()
    greedy = sampling_probs(logits, temperature=0)
    assert (greedy.argmax(-1) == logits.argmax(-1)).all() and ((greedy > 0).sum(-1) == 1).all()


def test_sampled_tokens_stay_in_the_support(sm: CheckpointSteps) -> None:
    for seed in range(4):
        for step in decode_steps(sm, SOURCES[1], DecodeChoice("sample", temperature=2.0, top_k=2, seed=seed)).steps:
            assert step.chosen_rank < 2 and step.support == 2
            assert step.top_choice_probs[2:] == [0.0] * (len(step.top_ids) - 2)
        for step in decode_steps(sm, SOURCES[1], DecodeChoice("sample", top_p=0.5, seed=seed)).steps:
            mass_before = sum(step.top_probs[:step.chosen_rank])
            assert mass_before < 0.5 + 1e-6 and step.support >= 1


def test_temperature_to_zero_is_greedy(sm: CheckpointSteps) -> None:
    for source in SOURCES:
        greedy = decode_steps(sm, source).ids
        assert decode_steps(sm, source, DecodeChoice("sample", temperature=0.0, seed=3)).ids == greedy
        for seed in range(3):
            assert decode_steps(sm, source, DecodeChoice("sample", temperature=1e-6, seed=seed)).ids == greedy


def test_bad_settings(sm: CheckpointSteps) -> None:
    for choice, match in ((DecodeChoice("nucleus"), "method"), (DecodeChoice(temperature=-1), "temperature"),
                          (DecodeChoice(top_k=-2), "top-k"), (DecodeChoice(top_p=0.0), "top-p"),
                          (DecodeChoice(top_p=1.5), "top-p"), (DecodeChoice(seed=-1), "seed"),
                          (DecodeChoice(beam_width=0), "beam width"), (DecodeChoice(length_penalty=-1), "length")):
        with pytest.raises(ModelError, match=match):
            decode_steps(sm, "go .", choice)
    with pytest.raises(ModelError, match="top"):
        decode_steps(sm, "go .", top=0)
    with pytest.raises(ValueError, match="empty"):
        decode_steps(sm, "   ")


def test_hf_gpt2_decodes_step_by_step(tmp_path_factory: pytest.TempPathFactory) -> None:
    pytest.importorskip("transformers")
    import hf_tiny

    m = open_model(hf_tiny.folder("gpt2", tmp_path_factory.getbasetemp() / "hf_tiny"))
    hsm = step_model(m)
    trace = decode_steps(hsm, hf_tiny.SOURCE, max_new_tokens=4)
    assert len(trace.steps) == 4 and all(s.chosen_rank == 0 and s.cross_attention is None for s in trace.steps)
    ids = torch.tensor([m.tokenizer(hf_tiny.SOURCE)["input_ids"]])
    with torch.no_grad():
        assert trace.steps[0].chosen_id == int(m.model(input_ids=ids).logits[0, -1].argmax())
    choice = DecodeChoice("sample", top_k=5, seed=11)
    assert decode_steps(hsm, hf_tiny.SOURCE, choice, max_new_tokens=4).ids == \
        decode_steps(hsm, hf_tiny.SOURCE, choice, max_new_tokens=4).ids
    with pytest.raises(ModelError, match="encoder-only"):
        step_model(open_model(hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny")))
