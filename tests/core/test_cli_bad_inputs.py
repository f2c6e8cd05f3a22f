"""No traceback from any CLI command: every command in the registry (a new one is covered by being registered) is run
on broken inputs — a missing file, a garbage file, a folder that is not a model, empty text, bad numbers — and
answers with ONE ``error:`` line on stderr and exit code 2; an unexpected failure exits 1 naming a log file."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import hf_tiny  # noqa: E402

from explorer.cli import main as cli_main  # noqa: E402
from explorer.cli.parser import COMMANDS, build_parser  # noqa: E402

CASES = ("missing file", "garbage file", "not a model folder", "empty text", "bad number")
#: Options that name an input file or folder (a command's model, data, run …).
INPUTS = ("model", "model_b", "run", "data", "resume")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad_inputs")
    (root / "garbage.safetensors").write_bytes(bytes(range(256)) * 8)
    (root / "garbage.txt").write_bytes(b"\xff\xfe\x00garbage\x00" * 50)
    (root / "folder").mkdir()
    (root / "folder" / "README.txt").write_text("not a model\n")
    (root / "empty.txt").write_text("")
    hf_tiny.require_hf_extra(module_level=False)
    return {"root": root, "bert": hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny")}


def _value(action: argparse.Action, case: str, inputs: dict[str, Path]) -> str:
    root = inputs["root"]
    if action.dest in INPUTS:
        if case == "empty text":
            return str(root / "empty.txt") if action.dest == "data" else str(inputs["bert"])
        return {"missing file": str(root / "missing" / "nothing.safetensors"),
                "garbage file": str(root / ("garbage.txt" if action.dest == "data" else "garbage.safetensors")),
                "not a model folder": str(root / "folder"),
                "bad number": str(inputs["bert"])}[case]
    if action.dest == "out":
        return str(root / "out.npz")
    if action.choices:
        return str(next(iter(action.choices)))
    if action.type is not None and _numeric(action):
        return "0"
    return "" if case == "empty text" else "the cat sat on the mat ."


def _numeric(action: argparse.Action) -> bool:
    """Whether the option takes a number: its type refuses a word."""
    try:
        action.type("abc")  # type: ignore[misc]
    except (argparse.ArgumentTypeError, ValueError, TypeError):
        return True
    return False


def _argv(name: str, case: str, inputs: dict[str, Path]) -> list[str] | None:
    parser = build_parser().command_parsers[name]  # type: ignore[attr-defined]
    grouped = {a.dest for g in parser._mutually_exclusive_groups for a in g._group_actions}
    argv = [name]
    chosen = [a for a in parser._actions if (a.required and a.dest not in grouped) or
              (a.dest in INPUTS and a.option_strings and a.dest not in ("resume",))]
    for group in parser._mutually_exclusive_groups:
        if group.required:
            chosen.append(group._group_actions[0])
    positional = []
    for action in chosen:
        value = _value(action, case, inputs)
        if action.option_strings:
            argv += [action.option_strings[-1], value]
        else:
            positional.append(value)
    if case == "bad number":
        numeric = [a for a in parser._actions if a.option_strings and a.type is not None and _numeric(a)]
        if not numeric:
            return None
        argv += [numeric[0].option_strings[-1], "abc"]
    return argv + positional


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_answers_broken_input_with_one_line(name: str, case: str, inputs: dict[str, Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    argv = _argv(name, case, inputs)
    if argv is None:
        pytest.skip(f"{name} takes no number")
    try:
        code = cli_main.main(argv)
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, argv
    lines = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error: "), (argv, err)
    assert code == 2, (argv, err)


def test_every_registered_command_has_been_run() -> None:
    assert set(COMMANDS) >= {"attention", "summarize", "explain", "ablate", "train"}
    assert all(callable(getattr(module, "run", None)) for module in COMMANDS.values())


def test_an_unexpected_error_names_a_log_file_holding_the_traceback(inputs: dict[str, Path],
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(COMMANDS["summarize"], "run", broken)
    code = cli_main.main(["summarize", "--model", str(inputs["bert"]), "--data", "builtin"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err and len(err.splitlines()) == 1
    log = Path(re.search(r"the details are in (\S+\.log)", err).group(1))
    assert "Traceback" in log.read_text() and "RuntimeError: a bug" in log.read_text()
    log.unlink()


def test_a_usage_error_does_not_wait_for_torch() -> None:
    """Only the named command's parser is built: another command's defaults (train's come from torch-backed
    configs) are not imported to refuse a missing argument."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "explorer.cli", "attention"],
                          capture_output=True, text=True, env=env, check=False, timeout=120)
    assert done.returncode == 2
    assert [line for line in done.stderr.splitlines() if line.startswith("error:")][0].startswith("error: the following")
    assert not re.search(r"\| +torch(\.|$)", done.stderr)
