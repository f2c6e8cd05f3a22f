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
