"""``attention-explorer-cli attention``: the ``.npz`` format for our checkpoints and Hugging Face folders, the
``--json`` summary, one-line errors with exit code 2 (also ``translate`` and ``inspect`` given a Hugging Face
folder); the README's test command is CI's."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.cli.main import main as cli_main
from explorer.core.training.checkpoint import save_model
from explorer.core.data.text import Vocab
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

sys.path.insert(0, str(Path(__file__).parent))
ROOT = Path(__file__).resolve().parents[2]


def _hf_folder(family: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import hf_tiny

    hf_tiny.require_hf_extra(module_level=False)
    return hf_tiny.folder(family, tmp_path_factory.getbasetemp() / "hf_tiny")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    config = TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=16, dropout=0.0)
    src, tgt = Vocab("go i lost .".split()), Vocab("va ! j'ai perdu .".split())
    model = Seq2SeqTransformer(config, len(src), len(tgt))
    return save_model(tmp_path_factory.mktemp("cli_att") / "m.safetensors", model, TrainingConfig(model=config),
                      src, tgt)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(["attention", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _check_npz(path: Path, kinds: dict[str, int], heads: int) -> dict[str, np.ndarray]:
    with np.load(path) as z:  # allow_pickle=False: token arrays are plain unicode
        arrays = {k: z[k] for k in z.files}
    for kind, layers in kinds.items():
        for layer in range(layers):
            m = arrays[f"{kind}.{layer}"]
            assert m.dtype == np.float32 and m.ndim == 3 and m.shape[0] == heads
            np.testing.assert_allclose(m.sum(-1), 1.0, atol=1e-5)  # each row: a distribution over its keys
        assert f"{kind}.{layers}" not in arrays
    src, tgt = arrays["source_tokens"], arrays["target_tokens"]
    assert src.dtype.kind == "U" and tgt.dtype.kind == "U"
    if "encoder" in kinds:
        assert arrays["encoder.0"].shape[1:] == (len(src), len(src))
    if "cross" in kinds:
        assert arrays["cross.0"].shape[1:] == (len(tgt), len(src))
    return arrays


def test_our_checkpoint_with_a_target(checkpoint: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "maps.npz"
    code, out, err = _run(capsys, "--model", str(checkpoint), "--source", "i lost .", "--target", "j'ai perdu .",
                          "--out", str(out_file), "--json")
    assert code == 0 and err == ""
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["architecture"] == "Seq2SeqTransformer" and summary["layers"]["encoder"] == 2
    assert summary["heads"] == {"encoder": 2, "decoder": 2, "cross": 2}
    assert (summary["source_tokens"], summary["target_tokens"]) == (4, 4)
    arrays = _check_npz(out_file, {"encoder": 2, "decoder": 2, "cross": 2}, heads=2)
    assert arrays["source_tokens"].tolist() == ["i", "lost", ".", "<eos>"]
    assert arrays["target_tokens"].tolist() == ["j'ai", "perdu", ".", "<eos>"]
    assert np.all(np.triu(arrays["decoder.1"], k=1) == 0)  # the decoder sees no later target token


def test_our_checkpoint_without_a_target_reads_its_greedy_output(
        checkpoint: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--model", str(checkpoint), "--source", "go .", "--out", str(tmp_path / "g.npz"))
    assert code == 0 and "greedy output" in out and "saved:" in out
    _check_npz(tmp_path / "g.npz", {"encoder": 2, "decoder": 2, "cross": 2}, heads=2)


def test_a_hugging_face_encoder_decoder(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = _hf_folder("marian", tmp_path_factory)
    code, out, err = _run(capsys, "--model", str(folder), "--source", "the cat sat .", "--out",
                          str(tmp_path / "m.npz"), "--json")
    assert code == 0 and err == ""
    summary = json.loads(out.strip().splitlines()[-1])
    assert (summary["architecture"], summary["family"], summary["target_given"]) == (
        "MarianMTModel", "encoder-decoder", False)
    arrays = _check_npz(tmp_path / "m.npz", {"encoder": 2, "decoder": 2, "cross": 2}, heads=4)
    assert arrays["source_tokens"][-1] == "</s>" and summary["target_tokens"] == len(arrays["target_tokens"])


def test_a_hugging_face_decoder_only(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = _hf_folder("gpt2", tmp_path_factory)
    code, out, _ = _run(capsys, "--model", str(folder), "--source", "the cat", "--target", " sat",
                        "--out", str(tmp_path / "g.npz"), "--json")
    assert code == 0
    arrays = _check_npz(tmp_path / "g.npz", {"decoder": 2}, heads=4)
    both = len(arrays["source_tokens"]) + len(arrays["target_tokens"])
    assert arrays["decoder.0"].shape == (4, both, both)
    assert json.loads(out.strip().splitlines()[-1])["kinds"] == ["decoder"]


@pytest.mark.parametrize("argv, message", [
    (["--model", "{missing}", "--source", "go ."], "no such file or folder"),
    (["--model", "{ckpt}", "--source", "go .", "--target", ""], "empty sentence"),
    (["--model", "{ckpt}", "--source", "go ."], "must end in .npz"),
    (["--model", "{plain}", "--source", "go ."], "not a model folder"),
])
def test_bad_input_is_one_error_line_and_exit_2(argv: list[str], message: str, checkpoint: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").mkdir()
    out_name = "maps.txt" if message.startswith("must end") else "maps.npz"
    values = {"missing": str(tmp_path / "missing"), "ckpt": str(checkpoint), "plain": str(tmp_path / "plain")}
    code, out, err = _run(capsys, *[a.format(**values) for a in argv], "--out", str(tmp_path / out_name))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err
    assert not (tmp_path / out_name).exists()


def test_an_encoder_only_model_refuses_a_target(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = _hf_folder("bert", tmp_path_factory)
    code, _, err = _run(capsys, "--model", str(folder), "--source", "the cat", "--target", "x",
                        "--out", str(tmp_path / "b.npz"))
    assert code == 2 and err.startswith("error: BertModel is an encoder-only model")


@pytest.mark.parametrize("command", [["translate", "--model", "{folder}", "the cat ."],
                                     ["inspect", "--model", "{folder}"]])
def test_our_own_transformer_commands_refuse_a_hugging_face_model(command: list[str],
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = _hf_folder("marian", tmp_path_factory)
    code = cli_main([a.format(folder=folder) for a in command])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {command[0]} works with an Attention Explorer model") and "MarianMTModel" in err


def test_the_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = "python3 -m pip install -q -e '.[test,hf]' && python3 -m pytest -q"
    assert command in readme.splitlines() and command in ci.splitlines()
