"""What the studio shows of one text (core.inspect.inspection): thumbnails equal the model's maps on short texts and
pool them on long ones, full maps within the budget, heads on demand beyond it, generations keep their output's
attention; the model's own budget error leads to pooled maps."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import hf_tiny  # noqa: E402

hf_tiny.require_hf_extra()

from explorer.core.inspect.hf.models import MapsTooLargeError  # noqa: E402
from explorer.core.inspect.interface import ModelError, pooled_maps  # noqa: E402
from explorer.core.inspect.opening import open_model
from explorer.core.inspect.inspection import estimated_map_bytes, full_head, generate_text, inspect_text  # noqa: E402


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "hf_tiny"


def test_full_maps_within_the_budget_and_heads_on_demand_beyond(root, one_torch_thread) -> None:
    model = open_model(hf_tiny.folder("mbart", root))
    full = model.attention(hf_tiny.SOURCE, hf_tiny.TARGET)
    shown = inspect_text(model, hf_tiny.SOURCE, hf_tiny.TARGET)
    assert shown.full and shown.names == ("encoder", "decoder", "cross")
    assert shown.shape("decoder") == (3, 4) and shown.shape("encoder") == (2, 4)  # sides of their own depth
    np.testing.assert_array_equal(shown.thumbnails["cross"], full.stacked("cross"))  # short: not pooled
    assert shown.query_tokens["cross"] == full.target_tokens and shown.key_tokens["cross"] == full.source_tokens
    assert shown.query_tokens["decoder"] == full.query_tokens["decoder"]
    estimate = estimated_map_bytes(model, hf_tiny.SOURCE, hf_tiny.TARGET)
    assert abs(estimate - full.nbytes()) <= 0.2 * full.nbytes()  # from a tokenizer count, before any pass
    pooled = inspect_text(model, hf_tiny.SOURCE, hf_tiny.TARGET, budget=0, bins=4)
    assert not pooled.full and pooled.thumbnails["cross"].shape == (3, 4, 4, 4)
    np.testing.assert_allclose(pooled.thumbnails["cross"], pooled_maps(full.stacked("cross"), 4)[0], atol=1e-6)
    np.testing.assert_allclose(full_head(model, pooled, "cross", 2, 1), full.maps["cross"][2][1], atol=1e-6)
    np.testing.assert_allclose(full_head(model, pooled, "decoder", 1, None), full.maps["decoder"][1].mean(0),
                               atol=1e-6)
    with pytest.raises(ModelError, match="stopped"):
        full_head(model, pooled, "encoder", 0, None, stop=lambda: True)


def test_the_models_own_budget_leads_to_pooled_maps(root, one_torch_thread, monkeypatch) -> None:
    model = open_model(hf_tiny.folder("gpt2", root))

    def too_large(*_args: object) -> None:
        raise MapsTooLargeError(3 * 2**30)

    monkeypatch.setattr(model, "attention", too_large)
    shown = inspect_text(model, hf_tiny.SOURCE, " le chat")
    assert not shown.full and shown.names == ("decoder",)
    monkeypatch.undo()
    expected = model.attention(hf_tiny.SOURCE, " le chat")
    np.testing.assert_allclose(shown.thumbnails["decoder"], expected.stacked("decoder"), atol=1e-6)
    assert shown.query_tokens["decoder"] == expected.query_tokens["decoder"]


def test_a_generation_keeps_its_outputs_attention(root, one_torch_thread) -> None:
    model = open_model(hf_tiny.folder("t5", root))
    shown = generate_text(model, hf_tiny.SOURCE, "greedy")
    expected = model.generate(hf_tiny.SOURCE)
    assert (shown.output, shown.method, shown.full) == (expected.text, "greedy", True)
    assert shown.query_tokens["cross"] == expected.tokens
    np.testing.assert_array_equal(shown.head_map("cross", 1, 3), expected.attention.maps["cross"][1][3])
    assert shown.nbytes() >= expected.attention.nbytes()
    with pytest.raises(ModelError, match="encoder-only"):
        generate_text(open_model(hf_tiny.folder("bert", root)), hf_tiny.SOURCE)
