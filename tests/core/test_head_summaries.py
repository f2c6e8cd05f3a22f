"""Head summaries: per-head scores against closed forms on hand-made maps, and averaged over a
sentence set for a real (tiny) model, including the alignment of a synthetic task."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.core.debug.head_summaries import SCORES, head_scores, summarize_heads
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.opening import open_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
import debug_helpers  # noqa: E402


def test_scores_of_hand_made_maps() -> None:
    tokens = list("abcde")
    eye = np.eye(5)[None]  # (1, 5, 5): every query on itself
    s = head_scores(eye, tokens, tokens, "encoder")
    assert s["same"][0] == 1 and s["previous"][0] == 0 and s["entropy"][0] == 0
    assert s["first"][0] == pytest.approx(0.2) and s["last"][0] == pytest.approx(0.2)
    uniform = np.full((1, 4, 8), 1 / 8)
    assert head_scores(uniform, list("abcd"), list("abcdefgh"), "cross")["entropy"][0] == pytest.approx(math.log(8))
    shifted = np.zeros((1, 5, 5))
    shifted[0, 0, 0] = 1
    shifted[0, np.arange(1, 5), np.arange(0, 4)] = 1  # query i on key i - 1
    s = head_scores(shifted, tokens, tokens, "decoder")
    assert s["previous"][0] == 1 and s["same"][0] == pytest.approx(0.2)
    assert math.isnan(head_scores(eye, tokens, tokens, "encoder")["induction"][0])  # decoders only


def test_induction_is_the_weight_after_an_earlier_copy() -> None:
    tokens = ["a", "b", "c", "a", "x"]  # the second "a" (query 3) should look at "b" (key 1)
    w = np.zeros((2, 5, 5))
    w[:, np.arange(5), 0] = 1  # both heads on the first token …
    w[0, 3] = 0
    w[0, 3, 1] = 1  # … but head 0 does induction at query 3
    s = head_scores(w, tokens, tokens, "decoder")
    assert s["induction"][0] == 1 and s["induction"][1] == 0


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory):
    # the same folder as the other debugging tools' tests: the tiny model is trained once per session
    return open_model(debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models"))


def test_summaries_of_a_real_model_over_sentences(model) -> None:
    pairs = debug_helpers.pairs(12)
    seen: list[int] = []
    summary = summarize_heads(model, pairs, progress=lambda done, total: seen.append(done))
    assert seen == list(range(1, 13)) and summary.sentences == 12 and summary.skipped == []
    info = model.describe()
    for kind in info.kinds:
        for name in SCORES:
            assert summary.scores[kind][name].shape == (info.layers[kind], info.heads[kind])
        entropy = summary.scores[kind]["entropy"]
        assert np.all(entropy >= 0) and np.all(entropy <= math.log(12))
    # the mean over sentences equals averaging head_scores by hand
    by_hand = []
    for src, tgt in pairs:
        result = model.attention(src, tgt)
        by_hand.append(head_scores(result.maps["cross"][1], result.query_tokens["cross"], result.key_tokens["cross"],
                                   "cross")["same"])
    np.testing.assert_allclose(summary.scores["cross"]["same"][1], np.mean(by_hand, axis=0), rtol=1e-9)
    assert len(summary.rows()) == sum(info.layers[k] * info.heads[k] for k in info.kinds)


def test_alignment_with_a_task_and_bad_sets(model) -> None:
    summary = summarize_heads(model, [("a b c", "a b c")], task="copy")  # not real tokens of this model: <unk>
    assert np.all(np.isfinite(summary.scores["cross"]["alignment"]))
    assert np.all(np.isnan(summary.scores["encoder"]["alignment"]))
    with pytest.raises(ModelError, match="empty"):
        summarize_heads(model, [])
    with pytest.raises(ModelError, match="refused every sentence"):
        summarize_heads(model, [("", "")])


@pytest.mark.parametrize("offset", [-8, -2, -1, 0, 1, 2, 3, 8])
def test_the_dominant_offset_of_a_shifted_head(offset: int) -> None:
    n = 12
    w = np.full((2, n, n), 0.0)
    for i in range(n):
        j = i + offset
        if 0 <= j < n:
            w[0, i, j] = 0.7
            w[0, i, 0] += 0.3
        else:
            w[0, i, 0] = 1.0
    w[1] = 1 / n  # uniform: every offset alike, the nearest to -8 of the ties wins, with weight 1/n
    tokens = ["[CLS]", *"abcdefghij", "[SEP]"]
    s = head_scores(w, tokens, tokens, "encoder", special=frozenset({"[CLS]", "[SEP]"}))
    valid = [i for i in range(n) if 0 <= i + offset < n]
    assert s["offset"][0] == offset
    assert s["offset_share"][0] == pytest.approx(np.mean([w[0, i, i + offset] for i in valid]))
    assert s["offset_share"][1] == pytest.approx(1 / n)
    # the first token (a sink) and the special tokens [CLS] + [SEP]
    expected_first = w[0, :, 0].mean()
    assert s["first"][0] == pytest.approx(expected_first)
    assert s["special"][0] == pytest.approx(w[0][:, [0, n - 1]].sum(axis=1).mean())
    assert s["special"][1] == pytest.approx(2 / n)


def test_offsets_over_a_set_take_the_mean_profile() -> None:
    from explorer.core.debug.head_summaries import OFFSETS, dominant_offset, offset_profile

    a, b = np.zeros((1, 6, 6)), np.zeros((1, 6, 6))
    a[0, np.arange(6), np.maximum(np.arange(6) - 2, 0)] = 1  # two back (clamped at the start)
    b[0, np.arange(6), np.arange(6)] = 1
    mean = (offset_profile(a) + offset_profile(b)) / 2
    offset, weight = dominant_offset(mean)
    assert list(OFFSETS) == list(range(-8, 9))
    assert dominant_offset(offset_profile(a))[0][0] == -2
    assert offset[0] == 0 and weight[0] == pytest.approx((1 + 1 / 6) / 2)  # a's query 0 sits on the diagonal
    assert mean[0, list(OFFSETS).index(-2)] == pytest.approx(0.5)


def test_summaries_of_a_hugging_face_model_read_its_special_tokens(tmp_path_factory: pytest.TempPathFactory) -> None:
    import hf_tiny

    hf_tiny.require_hf_extra(module_level=False)
    bert = open_model(hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny"))
    summary = summarize_heads(bert, [("the cat sat on the mat .", ""), ("a dog ran in the park .", "")])
    result = bert.attention("the cat sat on the mat .")
    first = [head_scores(m, result.source_tokens, result.source_tokens, "encoder",
                         special=frozenset({"[CLS]", "[SEP]"})) for m in result.maps["encoder"]]
    assert summary.unknown.unknown == 0 and summary.unknown.total == 18
    assert np.all(summary.scores["encoder"]["special"] >= summary.scores["encoder"]["first"] - 1e-12)  # [CLS] first
    assert np.all(np.isin(summary.scores["encoder"]["offset"], np.arange(-8, 9)))
    assert summary.profiles["encoder"].shape == (2, 4, 17)
    assert first[0]["special"].shape == (4,)
    rows = summary.rows()
    assert all(isinstance(r["offset"], int) for r in rows)
