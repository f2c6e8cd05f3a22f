"""Explain-a-cell: the recomputed weight equals the map's value from ``attention()`` for every kind
and layer of our model and of tiny BERT and GPT-2 folders; each step follows from the one before (q·k is the
sum of q ⊙ k, scaled by 1/√d, max-subtracted exp over the row's normaliser); masked cells; bad indices; BART's
cross-attention too."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.debug.explain_cell import CellExplanation, explain_cell
from explorer.core.inspect.interface import InspectableModel, ModelError
from explorer.core.inspect.opening import open_model

sys.path.insert(0, str(Path(__file__).parent))
import debug_helpers  # noqa: E402

SOURCE, TARGET = "i lost .", "j'ai perdu ."


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> InspectableModel:
    torch.set_num_threads(1)
    return open_model(debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models"))


def _check_steps(e: CellExplanation, head_dim: int, scale: float) -> None:
    """Every number follows from the ones before it."""
    assert e.q.shape == e.k.shape == e.product.shape == (head_dim,) and e.head_dim == head_dim
    np.testing.assert_allclose(e.product, e.q * e.k, rtol=1e-6)
    assert e.score == pytest.approx(float(e.product.sum()), rel=1e-5, abs=1e-5)
    assert e.scale == pytest.approx(scale) and e.scaled == pytest.approx(e.score * e.scale, rel=1e-6, abs=1e-6)
    if not e.masked:
        assert e.logit == pytest.approx(e.scaled + e.bias + e.mask, rel=1e-6, abs=1e-6)
        assert e.exp == pytest.approx(math.exp(e.logit - e.row_max), rel=1e-5)
    assert e.row_max == pytest.approx(float(np.max(e.row_logits)))
    assert e.normaliser == pytest.approx(float(e.row_exp.sum()), rel=1e-6)
    assert e.weight == pytest.approx(e.exp / e.normaliser, rel=1e-6, abs=1e-9)
    assert float(e.row_weights.sum()) == pytest.approx(1.0, abs=1e-6)
    assert e.weight == pytest.approx(e.map_weight, abs=1e-6)


def _cells(shape: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    h, q, k = shape
    return [(0, 0, 0), (h - 1, q - 1, k - 1), (h // 2, q // 2, k // 3), (h - 1, 0, k - 1)]


def _all_kinds(m: InspectableModel, source: str, target: str | None, scale: float) -> int:
    result = m.attention(source, target)
    checked = 0
    for kind in result.kinds:
        for layer, heat in enumerate(result.maps[kind]):
            for head, i, j in _cells(heat.shape):
                e = explain_cell(m, source, target, kind, layer, head, i, j)
                _check_steps(e, m.describe().hidden_size // heat.shape[0], scale)
                assert e.weight == pytest.approx(float(heat[head, i, j]), abs=1e-6)  # the map's own value
                assert (e.query_token, e.key_token) == (result.query_tokens[kind][i], result.key_tokens[kind][j])
                np.testing.assert_allclose(e.row_weights, heat[head, i], atol=1e-6)  # the whole row, too
                checked += 1
    return checked


def test_our_model_every_kind_and_layer(model: InspectableModel) -> None:
    assert _all_kinds(model, SOURCE, TARGET, 1 / math.sqrt(8)) == 3 * 2 * 4


def test_our_model_without_a_target_explains_the_greedy_maps(model: InspectableModel) -> None:
    result = model.attention("he's calm .")
    e = explain_cell(model, "he's calm .", None, "cross", 1, 1, 0, 2)
    assert e.weight == pytest.approx(float(result.maps["cross"][1][1, 0, 2]), abs=1e-6)


def test_masked_cells(model: InspectableModel) -> None:
    e = explain_cell(model, SOURCE, TARGET, "decoder", 0, 1, 1, 3)  # a later key of a causal decoder
    assert e.masked and e.mask == float("-inf") and e.exp == 0.0 and e.weight == 0.0 == e.map_weight
    data = e.to_dict()
    assert data["mask"] is None and data["logit"] is None and data["masked"] is True  # JSON has no -inf
    assert isinstance(data["q"], list) and "max-subtracted" in data["note"]
    kept = explain_cell(model, SOURCE, TARGET, "decoder", 0, 1, 3, 1)
    assert not kept.masked and kept.mask == 0.0 and kept.weight > 0


def test_bad_cells(model: InspectableModel) -> None:
    for args, match in ((("cross", 0, 0, 9, 0), "query 9 does not exist: the map has 4 rows"),
                        (("cross", 0, 0, 0, 4), "key 4 does not exist: the map has 4 columns"),
                        (("encoder", 2, 0, 0, 0), "layer 2 does not exist"), (("encoder", 0, 2, 0, 0), "head 2"),
                        (("encoder", 0, 0, -1, 0), "query -1")):
        with pytest.raises(ModelError, match=match):
            explain_cell(model, SOURCE, TARGET, *args)


@pytest.mark.parametrize("family, target", [("bert", None), ("gpt2", "on the mat"), ("bart", "le chat est assis .")])
def test_hf_models(family: str, target: str | None, tmp_path_factory: pytest.TempPathFactory) -> None:
    pytest.importorskip("transformers")
    import hf_tiny

    m = open_model(hf_tiny.folder(family, tmp_path_factory.getbasetemp() / "hf_tiny"))
    assert _all_kinds(m, hf_tiny.SOURCE, target, 1 / math.sqrt(8)) == len(m.describe().kinds) * 2 * 4
    if family == "gpt2":  # causal: a later key is masked by the dtype's minimum, weight exactly 0
        e = explain_cell(m, hf_tiny.SOURCE, target, "decoder", 1, 3, 1, 4)
        assert e.masked and e.weight == 0.0 == e.map_weight and e.mask < -1e30
