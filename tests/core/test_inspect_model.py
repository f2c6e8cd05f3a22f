"""One interface for inspectable models: pooling, our own checkpoints behind it, the ``.npz``
writer, opening paths, and the optional extra (core never imports transformers at import time)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.training.checkpoint_read import CheckpointError

from explorer.core.training.checkpoint import save_model
from explorer.core.inspect.checkpoint_model import CheckpointModel
from explorer.core.model.decoding import translate
from explorer.core.inspect.interface import AttentionResult, ModelError, pool_edges, pooled_maps, save_npz
from explorer.core.inspect.opening import open_model
from explorer.core.training.probe import probe_attention
from explorer.core.data.text import Vocab
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

SRC_WORDS = "go i lost he's calm i'm home .".split()
TGT_WORDS = "va ! j'ai perdu il est calme je suis chez moi .".split()


# ----------------------------------------------------------------------------------------- pooling
def _brute_pool(m: np.ndarray, q_edges: np.ndarray, k_edges: np.ndarray) -> np.ndarray:
    out = np.zeros((len(q_edges) - 1, len(k_edges) - 1))
    for i in range(len(q_edges) - 1):
        for j in range(len(k_edges) - 1):
            block = m[q_edges[i]:q_edges[i + 1], k_edges[j]:k_edges[j + 1]]
            out[i, j] = block.sum(axis=1).mean()  # the mass each query gives the key bin, averaged over queries
    return out


@pytest.mark.parametrize("q, k, size", [(10, 7, 3), (64, 64, 8), (5, 9, 16), (1, 1, 4)])
def test_pooled_maps_keep_rows_distributions(q: int, k: int, size: int) -> None:
    rng = np.random.default_rng(q * k)
    maps = rng.random((2, 3, q, k)).astype(np.float32)
    maps /= maps.sum(-1, keepdims=True)  # rows of an attention map sum to 1
    pooled, q_edges, k_edges = pooled_maps(maps, size)
    assert pooled.dtype == np.float32 and pooled.shape == (2, 3, min(q, size), min(k, size))
    assert q_edges[0] == 0 and q_edges[-1] == q and np.all(np.diff(q_edges) >= 1)
    np.testing.assert_allclose(pooled.sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(pooled[1, 2], _brute_pool(maps[1, 2], q_edges, k_edges), atol=1e-5)


def test_pool_edges_are_as_even_as_whole_tokens_allow() -> None:
    assert pool_edges(4096, 256).tolist() == list(range(0, 4097, 16))
    assert np.ptp(np.diff(pool_edges(1000, 256))) <= 1
    assert pool_edges(3, 256).tolist() == [0, 1, 2, 3]
    with pytest.raises(ModelError, match="at least 1"):
        pooled_maps(np.ones((2, 2)), 0)


# ----------------------------------------------------------------------------------------- our checkpoints
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny untrained model of ours, saved as the app saves models."""
    torch.manual_seed(0)
    config = TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=16, dropout=0.0)
    src_vocab, tgt_vocab = Vocab(SRC_WORDS), Vocab(TGT_WORDS)
    model = Seq2SeqTransformer(config, len(src_vocab), len(tgt_vocab))
    train = TrainingConfig(model=config, num_steps=6)
    return save_model(tmp_path_factory.mktemp("ours") / "tiny.safetensors", model, train, src_vocab, tgt_vocab)


@pytest.fixture(scope="module")
def ours(checkpoint: Path) -> CheckpointModel:
    model = open_model(checkpoint)
    assert isinstance(model, CheckpointModel)
    return model


def test_describe_our_model(ours: CheckpointModel) -> None:
    info = ours.describe()
    assert (info.origin, info.family, info.kinds) == ("checkpoint", "encoder-decoder", ("encoder", "decoder", "cross"))
    assert info.layers == {"encoder": 2, "decoder": 2, "cross": 2} and info.heads == {k: 2 for k in info.kinds}
    assert info.hidden_size == 16 and info.vocab_size == len(Vocab(SRC_WORDS))
    assert info.target_vocab_size == len(Vocab(TGT_WORDS)) and info.max_positions == 1000
    assert info.parameters == sum(p.numel() for p in ours.loaded.model.parameters())


def test_attention_with_a_target_is_the_probe(ours: CheckpointModel) -> None:
    loaded = ours.loaded
    result = ours.attention("i lost .", "j'ai perdu .")
    snap = probe_attention(loaded.model, loaded.src_vocab, loaded.tgt_vocab, "i lost .", "j'ai perdu .", 6)
    assert result.source_tokens == snap.src_tokens == ["i", "lost", ".", "<eos>"]
    assert result.target_tokens == snap.tgt_tokens and result.decoder_input_tokens == snap.tgt_input_tokens
    for kind in ("encoder", "decoder", "cross"):
        np.testing.assert_array_equal(result.stacked(kind), snap.maps[kind])
        np.testing.assert_allclose(result.stacked(kind).sum(-1), 1.0, atol=1e-5)
    assert set(result.snapshot_maps()) == {"encoder", "decoder", "cross"}


def test_long_sentences_are_not_cut_to_the_training_steps(ours: CheckpointModel) -> None:
    result = ours.attention("go " * 12, "va " * 9)
    assert len(result.source_tokens) == 13 and len(result.target_tokens) == 10


def test_without_a_target_the_greedy_translation_is_read(ours: CheckpointModel) -> None:
    loaded = ours.loaded
    greedy = translate(loaded.model, loaded.src_vocab, loaded.tgt_vocab, "he's calm .", 6)
    result = ours.attention("he's calm .")
    assert result.target_tokens == greedy.row_labels
    # teacher-forcing the output reproduces the cross-attention of every decoding step
    np.testing.assert_allclose(result.stacked("cross"), greedy.cross_attention, atol=1e-5)


def test_generate_greedy_and_beam(ours: CheckpointModel) -> None:
    loaded = ours.loaded
    for method, width in (("greedy", 1), ("beam", 3)):
        out = ours.generate("i'm home .", method=method, beam_width=width)
        ref = translate(loaded.model, loaded.src_vocab, loaded.tgt_vocab, "i'm home .", 6, method=method,
                        beam_width=width)
        assert (out.tokens, out.text, out.finished) == (ref.row_labels, ref.text, ref.finished)
        np.testing.assert_allclose(out.attention.stacked("cross"), ref.cross_attention, atol=1e-5)
    assert len(ours.generate("go .", max_new_tokens=2).tokens) <= 2
    with pytest.raises(ModelError, match="beam width"):
        ours.generate("go .", method="beam", beam_width=0)


def test_pooled_and_single_head_defaults(ours: CheckpointModel) -> None:
    full = ours.attention("i lost .", "j'ai perdu .")
    pooled = ours.pooled_attention("i lost .", "j'ai perdu .", size=2)
    assert pooled.maps["cross"].shape == (2, 2, 2, 2) and pooled.nbytes() == 3 * 2 * 2 * 2 * 2 * 4
    head = ours.head_attention("i lost .", "j'ai perdu .", "cross", 1, 0)
    np.testing.assert_array_equal(head, full.maps["cross"][1][0])
    with pytest.raises(ModelError, match="head 5"):
        ours.head_attention("i lost .", "j'ai perdu .", "cross", 1, 5)


# ----------------------------------------------------------------------------------------- npz and paths
def test_npz_holds_tokens_and_one_array_per_kind_and_layer(ours: CheckpointModel, tmp_path: Path) -> None:
    result = ours.attention("i lost .", "j'ai perdu .")
    path = save_npz(result, tmp_path / "maps.npz")
    with np.load(path) as z:  # allow_pickle stays False: every array is plain
        names = set(z.files)
        assert names == {"source_tokens", "target_tokens", "decoder_input_tokens",
                         *(f"{k}.{i}" for k in ("encoder", "decoder", "cross") for i in range(2))}
        assert z["source_tokens"].tolist() == result.source_tokens and z["source_tokens"].dtype.kind == "U"
        assert z["cross.1"].dtype == np.float32 and z["cross.1"].shape == (2, 4, 4)
        np.testing.assert_array_equal(z["decoder.0"], result.maps["decoder"][0])
    assert [p.name for p in tmp_path.iterdir()] == ["maps.npz"]  # no temp file left
    with pytest.raises(ModelError, match="does not exist"):
        save_npz(result, tmp_path / "nowhere" / "maps.npz")


def test_empty_token_lists_round_trip(tmp_path: Path) -> None:
    result = AttentionResult(["a"], [], {"encoder": [np.ones((1, 1, 1), np.float32)]}, {}, {})
    with np.load(save_npz(result, tmp_path / "m.npz")) as z:
        assert z["target_tokens"].shape == (0,) and z["encoder.0"].shape == (1, 1, 1)


def test_open_model_says_what_a_path_is_not(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such file or folder"):
        open_model(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(ModelError, match="config.json"):
        open_model(tmp_path / "plain")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(CheckpointError):
        open_model(tmp_path / "notes.txt")


def test_a_run_directory_opens_its_last_checkpoint(checkpoint: Path, tmp_path: Path) -> None:
    from explorer.core.runs.run_dir import RUN_JSON, checkpoint_path

    run = tmp_path / "run"
    run.mkdir()
    (run / RUN_JSON).write_text("{}")
    with pytest.raises(CheckpointError, match="no checkpoint yet"):
        open_model(run)
    last = checkpoint_path(run)
    last.parent.mkdir(parents=True)
    last.write_bytes(checkpoint.read_bytes())
    model = open_model(run)
    assert isinstance(model, CheckpointModel) and model.describe().layers["encoder"] == 2


BLOCKED = r"""
import sys
sys.modules["transformers"] = None  # as if the [hf] extra were not installed
import importlib, pkgutil
import explorer.core as core
for mod in pkgutil.iter_modules(core.__path__):
    importlib.import_module(f"explorer.core.{mod.name}")
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.opening import open_model
try:
    open_model(sys.argv[1])
except ModelError as exc:
    print(type(exc).__name__, exc)
"""


def test_without_the_extra_opening_says_how_to_install_it(tmp_path: Path) -> None:
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (folder / "model.safetensors").write_bytes(b"")
    (folder / "vocab.txt").write_text("[PAD]\n")
    out = subprocess.run([sys.executable, "-c", BLOCKED, str(folder)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MissingExtraError ")
    assert "pip install 'attention-explorer[hf]'" in out.stdout


def test_core_does_not_import_transformers_at_import_time() -> None:
    code = ("import importlib, pkgutil, sys\nimport explorer.core as core\n"
            "for m in pkgutil.iter_modules(core.__path__): importlib.import_module(f'explorer.core.{m.name}')\n"
            "import explorer.cli.parser\nexplorer.cli.parser.build_parser()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('transformers', 'tokenizers', "
            "'sentencepiece')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
