"""``attention-explorer-cli ablate / explain / diff``: the JSON last lines, ``explain``'s weight equal
to the ``attention`` command's ``.npz`` cell, and one ``error:`` line with exit code 2 on bad input."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch


sys.path.insert(0, str(Path(__file__).parent))
import cli_helpers  # noqa: E402
import debug_helpers  # noqa: E402

ROW_KEYS = {"kind", "layer", "head", "bleu", "delta_bleu", "loss", "delta_loss"}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    return debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models")


_run = cli_helpers.run_cli


def _error(code: int, out: str, err: str, match: str) -> None:
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    assert err.startswith("error: ") and match in err, err


def test_ablate_json(checkpoint: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "ablate", "--model", str(checkpoint), "--data", "builtin", "--num-examples", "24",
                          "--json")
    assert code == 0 and err == ""
    data = json.loads(out.strip().splitlines()[-1])
    assert data["baseline_bleu"] > 0.5 and data["pairs"] == 24
    assert [(h["kind"], h["layer"], h["head"]) for h in data["heads"]] == \
        [(k, layer, h) for k in ("encoder", "decoder", "cross") for layer in range(2) for h in range(2)]
    assert all(set(h) == ROW_KEYS for h in data["heads"])
    assert all(h["delta_bleu"] == pytest.approx(h["bleu"] - data["baseline_bleu"]) for h in data["heads"])
    code, out, _ = _run(capsys, "ablate", "--model", str(checkpoint), "--num-examples", "5", "--kinds", "cross",
                        "--off", "encoder:0:1")
    assert code == 0 and "baseline:" in out and "off throughout: encoder:0:1" in out and "4 heads in" in out


def test_ablate_bad_input(checkpoint: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    model = ["ablate", "--model", str(checkpoint)]
    _error(*_run(capsys, *model, "--off", "cross:2:0"), "layer 2 does not exist")
    _error(*_run(capsys, *model, "--off", "cross:0:7"), "head 7 does not exist")
    _error(*_run(capsys, *model, "--off", "cross"), "KIND:LAYER:HEAD")
    _error(*_run(capsys, *model, "--kinds", "self"), "--kinds: self is not a kind")
    _error(*_run(capsys, *model, "--num-examples", "0"), "positive whole number")
    empty = tmp_path / "empty.tsv"
    empty.write_text("", encoding="utf-8")
    _error(*_run(capsys, *model, "--data", str(empty)), "is empty")
    _error(*_run(capsys, *model, "--data", "task:nope"), "unknown task")
    _error(*_run(capsys, "ablate", "--model", str(tmp_path / "none.safetensors")), "no such file")


def test_explain_equals_the_attention_commands_map(checkpoint: Path, capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    text = ["--model", str(checkpoint), "--source", "i lost .", "--target", "j'ai perdu ."]
    code, _, _ = _run(capsys, "attention", *text, "--out", str(tmp_path / "maps.npz"))
    assert code == 0
    with np.load(tmp_path / "maps.npz") as z:
        maps = {k: z[k] for k in z.files}
    for kind, layer, head, query, key in (("cross", 1, 0, 2, 1), ("encoder", 0, 1, 3, 0), ("decoder", 1, 1, 3, 2)):
        code, out, err = _run(capsys, "explain", *text, "--kind", kind, "--layer", str(layer), "--head", str(head),
                              "--query", str(query), "--key", str(key), "--json")
        assert code == 0 and err == ""
        data = json.loads(out.strip().splitlines()[-1])
        assert len(data["q"]) == len(data["k"]) == 8
        assert data["score"] == pytest.approx(float(np.dot(data["q"], data["k"])), rel=1e-5, abs=1e-5)
        # both float32 (scores of ~30 after training): compare to float32 precision, not to 1e-6 absolute
        assert data["scaled"] == pytest.approx(data["score"] / np.sqrt(8), rel=1e-6, abs=1e-6)
        assert data["weight"] == pytest.approx(float(maps[f"{kind}.{layer}"][head, query, key]), abs=1e-6)
    code, out, _ = _run(capsys, "explain", *text, "--kind", "decoder", "--layer", "0", "--head", "0", "--query", "0",
                        "--key", "2")
    assert code == 0 and "masked" in out and "weight:     0.000000" in out and "max-subtracted" in out


def test_explain_bad_input(checkpoint: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["explain", "--model", str(checkpoint), "--source", "go .", "--target", "va !", "--kind", "cross"]
    cell = {"--layer": "0", "--head": "0", "--query": "0", "--key": "0"}

    def run(**change: str) -> tuple[int, str, str]:
        args = {**cell, **{f"--{k}": v for k, v in change.items()}}
        return _run(capsys, *base, *[x for kv in args.items() for x in kv])

    _error(*run(layer="2"), "layer 2 does not exist")
    _error(*run(head="3"), "head 3 does not exist")
    _error(*run(query="5"), "query 5 does not exist: the map has 3 rows")
    _error(*run(key="-1"), "not a whole number ≥ 0")
    _error(*_run(capsys, "explain", "--model", str(checkpoint), "--source", "", "--kind", "encoder",
                 *[x for kv in cell.items() for x in kv]), "empty")
    _error(*_run(capsys, *base[:-2], "--kind", "self", *[x for kv in cell.items() for x in kv]), "invalid choice")


def test_diff(tmp_path_factory: pytest.TempPathFactory, checkpoint: Path, capsys: pytest.CaptureFixture[str],
              tmp_path: Path) -> None:
    early = debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models", epochs=8)
    code, out, err = _run(capsys, "diff", "--model", str(early), "--model-b", str(checkpoint), "--source", "go .",
                          "--target", "va !", "--out", str(tmp_path / "d.npz"), "--json")
    assert code == 0 and err == ""
    data = json.loads(out.strip().splitlines()[-1])
    assert data["target"] == "va !" and data["bleu_b"] is not None and len(data["heads"]) == 12
    with np.load(tmp_path / "d.npz") as z:
        assert {"diff.encoder.0", "a.cross.1", "b.decoder.1", "source_tokens"} <= set(z.files)
    _error(*_run(capsys, "diff", "--model", str(early), "--model-b", str(checkpoint), "--source", "go .",
                 "--out", str(tmp_path / "d.txt")), "must end in .npz")
