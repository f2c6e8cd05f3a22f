"""Bad Hugging Face folders get a clear message; a pickle payload in a ``.bin`` never runs."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
import hf_tiny  # noqa: E402

hf_tiny.require_hf_extra()

from explorer.core.inspect.hf.folder import HFModelError  # noqa: E402
from explorer.core.inspect.interface import ModelError  # noqa: E402
from explorer.core.inspect.opening import open_model


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny")


@pytest.fixture
def copy(bert: Path, tmp_path: Path) -> Path:
    """A fresh copy of the tiny BERT folder to damage."""
    target = tmp_path / "model"
    shutil.copytree(bert, target)
    return target


def _edit_config(folder: Path, **changes: object) -> None:
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def _refused(folder: Path, match: str) -> HFModelError:
    with pytest.raises(HFModelError, match=match) as info:
        open_model(folder)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
    return info.value


def test_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="not a model folder"):  # no config.json: not taken for an HF folder
        open_model(tmp_path / "empty")
    from explorer.core.inspect.hf.models import HFModel

    with pytest.raises(HFModelError, match="empty folder"):
        HFModel.open(tmp_path / "empty")


def test_no_config(copy: Path) -> None:
    (copy / "config.json").unlink()
    with pytest.raises(ModelError, match="config.json"):
        open_model(copy)
    from explorer.core.inspect.hf.models import HFModel

    with pytest.raises(HFModelError, match="has no config.json"):
        HFModel.open(copy)


def test_unknown_architecture(copy: Path) -> None:
    _edit_config(copy, model_type="my-secret-net")
    message = str(_refused(copy, "unknown or unsupported architecture 'my-secret-net'"))
    assert "transformers" in message and "model_type" in message  # says who cannot build it, and what to check
    _edit_config(copy, model_type=None, architectures=None)  # nothing to infer it from
    _refused(copy, 'names no model_type: add a line such as "model_type": "bert"')
    (copy / "config.json").write_text("{not json")
    _refused(copy, "cannot be read as JSON")


def test_missing_tokenizer(copy: Path) -> None:
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json"):
        (copy / name).unlink(missing_ok=True)
    model = open_model(copy)  # opens: it still reads token ids
    with pytest.raises(ModelError, match="has no tokenizer") as info:
        model.attention(hf_tiny.SOURCE)
    assert "--token-ids" in str(info.value) and "\n" not in str(info.value)


def test_missing_weights(copy: Path) -> None:
    (copy / "model.safetensors").unlink()
    _refused(copy, "has no weights")


def test_weights_that_do_not_match_the_config(copy: Path) -> None:
    _edit_config(copy, num_hidden_layers=3)  # a layer the weights do not hold
    _refused(copy, "weights do not match config.json")
    _edit_config(copy, num_hidden_layers=2, hidden_size=64)  # every tensor of the wrong shape
    _refused(copy, "weights do not match config.json")
    _edit_config(copy, hidden_size=32, vocab_size=5)  # fewer rows than the tokenizer's tokens
    _refused(copy, r"word_embeddings.weight is \(17, 32\) in the weights but \(5, 32\) by config.json")
    (copy / "model.safetensors").write_bytes(b"\x02\x00")
    _refused(copy, "weights cannot be read")


class _Payload:
    """Unpickling this creates the marker file: the code a malicious checkpoint would run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def test_the_payload_really_runs_when_unpickled(tmp_path: Path) -> None:
    """The control: plain unpickling does create the marker, so its absence below means something."""
    marker = tmp_path / "payload-ran"
    pickle.loads(pickle.dumps(_Payload(marker), protocol=2)).close()
    assert marker.exists()


@pytest.mark.parametrize("layout", ("raw-pickle", "torch-zip"))
def test_a_pickle_payload_in_a_bin_never_runs(copy: Path, tmp_path: Path, layout: str) -> None:
    marker = tmp_path / "payload-ran"
    (copy / "model.safetensors").unlink()
    weights = copy / "pytorch_model.bin"
    if layout == "raw-pickle":
        weights.write_bytes(pickle.dumps({"w": _Payload(marker)}, protocol=2))
    else:
        torch.save({"embeddings.word_embeddings.weight": torch.zeros(2), "x": _Payload(marker)}, weights)
    assert not marker.exists()
    message = str(_refused(copy, "pytorch_model.bin was refused"))
    assert "could run code" in message and "safetensors" in message
    assert not marker.exists()


def test_safetensors_are_preferred_to_a_bin_beside_them(copy: Path, tmp_path: Path) -> None:
    marker = tmp_path / "payload-ran"
    (copy / "pytorch_model.bin").write_bytes(pickle.dumps(_Payload(marker), protocol=2))
    open_model(copy).attention(hf_tiny.SOURCE)
    assert not marker.exists()


def test_a_plain_tensor_bin_loads_like_safetensors(copy: Path, bert: Path) -> None:
    from safetensors.torch import load_file

    torch.save(load_file(copy / "model.safetensors"), copy / "pytorch_model.bin")
    (copy / "model.safetensors").unlink()
    from_bin = open_model(copy).attention(hf_tiny.SOURCE)
    from_st = open_model(bert).attention(hf_tiny.SOURCE)
    for ours, theirs in zip(from_bin.maps["encoder"], from_st.maps["encoder"]):
        np.testing.assert_array_equal(ours, theirs)


def test_loading_stays_offline_and_quiet(bert: Path, capfd: pytest.CaptureFixture[str]) -> None:
    before = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    open_model(bert).attention(hf_tiny.SOURCE)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # no progress bars, no load reports
    assert {k: os.environ.get(k) for k in before} == before  # restored after loading


def test_a_tokenizer_of_another_model(copy: Path) -> None:
    (copy / "tokenizer.json").unlink()
    words = (copy / "vocab.txt").read_text().split()
    (copy / "vocab.txt").write_text("\n".join(words + [f"word{i}" for i in range(10)]) + "\n")
    _refused(copy, "the tokenizer has 27 tokens but the model's vocabulary only 17")
