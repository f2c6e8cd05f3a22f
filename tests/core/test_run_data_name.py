"""A run on the bundled corpus keeps its name: recorded as ``builtin``, not as the path of the installed file,
so a resumed run (or one made by another install) still says "built-in English–French"."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import TINY_CLI  # noqa: E402

from explorer.cli.main import main
from explorer.core.data.sources import BUILTIN_FILE, load_source
from explorer.paths import resource_path


def _cli_args() -> list[str]:
    args = list(TINY_CLI)
    at = args.index("--data")
    args[at + 1] = "builtin"
    return [*args, "--num-examples", "30"]


def test_resumed_run_on_the_bundled_corpus_keeps_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["train", *_cli_args(), "--epochs", "1", "--run-dir", str(run)]) == 0
    first = json.loads((run / "run.json").read_text())["data"]
    assert first["spec"] == "builtin" and first["name"].startswith("built-in English–French")
    assert main(["train", "--resume", str(run), "--epochs", "2"]) == 0
    after = json.loads((run / "run.json").read_text())["data"]
    assert after["name"] == first["name"]
    capsys.readouterr()


def test_a_recorded_path_of_the_bundled_file_opens_as_built_in() -> None:
    """Runs recorded before kept the installed file's absolute path."""
    source = load_source(str(resource_path(BUILTIN_FILE).resolve()), num_examples=5)
    assert source.name == "built-in English–French (5 pairs)"
    assert load_source(resource_path(BUILTIN_FILE), num_examples=5).name == source.name
