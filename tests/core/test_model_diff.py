"""Model diff: two checkpoints of one run on the same sentence give B − A maps equal to their own
``attention()`` maps' difference, their greedy translations and book BLEU; a model against itself is all
zeros; different shapes or vocabularies are refused with a clear message; the ``.npz`` round trip."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.training.checkpoint import save_model
from explorer.core.inspect.interface import InspectableModel, ModelError
from explorer.core.inspect.opening import open_model
from explorer.core.model.metrics import bleu
from explorer.core.debug.model_diff import check_comparable, diff_models, save_diff_npz
from explorer.core.data.text import Vocab
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

sys.path.insert(0, str(Path(__file__).parent))
import debug_helpers  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> tuple[InspectableModel, InspectableModel]:
    torch.set_num_threads(1)
    root = tmp_path_factory.getbasetemp() / "debug_models"
    return (open_model(debug_helpers.trained_checkpoint(root, epochs=8)),
            open_model(debug_helpers.trained_checkpoint(root, epochs=60)))


def test_two_checkpoints_side_by_side(models: tuple[InspectableModel, InspectableModel]) -> None:
    a, b = models
    result = diff_models(a, b, "i lost .", "j'ai perdu .")
    ra, rb = a.attention("i lost .", "j'ai perdu ."), b.attention("i lost .", "j'ai perdu .")
    assert result.diff.keys() == {"encoder", "decoder", "cross"} and result.target == "j'ai perdu ."
    for kind in ra.kinds:
        for layer in range(2):
            np.testing.assert_allclose(result.diff[kind][layer], rb.maps[kind][layer] - ra.maps[kind][layer], atol=1e-7)
            assert result.diff[kind][layer].shape == ra.maps[kind][layer].shape
    assert result.translation_a == a.generate("i lost .").text and result.translation_b == b.generate("i lost .").text
    assert result.bleu_b == pytest.approx(bleu(result.translation_b, "j'ai perdu .", 2))
    assert result.bleu_a == pytest.approx(bleu(result.translation_a, "j'ai perdu .", 2))
    assert len(result.changes) == 12 and result.changes[0].max_abs >= result.changes[-1].max_abs > 0
    summary = result.to_dict()
    assert summary["heads"][0].keys() == {"kind", "layer", "head", "max_abs", "mean_abs"}


def test_without_a_target_both_read_model_as_translation(models: tuple[InspectableModel, InspectableModel]) -> None:
    a, b = models
    result = diff_models(a, b, "he's calm .")
    assert result.target == result.translation_a and result.bleu_a is None is result.bleu_b
    same = diff_models(b, b, "he's calm .", reference="il est calme .")
    assert all(float(np.abs(d).max()) == 0.0 for layers in same.diff.values() for d in layers)
    assert same.bleu_a == same.bleu_b and same.target == "il est calme ."


def test_different_models_are_refused(models: tuple[InspectableModel, InspectableModel],
                                      tmp_path: Path) -> None:
    a, _ = models
    src, tgt = a.loaded.src_vocab, a.loaded.tgt_vocab  # type: ignore[attr-defined]
    wide = TransformerConfig(num_hiddens=16, num_layers=2, num_heads=4, ffn_num_hiddens=16, dropout=0.0)
    other_shape = open_model(save_model(tmp_path / "wide.safetensors", Seq2SeqTransformer(wide, len(src), len(tgt)),
                                        TrainingConfig(model=wide), src, tgt))
    with pytest.raises(ModelError, match="differ in shape: A has 2 encoder layers × 2 heads, B has 2 × 4"):
        diff_models(a, other_shape, "go .")
    same = TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=32, dropout=0.0)
    words = Vocab("go i lost .".split())
    other_vocab = open_model(save_model(tmp_path / "vocab.safetensors",
                                        Seq2SeqTransformer(same, len(words), len(tgt)), TrainingConfig(model=same),
                                        words, tgt))
    with pytest.raises(ModelError, match="different vocabularies"):
        check_comparable(a, other_vocab)


def test_npz_round_trip(models: tuple[InspectableModel, InspectableModel], tmp_path: Path) -> None:
    result = diff_models(*models, "go .", "va !")
    saved = save_diff_npz(result, tmp_path / "diff.npz")
    with np.load(saved) as z:
        assert z["source_tokens"].tolist() == ["go", ".", "<eos>"] and z["translations"].shape == (2,)
        np.testing.assert_array_equal(z["diff.cross.1"], result.diff["cross"][1])
        np.testing.assert_allclose(z["b.encoder.0"] - z["a.encoder.0"], z["diff.encoder.0"], atol=1e-7)
    with pytest.raises(ModelError, match="existing folder"):
        save_diff_npz(result, tmp_path / "missing" / "diff.npz")
