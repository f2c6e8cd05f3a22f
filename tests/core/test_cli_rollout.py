"""``attention-explorer-cli rollout``: the ``.npz`` holds the rollout (or flow) of the ``attention`` command's maps,
for our model and a Hugging Face decoder-only one; bad input is one ``error:`` line with exit code 2."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.debug import rollout as ro

sys.path.insert(0, str(Path(__file__).parent))
import cli_helpers  # noqa: E402
import debug_helpers  # noqa: E402
import hf_tiny  # noqa: E402

TEXT = ["--source", "i lost .", "--target", "j'ai perdu ."]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    return debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models")


_run = cli_helpers.run_cli


def _maps(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_rollout_and_flow_of_the_attention_commands_maps(checkpoint: Path, capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    model = ["--model", str(checkpoint), *TEXT]
    assert _run(capsys, "attention", *model, "--out", str(tmp_path / "maps.npz"))[0] == 0
    maps = _maps(tmp_path / "maps.npz")
    code, out, err = _run(capsys, "rollout", *model, "--out", str(tmp_path / "r.npz"), "--json")
    assert code == 0 and err == ""
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["kind"] == "encoder" and summary["method"] == "rollout" and summary["layers"] == 2
    saved = _maps(tmp_path / "r.npz")
    expected = ro.rollout([maps["encoder.0"], maps["encoder.1"]], 0.5)
    np.testing.assert_allclose(saved["rollout"], expected, atol=1e-6)
    assert list(saved["source_tokens"]) == list(maps["source_tokens"]) and "flow" not in saved

    code, out, _ = _run(capsys, "rollout", *model, "--kind", "decoder", "--residual", "1", "--method", "flow",
                        "--out", str(tmp_path / "f.npz"))
    assert code == 0 and "flow: 2 layers, r = 1" in out
    saved = _maps(tmp_path / "f.npz")
    decoder = [maps["decoder.0"], maps["decoder.1"]]
    np.testing.assert_allclose(saved["flow"], ro.flow(decoder, 1.0).normalised, atol=1e-5)
    assert list(saved["target_tokens"]) == list(maps["decoder_input_tokens"])
    assert np.all(np.triu(saved["flow"], k=1) == 0)  # a causal decoder's output never draws on later inputs


def test_bad_input(checkpoint: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    model = ["rollout", "--model", str(checkpoint), *TEXT]

    def refused(match: str, *argv: str) -> None:
        code, out, err = _run(capsys, *model, *argv)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
        assert err.startswith("error: ") and match in err, err

    refused("between 0 and 1", "--residual", "1.5", "--out", str(tmp_path / "x.npz"))
    refused("invalid choice", "--kind", "cross", "--out", str(tmp_path / "x.npz"))
    refused("must end in .npz", "--out", str(tmp_path / "x.txt"))
    refused("would take about", "--method", "flow", "--flow-limit", "0.000001", "--out", str(tmp_path / "x.npz"))
    assert not (tmp_path / "x.npz").exists()


def test_a_decoder_only_hugging_face_model(tmp_path_factory: pytest.TempPathFactory,
                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    hf_tiny.require_hf_extra(module_level=False)
    folder = hf_tiny.folder("gpt2", tmp_path_factory.getbasetemp() / "hf_tiny")
    code, out, err = _run(capsys, "rollout", "--model", str(folder), "--source", hf_tiny.SOURCE,
                          "--out", str(tmp_path / "g.npz"), "--json")
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["kind"] == "decoder"
    saved = _maps(tmp_path / "g.npz")
    assert saved["rollout"].shape == (len(saved["target_tokens"]),) * 2
    np.testing.assert_allclose(saved["rollout"].sum(axis=-1), 1.0, atol=1e-5)
