"""The headless CLI: a real tiny training run, checkpoint + translate, inspect, Ctrl-C, and one-line errors."""
from __future__ import annotations

import dataclasses
import io
import json
import math
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED
from explorer.cli.main import main as cli_main
from explorer.cli.parser import build_parser
from explorer.cli.progress import Progress
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import TransformerConfig

TINY = ["--num-hiddens", "16", "--num-heads", "2", "--num-layers", "1", "--ffn-num-hiddens", "16",
        "--batch-size", "16", "--num-steps", "8"]

TSV = "\n".join([
    "Go.\tVa !", "I lost.\tJ'ai perdu.", "He's calm.\tIl est calme.", "I'm home.\tJe suis chez moi.",
    "I'm calm.\tJe suis calme.", "He lost.\tIl a perdu.", "Go home.\tRentre à la maison.",
    "I'm lost.\tJe suis perdu.", "He's home.\tIl est chez lui.", "Go now.\tVa maintenant !",
] * 3) + "\n"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _last_json(out: str) -> dict:  # type: ignore[type-arg]
    return json.loads(out.strip().splitlines()[-1])


def test_defaults_are_the_books_from_the_config_classes() -> None:
    args = build_parser().parse_args(["train"])
    model, train = TransformerConfig(), TrainingConfig()
    for f in dataclasses.fields(TransformerConfig):
        if hasattr(args, f.name):
            assert getattr(args, f.name) == getattr(model, f.name), f.name
    assert (args.batch_size, args.num_steps, args.lr, args.epochs, args.seed) == (
        train.batch_size, train.num_steps, train.lr, train.num_epochs, train.seed)
    assert (args.num_hiddens, args.num_heads, args.epochs, args.num_examples) == (32, 4, 200, 600)
    assert args.data == "builtin" and args.device == "auto" and not args.json and args.out is None


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """One tiny translation run with --json --out; the in-memory model is captured as it is saved."""
    folder = tmp_path_factory.mktemp("cli")
    corpus = folder / "pairs.tsv"
    corpus.write_text(TSV, encoding="utf-8")
    out_file = folder / "tiny.safetensors"
    captured = {}
    import explorer.core.training.checkpoint as ck

    real_save = ck.save_model

    def spy(path, model, *rest, **kw):  # type: ignore[no-untyped-def]
        captured["model"] = model
        return real_save(path, model, *rest, **kw)

    mp = pytest.MonkeyPatch()
    mp.setattr(ck, "save_model", spy)
    buf_out, buf_err = io.StringIO(), io.StringIO()
    mp.setattr(sys, "stdout", buf_out)
    mp.setattr(sys, "stderr", buf_err)
    try:
        code = cli_main(["train", "--data", str(corpus), "--epochs", "2", "--device", "cpu", *TINY,
                         "--out", str(out_file), "--json"])
    finally:
        mp.undo()
    return SimpleNamespace(code=code, out=buf_out.getvalue(), err=buf_err.getvalue(), path=out_file,
                           model=captured.get("model"), corpus=corpus)


def test_train_json_last_line(trained: SimpleNamespace) -> None:
    assert trained.code == 0, trained.err
    lines = trained.out.strip().splitlines()
    assert lines[0] == "device: cpu"
    res = json.loads(lines[-1])
    for key in ("loss", "book_loss", "tokens_per_s", "seconds", "device", "epochs", "pairs", "src_vocab",
                "tgt_vocab", "probes"):
        assert key in res, key
    assert res["epochs"] == 2 and res["pairs"] == 30 and res["device"] == "cpu"
    assert res["loss"] > 0 and res["book_loss"] == pytest.approx(res["loss"] / 8)
    assert res["tokens_per_s"] > 0 and res["seconds"] > 0
    assert [p["src"] for p in res["probes"]] == ["go .", "i lost .", "he's calm .", "i'm home ."]
    for p in res["probes"]:
        assert isinstance(p["translation"], str) and 0.0 <= p["bleu"] <= 1.0
    # progress lines are on stderr (not a terminal here), never on stdout
    assert "epoch    2/2" in trained.err and "epoch" not in lines[-1][:10]


def test_saved_model_translates_like_the_in_memory_one(trained: SimpleNamespace,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.core.training.checkpoint import load_model
    from explorer.core.model.decoding import translate

    assert trained.model is not None and trained.path.is_file()
    loaded = load_model(trained.path)
    sentences = ["go .", "i'm calm .", "he lost ."]
    code, out, err = _run(capsys, "translate", "--model", str(trained.path), "--json", *sentences)
    assert code == 0, err
    got = [t["translation"] for t in _last_json(out)["translations"]]
    trained.model.eval()
    want = [translate(trained.model, loaded.src_vocab, loaded.tgt_vocab, s, 8).text for s in sentences]
    assert got == want
    code, out, _ = _run(capsys, "translate", "--model", str(trained.path), *sentences)
    assert code == 0 and out.splitlines() == [f"{s} => {w}" for s, w in zip(sentences, want)]


def test_translate_flags_unknown_words_and_beam(trained: SimpleNamespace, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "translate", "--model", str(trained.path), "go zebra .")
    assert code == 0 and "unknown" in out and "zebra" in out
    code, out, _ = _run(capsys, "translate", "--model", str(trained.path), "--beam", "3", "--json", "go zebra .")
    res = _last_json(out)
    assert code == 0 and res["method"] == "beam" and res["translations"][0]["unknown"] == ["zebra"]


def test_inspect(trained: SimpleNamespace, capsys: pytest.CaptureFixture[str]) -> None:
    train_res = _last_json(trained.out)
    code, out, err = _run(capsys, "inspect", "--model", str(trained.path), "--json")
    assert code == 0, err
    info = _last_json(out)
    assert info["parameters"] == sum(p.numel() for p in trained.model.parameters())
    assert (info["src_vocab"], info["tgt_vocab"]) == (train_res["src_vocab"], train_res["tgt_vocab"])
    assert info["model_config"]["num_hiddens"] == 16 and info["train_config"]["num_steps"] == 8
    assert info["history"]["epochs"] == 2 and info["history"]["last_loss"] == pytest.approx(train_res["loss"])
    assert "pairs.tsv" in info["data_source"]
    code, out, _ = _run(capsys, "inspect", "--model", str(trained.path))
    assert code == 0 and "parameters:" in out and "2 epochs" in out


def test_task_run_has_no_probes(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        code, out, err = _run(capsys, "train", "--data", "task:reverse", "--num-examples", "40", "--epochs", "1",
                              "--device", "cpu", *TINY, "--threads", "1", "--json")
    finally:
        torch.set_num_threads(before)
    assert code == 0, err
    res = _last_json(out)
    assert res["probes"] == [] and res["pairs"] == 40 and res["epochs"] == 1 and res["threads"] == 1


def test_ctrl_c_stops_cleanly_and_still_saves(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    real = Progress.on_epoch

    def interrupt_after_first(self, ev):  # type: ignore[no-untyped-def]
        real(self, ev)
        if ev.epoch == 1:
            signal.raise_signal(signal.SIGINT)  # what Ctrl-C delivers

    monkeypatch.setattr(Progress, "on_epoch", interrupt_after_first)
    before = signal.getsignal(signal.SIGINT)
    out_file = tmp_path / "stopped.safetensors"
    code, out, err = _run(capsys, "train", "--data", "task:copy", "--num-examples", "32", "--epochs", "50",
                          "--device", "cpu", *TINY, "--out", str(out_file), "--json")
    assert code == EXIT_INTERRUPTED
    res = _last_json(out)
    assert res["stopped"] is True and res["epochs"] < 50
    assert "stopping" in err and "Traceback" not in err
    assert out_file.is_file()
    assert signal.getsignal(signal.SIGINT) is before  # handler restored


def test_unwritable_out_is_refused_before_training(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def read_only(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("explorer.core.atomic_file.create_temp", read_only)
    code, out, err = _run(capsys, "train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1",
                          "--device", "cpu", *TINY, "--out", str(tmp_path / "m.safetensors"))
    assert code == 2 and err.startswith("error: cannot write") and "Read-only" in err
    assert "epoch" not in err and "device" not in out  # nothing was trained


BAD = [
    (["train", "--num-hiddens", "30", "--num-heads", "4"], "divisible"),
    (["train", "--data", "task:nope"], "unknown task"),
    (["train", "--data", "MISSING"], "no such file"),
    (["train", "--epochs", "0"], "--epochs"),
    (["train", "--epochs", "-3"], "--epochs"),
    (["train", "--batch-size", "two"], "--batch-size"),
    (["train", "--dropout", "1.0"], "--dropout"),
    (["train", "--lr", "0"], "--lr"),
    (["train", "--lr", "nan"], "--lr"),
    (["train", "--device", "tpu"], "--device"),
    (["train", "--threads", "0"], "--threads"),
    (["train", "--keep-models", "0,5"], "--keep-models"),
    (["train", "--keep-models", "five"], "--keep-models"),
    (["train", "--seed", str(2**64)], "--seed"),
    (["train", "--seed", "-1"], "--seed"),
    (["train", "--out", "NODIR/x.safetensors"], "does not exist"),
    (["train", "--out", "DIR"], "folder"),
    (["inspect", "--model", "MISSING"], "no such file"),
    (["inspect", "--model", "DIR"], "folder"),
    (["inspect", "--model", "PICKLE"], "pickle"),
    (["translate", "--model", "EMPTY", "go ."], "empty"),
    (["translate", "--model", "PICKLE"], "sentence"),
    (["translate", "--model", "PICKLE", "--beam", "0", "go ."], "--beam"),
    (["frobnicate"], "invalid choice"),
    ([], "command"),
]


@pytest.mark.parametrize(("argv", "needle"), BAD, ids=[" ".join(a) or "(none)" for a, _ in BAD])
def test_bad_input_is_exit_2_and_one_error_line(argv: list[str], needle: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.safetensors").write_bytes(b"")
    (tmp_path / "evil.safetensors").write_bytes(b"\x80\x04\x95" + b"\x00" * 40)
    names = {"MISSING": tmp_path / "missing.tsv", "NODIR/x.safetensors": tmp_path / "no" / "x.safetensors",
             "DIR": tmp_path, "PICKLE": tmp_path / "evil.safetensors", "EMPTY": tmp_path / "empty.safetensors"}
    argv = [str(names.get(a, a)) for a in argv]
    try:
        code = cli_main(argv)
    except SystemExit as exc:  # argparse usage errors exit through SystemExit
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and needle.lower() in lines[0].lower()


def test_progress_bar_on_a_terminal_and_plain_lines_otherwise() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress(tty, num_epochs=4)
    step = SimpleNamespace(progress=0.5, elapsed_s=10.0, epoch_fraction=2.0, loss=1.25, tokens_per_s=5000.0)
    bar.on_step(step)
    bar.on_epoch(SimpleNamespace(epoch=2, loss=1.0, book_loss=0.1, tokens_per_s=1.0, elapsed_s=1.0))
    bar.close()
    text = tty.getvalue()
    assert text.startswith("\r[") and "50.0%" in text and "ETA 00:10" in text and text.endswith("\n")
    assert "epoch    2/4" not in text  # no per-epoch lines under a live bar

    plain = io.StringIO()
    lines = Progress(plain, num_epochs=200)
    for e in range(1, 201):
        lines.on_step(step)
        lines.on_epoch(SimpleNamespace(epoch=e, loss=1.0, book_loss=0.1, tokens_per_s=1.0, elapsed_s=1.0))
    rows = plain.getvalue().splitlines()
    assert len(rows) == 20 and rows[0].startswith("epoch   10/200") and rows[-1].startswith("epoch  200/200")


def test_progress_shows_the_learning_rate_when_the_run_has_a_schedule() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    step = SimpleNamespace(progress=0.5, elapsed_s=10.0, epoch_fraction=2.0, loss=1.25, tokens_per_s=5000.0,
                           lr=3.2e-4)
    epoch = SimpleNamespace(epoch=2, loss=1.0, book_loss=0.1, tokens_per_s=1.0, elapsed_s=1.0)
    tty = Tty()
    bar = Progress(tty, num_epochs=4, show_lr=True)
    bar.on_step(step)
    assert "loss 1.2500  lr 3.2e-4  " in tty.getvalue()
    plain = io.StringIO()
    lines = Progress(plain, num_epochs=2, show_lr=True)
    lines.on_step(step)
    lines.on_step(SimpleNamespace(**{**vars(step), "lr": 0.0126}))  # the epoch line: the rate of its last step
    lines.on_epoch(epoch)
    assert plain.getvalue().startswith("epoch    2/2  loss 1.0000 (book 0.1000)  lr 1.3e-2  ")
    constant = io.StringIO()
    Progress(constant, num_epochs=2).on_step(step)
    Progress(constant, num_epochs=2).on_epoch(epoch)  # the book's constant rate: nothing to follow
    assert constant.getvalue() and " lr " not in constant.getvalue()


def test_train_progress_lines_follow_the_schedule(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        code, _, err = _run(capsys, "train", "--data", "task:reverse", "--num-examples", "40", "--epochs", "2",
                            "--device", "cpu", *TINY, "--threads", "1", "--batch-size", "10", "--lr", "0.01",
                            "--lr-schedule", "cosine", "--warmup-steps", "2")
    finally:
        torch.set_num_threads(before)
    assert code == 0, err
    from explorer.core.training.schedule import lr_factor

    rates = [line.split("  lr ")[1].split()[0] for line in err.splitlines() if line.startswith("epoch ")]
    # 4 steps an epoch: each line shows the rate of its epoch's last step (0-based steps 3 and 7 of 8)
    expected = [0.01 * lr_factor("cosine", step, 2, 8) for step in (3, 7)]
    assert [float(r) for r in rates] == pytest.approx(expected, rel=0.05) and expected[0] > 2 * expected[1], err


def test_module_entry_point_runs_without_qt() -> None:
    code = ("import sys, runpy; sys.argv = ['x', 'inspect', '--model', 'missing.safetensors'];\n"
            "try:\n    runpy.run_module('explorer.cli', run_name='__main__')\n"
            "except SystemExit as e:\n    rc = e.code\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'superqt')]\n"
            "print(rc, bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "2 []", out.stderr
    assert out.stderr.strip().startswith("error: no such file")


def test_training_failure_is_exit_1_and_one_line(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from explorer.core.training.events import ErrorEvent
    from explorer.core.training.trainer import Trainer

    monkeypatch.setattr(Trainer, "__iter__", lambda self: iter([ErrorEvent(step=3, message="the loss became NaN")]))
    out_file = tmp_path / "never.safetensors"
    code, _, err = _run(capsys, "train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1",
                        "--device", "cpu", *TINY, "--out", str(out_file))
    assert code == EXIT_FAILED
    assert err.strip() == "error: training failed at step 3: the loss became NaN"
    assert not out_file.exists()


def test_nan_stop_saves_the_last_good_weights(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    from explorer.core.training import trainer as training
    from explorer.core.training.checkpoint import load_model

    real, calls = training.clip_grad_norm, {"n": 0}

    def poisoned(*args, **kwargs):  # the third step's gradient norm turns NaN
        calls["n"] += 1
        norm = real(*args, **kwargs)
        return norm * float("nan") if calls["n"] == 3 else norm

    monkeypatch.setattr(training, "clip_grad_norm", poisoned)
    out_file = tmp_path / "kept.safetensors"
    code, _, err = _run(capsys, "train", "--data", "task:copy", "--num-examples", "64", "--epochs", "5",
                        "--device", "cpu", *TINY, "--out", str(out_file))
    assert code == EXIT_FAILED
    assert err.count("\n") == 1 and "training failed at step 3" in err and "last good weights were saved" in err
    loaded = load_model(out_file)
    assert all(bool(t.isfinite().all()) for t in loaded.model.state_dict().values())
    assert len(loaded.history.step_loss) == 2 and all(math.isfinite(v) for v in loaded.history.step_loss)


def test_non_utf8_console_does_not_crash(trained: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = io.BytesIO()
    ascii_out = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_out)
    code = cli_main(["translate", "--model", str(trained.path), "à la maison ."])
    ascii_out.flush()
    assert code == 0 and raw.getvalue().startswith(b"? la maison . => ")
