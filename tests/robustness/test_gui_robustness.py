"""The GUI under hostile input: the studio's dataset drop/open path, Model → Open, the form, the
translate box and the multi-head panel's typed sentence each show a message and keep what was there before.
A 16 ms QTimer measures the longest GUI stall meanwhile (``$ROBUSTNESS_STATS``)."""
from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
import torch
from PySide6.QtCore import QSettings

from explorer.core.training import checkpoint as ck
from explorer.ui.panels.multihead.multihead_panel import MultiHeadPanel
from explorer.ui.panels.studio.studio_panel import StudioPanel

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
REFUSED = ["empty.txt", "binary.txt", "latin1.txt", "utf16_bom.txt", "utf16_no_bom.txt", "one_column.txt",
           "long_line.txt", "no_text.zip", "not_a_zip.zip", "bomb.zip", "folder.txt", "missing.txt"]


class _CreatesMarker:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (Path(self.marker),))


@pytest.fixture
def studio(studio_panel: Any) -> Any:
    return studio_panel


def _loaded(qtbot: Any, signal: Any, call: Any) -> bool:
    """Run ``call`` (which must accept the request) and wait for the background load it starts:
    the ``bool`` that ``dataset_load_finished``/``model_open_finished`` carries."""
    with qtbot.waitSignal(signal, timeout=10_000) as finished:
        assert call() is True
    return finished.args[0]


def _source_state(panel: StudioPanel) -> tuple[Any, ...]:
    src = panel.source
    combo = panel.data.source_combo
    return (src.name, src.pairs[:5], len(src.pairs), combo.count(), combo.currentIndex(), panel.data.source_spec())


def test_bad_dataset_files_show_a_message_and_keep_the_previous_data(qtbot: Any, studio: StudioPanel,
                                                                   hostile_files: dict, stall_meter: Any) -> None:
    before = _source_state(studio)
    stall_meter.start()
    for i, name in enumerate(REFUSED):
        path, message = hostile_files[name]
        opener = studio.handle_drop if i % 2 else (lambda paths: studio.open_dataset(paths[0]) or True)
        assert _loaded(qtbot, studio.dataset_load_finished, lambda: opener([str(path)])) is False
        qtbot.wait(20)  # let the stall meter tick
        assert re.search(message, studio.inline_message()), (name, studio.inline_message())
        assert _source_state(studio) == before, name
        assert studio.controls.start_button.isEnabled(), "the previous data can still be trained on"


def test_a_good_file_then_a_bad_one_keeps_the_good_one(qtbot: Any, studio: StudioPanel, tmp_path: Path,
                                                      hostile_files: dict) -> None:
    good = tmp_path / "mine.tsv"
    good.write_text("Go.\tVa !\nHi.\tSalut !\nRun!\tCours !\n", encoding="utf-8")
    assert _loaded(qtbot, studio.dataset_load_finished, lambda: studio.open_dataset(str(good)))
    before = _source_state(studio)
    assert "mine.tsv" in before[0]
    assert not _loaded(qtbot, studio.dataset_load_finished,
                       lambda: studio.open_dataset(str(hostile_files["latin1.txt"][0])))
    assert _source_state(studio) == before and "UTF-8" in studio.inline_message()


def _write_bad_models(tmp_path: Path, good: Path) -> dict[str, tuple[Path, str]]:
    from safetensors.torch import save_file

    data = good.read_bytes()
    out = {}
    for name, content in {"zero": b"", "truncated": data[: len(data) // 2], "garbage": b"hello world" * 9}.items():
        (tmp_path / f"{name}.safetensors").write_bytes(content)
        out[name] = (tmp_path / f"{name}.safetensors", "empty|truncated|not a safetensors|damaged")
    save_file({"w": torch.zeros(2)}, str(tmp_path / "foreign.safetensors"))
    out["foreign"] = (tmp_path / "foreign.safetensors", "not an Attention Explorer model")
    (tmp_path / "pickle.safetensors").write_bytes(pickle.dumps(_CreatesMarker(str(tmp_path / "pwned"))))
    out["pickle"] = (tmp_path / "pickle.safetensors", "pickle.*could run code")
    torch.save({"x": _CreatesMarker(str(tmp_path / "pwned"))}, tmp_path / "torch.safetensors")
    out["torch"] = (tmp_path / "torch.safetensors", "PyTorch/zip")
    tensors, meta = ck.load_checkpoint(good)
    meta["format_version"] = ck.FORMAT_VERSION + 1
    from safetensors.torch import save

    (tmp_path / "future.safetensors").write_bytes(save(tensors, metadata={ck.META_KEY: json.dumps(meta)}))
    out["future"] = (tmp_path / "future.safetensors", "newer version")
    out["missing"] = (tmp_path / "absent.safetensors", "no such file")
    return out


def test_bad_model_files_keep_the_open_model(qtbot: Any, studio: StudioPanel, tiny_model_file: Path,
                                            tmp_path: Path, stall_meter: Any) -> None:
    assert _loaded(qtbot, studio.model_open_finished, lambda: studio.open_model(str(tiny_model_file))), \
        studio.inline_message()
    record = studio.record
    translated = studio.translate_view.translate_now()
    assert translated is not None
    stall_meter.start()
    for i, (name, (path, message)) in enumerate(_write_bad_models(tmp_path, tiny_model_file).items()):
        opener = (lambda p=path: studio.handle_drop([str(p)])) if i % 2 else (lambda p=path: studio.open_model(str(p)))
        assert _loaded(qtbot, studio.model_open_finished, opener) is False
        qtbot.wait(20)
        assert re.search(message, studio.inline_message()), (name, studio.inline_message())
        assert studio.record is record, name
        assert studio.translate_view.has_model
    assert not (tmp_path / "pwned").exists(), "no pickle payload ran"
    again = studio.translate_view.translate_now()
    assert again is not None and again.text == translated.text


def test_model_whose_vocab_lacks_bos(qtbot: Any, studio: StudioPanel, tiny_model_file: Path,
                                    tmp_path: Path) -> None:
    """Found here: open_model raised KeyError from probe_snapshot (fixed in checkpoint.load_model)."""
    from safetensors.torch import save

    tensors, meta = ck.load_checkpoint(tiny_model_file)
    vocab = meta["tgt_vocab"]
    vocab["idx_to_token"] = [("bos" if t == "<bos>" else t) for t in vocab["idx_to_token"]]
    vocab["reserved_tokens"] = ["<pad>", "<eos>"]
    path = tmp_path / "nobos.safetensors"
    path.write_bytes(save(tensors, metadata={ck.META_KEY: json.dumps(meta)}))
    assert _loaded(qtbot, studio.model_open_finished, lambda: studio.open_model(str(path))) is False
    assert "<bos>" in studio.inline_message()


def test_form_refuses_impossible_settings(qtbot: Any, studio: StudioPanel) -> None:
    form = studio.form
    form.set_values({"num_hiddens": 30, "num_heads": 4})
    assert "divisible by num_heads" in (form.validation_error() or "")
    assert not studio.controls.start_button.isEnabled()
    assert studio.start_training() is False and "divisible" in studio.inline_message()
    assert not studio.is_training()
    form.set_values({"num_hiddens": 32, "num_steps": 1})
    assert "num_steps must be at least 2" in (form.validation_error() or "")
    assert studio.start_training() is False
    for name, box in form.fields.items():  # the spin boxes clamp 0, negative and huge values
        for value in (0, -5, 10**9):
            form.set_values({name: value})
            assert box.minimum() <= box.value() <= box.maximum()
    spin = form.fields["num_hiddens"]
    form.set_values({"num_hiddens": 32, "num_heads": 4, "num_steps": 10})
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "abc")
    spin.editingFinished.emit()
    assert spin.value() == 32 and form.validation_error() is None


@pytest.mark.parametrize("stored", [{"num_hiddens": "abc"}, {"dropout": None}, {"num_heads": 10**12}],
                         ids=["text", "null", "huge"])
def test_corrupt_settings_keep_the_defaults(studio: StudioPanel, tmp_path: Path, stored: dict) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(studio.settings_key("form"), json.dumps({**stored, "batch_size": 7}))
    studio.restore_settings(settings)
    assert studio.form.values()["batch_size"] == 7 and studio.form.validation_error() is None


TRANSLATE_CASES = [("", "empty sentence"), ("  \t ", "empty sentence"), ("xyzzy plugh", None),
                   ("go " * 3333 + "home", None), ("\U0001F600 \x00 ...", None)]


def test_translate_box(qtbot: Any, studio: StudioPanel, tiny_model_file: Path) -> None:
    """Empty, blank, only unknown words, 10,000 characters and odd characters, greedy and beam."""
    assert _loaded(qtbot, studio.model_open_finished, lambda: studio.open_model(str(tiny_model_file)))
    view = studio.translate_view
    for method in ("greedy", "beam"):
        view.method_combo.setCurrentText(method)
        for sentence, expect in TRANSLATE_CASES:
            view.result = None
            view.sentence_edit.setText(sentence)
            view.translate_button.click()
            if expect:
                assert expect in view.error_label.text(), (method, sentence[:20])
            else:
                assert view.error_label.text() == "" and view.result is not None, (method, sentence[:20])
                if sentence.startswith("xyzzy"):
                    assert view.result.unknown == ["xyzzy", "plugh"]


@pytest.mark.parametrize("sentence, message", [("", "at least one word"), ("   ", "at least one word"),
                                               ("go " * 3333, "at most 40"), ("\U0001F600 \x00 ...", None)],
                         ids=["empty", "blank", "10k", "odd"])
def test_multihead_typed_sentence(qtbot: Any, sentence: str, message: str | None) -> None:
    panel = MultiHeadPanel()
    qtbot.addWidget(panel)
    try:
        qtbot.waitUntil(lambda: not panel.runner.is_busy() if hasattr(panel.runner, "is_busy") else True,
                        timeout=5000)
        panel.sentence_edit.setText(sentence)
        panel.recompute()
        if message:
            qtbot.waitUntil(lambda: message in panel.inline_message(), timeout=5000)
        else:
            with qtbot.waitSignal(panel.drawn, timeout=10_000):
                pass
            assert panel.inline_message() == ""
    finally:
        panel.shutdown(2000)


def test_model_menu_paths(qtbot: Any, studio: StudioPanel, tiny_model_file: Path, tmp_path: Path,
                          hostile_files: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """Model → Open…, Open dataset… and Save… with the file dialog answering hostile paths."""
    from PySide6.QtWidgets import QFileDialog

    answer = {"path": ""}
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (answer["path"], "")))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (answer["path"], "")))
    menu = studio.panel_menu()
    answer["path"] = str(tiny_model_file)
    assert _loaded(qtbot, studio.model_open_finished, lambda: menu.open_action.trigger() or True)
    record = studio.record
    assert record is not None and studio.translate_view.has_model
    zero = tmp_path / "zero.safetensors"
    zero.write_bytes(b"")
    answer["path"] = str(zero)
    assert not _loaded(qtbot, studio.model_open_finished, lambda: menu.open_action.trigger() or True)
    assert "empty" in studio.inline_message() and studio.record is record
    before = _source_state(studio)
    answer["path"] = str(hostile_files["latin1.txt"][0])
    assert not _loaded(qtbot, studio.dataset_load_finished, lambda: menu.dataset_action.trigger() or True)
    assert "UTF-8" in studio.inline_message() and _source_state(studio) == before
    answer["path"] = str(tmp_path)  # a folder as the save target
    menu.save_action.trigger()
    assert "folder" in studio.inline_message() and studio.record is record
    answer["path"] = ""  # cancelled dialogs change nothing
    for action in (menu.open_action, menu.dataset_action, menu.save_action):
        action.trigger()
    assert studio.record is record and _source_state(studio) == before


def test_main_window_drops_keep_the_app_running(qtbot: Any, tmp_path: Path, hostile_files: dict,
                                                tiny_model_file: Path) -> None:
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.panel_registry import panel_spec
    from explorer.ui.settings import AppSettings

    window = MainWindow(AppSettings(tmp_path), panels=(panel_spec("studio"),), device_probe=None)
    qtbot.addWidget(window)
    window.show_panel("studio")
    panel = window.panel("studio")
    before = _source_state(panel)
    for name in ("binary.txt", "bomb.zip", "folder.txt", "utf16_no_bom.txt"):
        assert not _loaded(qtbot, panel.dataset_load_finished,
                           lambda n=name: window.drop_paths([str(hostile_files[n][0])]))
        assert re.search(hostile_files[name][1], panel.inline_message())
    garbage = tmp_path / "x.safetensors"
    garbage.write_bytes(b"\x80\x04garbage")
    assert not _loaded(qtbot, panel.model_open_finished, lambda: window.drop_paths([str(garbage)]))
    assert "pickle" in panel.inline_message()
    assert not window.drop_paths([str(tmp_path / "notes.pdf")])
    assert _source_state(panel) == before and window.isEnabled()
    window.shutdown(save=False)


def test_unreadable_dataset_in_the_studio(qtbot: Any, studio: StudioPanel, tmp_path: Path, deny_read) -> None:
    path = tmp_path / "locked.txt"
    path.write_text("go .\tva !\n")
    deny_read(path)
    before = _source_state(studio)
    assert _loaded(qtbot, studio.dataset_load_finished, lambda: studio.open_dataset(str(path))) is False
    assert "Permission denied" in studio.inline_message() and "locked.txt" in studio.inline_message()
    assert _source_state(studio) == before
