"""Lessons: File → Save lesson / Open lesson round trip, a lesson from a newer version, bad values, panels that
are missing (from the lesson or from this app), the studio's model file, and ``attention-explorer LESSON.json``."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QWidget

from classroom_fakes import MODULE, SPECS, make_window
from explorer.ui.app import split_lesson, start
from explorer.ui.shell.lessons.lesson import FORMAT, VERSION, parse_lesson
from explorer.ui.shell.panel_registry import PanelSpec
from explorer.ui.panels.base_panel import BasePanel

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


class FakeStudio(BasePanel):
    key, title = "studio", "Studio"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.opened: list[str] = []
        self.runs: list[tuple[str, float | None]] = []
        self.studio_state = SimpleNamespace(model_path=None, run_dir=None, replay_speed=None)

    def open_model(self, path: str) -> bool:
        self.opened.append(path)
        self.studio_state.model_path = path
        return True

    def open_run(self, path: str) -> bool:
        self.runs.append((path, None))
        self.studio_state.run_dir, self.studio_state.replay_speed = Path(path), None
        return True

    def replay_run(self, path: str, speed: float | None = None) -> bool:
        self.runs.append((path, speed))
        self.studio_state.run_dir, self.studio_state.replay_speed = Path(path), speed
        return True


WITH_STUDIO = (*SPECS, PanelSpec("studio", "Studio", f"{MODULE}:FakeStudio"))


@pytest.fixture
def window(qtbot, monkeypatch, tmp_path: Path):
    return make_window(qtbot, monkeypatch, tmp_path / "settings-a", WITH_STUDIO, {"FakeStudio": FakeStudio})


def lesson_text(**fields) -> str:
    return json.dumps({"format": FORMAT, "version": VERSION, **fields})


def test_round_trip_restores_every_panel_theme_palette_scale_and_model(qtbot, monkeypatch, window, tmp_path) -> None:
    model = tmp_path / "model.aexp"
    model.write_bytes(b"weights")
    window.show_panel("studio")
    window.panel("studio").open_model(str(model))
    window.show_panel("maps")
    maps = window.panel("maps")
    maps.spin.setValue(42)
    maps.check.setChecked(True)
    maps.text.setText("tokens, “quoted”")
    window.settings.qsettings.setValue("panels/other/spin", 5)  # not built: saved from the app's settings
    window.appearance.set_theme_mode("dark")
    window.classroom.set_palette("colour_blind")
    window.classroom.set_presenter_scale(1.75)
    assert window.classroom.save_lesson(str(tmp_path / "scene.json"))
    saved = json.loads((tmp_path / "scene.json").read_text(encoding="utf-8"))
    assert saved["version"] == VERSION and saved["panels"]["maps"]["settings"]["spin"] == 42
    assert saved["panels"]["other"]["settings"]["spin"] in (5, "5")
    assert saved["panels"]["studio"]["model_file"] == str(model)

    other = make_window(qtbot, monkeypatch, tmp_path / "settings-b", WITH_STUDIO, {"FakeStudio": FakeStudio})
    other.show_panel("other")  # built before the lesson opens: gets it at once
    assert other.classroom.open_lesson(str(tmp_path / "scene.json"))
    assert "Opened the lesson scene.json" in other.classroom.last_report
    assert other.panel("other").spin.value() == 5
    assert other.settings.theme == "dark" and other.appearance.dark
    assert other.settings.palette == "colour_blind" and other.settings.presenter_scale == 1.75
    assert other.current_key() == "maps"
    assert other.classroom.lessons.pending_keys() == ["maps", "studio"]  # lazy panels get it when built
    other.show_panel("maps")
    restored = other.panel("maps")
    assert (restored.spin.value(), restored.check.isChecked()) == (42, True)
    assert restored.text.text() == "tokens, “quoted”"
    other.show_panel("studio")
    assert other.panel("studio").opened == [str(model)]
    assert other.classroom.lessons.pending_keys() == []


def test_a_lesson_from_a_newer_version_opens_what_it_understands(window, tmp_path: Path) -> None:
    path = tmp_path / "newer.json"
    path.write_text(json.dumps({"format": FORMAT, "version": VERSION + 1, "camera": {"zoom": 2},
                                "theme": "light", "panels": {"maps": {"settings": {"spin": 11}, "layout": "wide"}}}))
    window.show_panel("maps")
    assert window.classroom.open_lesson(str(path))
    assert window.panel("maps").spin.value() == 11 and window.settings.theme == "light"
    report = window.classroom.last_report
    assert "newer version" in report and "camera: unknown field" in report and "panels.maps.layout" in report


def test_bad_values_are_skipped_and_named_the_rest_is_applied(window, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(lesson_text(theme="purple", palette=3, presenter_scale=7, language="klingon",
                                current_panel="nowhere", panels={
                                    "maps": {"settings": {"spin": {"deep": 1}, "text": "kept", "check": [1, [2]]}},
                                    "studio": {"settings": {}, "model_file": str(tmp_path / "gone.aexp")}}))
    window.show_panel("maps")
    assert window.classroom.open_lesson(str(path))
    assert window.panel("maps").text.text() == "kept" and window.panel("maps").spin.value() == 7
    report = window.classroom.last_report
    for part in ("theme: 'purple'", "palette: 3", "presenter_scale: 7", "language: 'klingon'", "current_panel",
                 "panels.maps.settings.spin", "panels.maps.settings.check", "gone.aexp was not found"):
        assert part in report, part
    assert window.settings.theme == "system" and window.settings.palette == "standard"


def test_missing_panels_keep_their_state_and_unknown_panels_are_skipped(window, tmp_path: Path) -> None:
    window.show_panel("other")
    window.panel("other").spin.setValue(33)
    path = tmp_path / "partial.json"
    path.write_text(lesson_text(panels={"maps": {"settings": {"spin": 2}}, "attention_cues": {"settings": {}}}))
    assert window.classroom.open_lesson(str(path))
    assert window.panel("other").spin.value() == 33  # absent from the lesson: untouched
    assert "panels.attention_cues: this version has no such panel" in window.classroom.last_report
    window.show_panel("maps")
    assert window.panel("maps").spin.value() == 2


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"format": "something else", "version": 1}',
                                  json.dumps({"format": FORMAT, "version": "one"})])
def test_a_file_that_is_no_lesson_changes_nothing(window, tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    assert not window.classroom.open_lesson(str(path))
    assert window.settings.theme == "system"


def test_bytes_survive_as_base64() -> None:
    opened = parse_lesson(lesson_text(panels={"maps": {"settings": {"state": {"bytes_base64": "AAEC"},
                                                                     "bad": {"bytes_base64": "**"}}}}), ["maps"])
    assert opened.lesson.panels["maps"] == {"state": {"bytes_base64": "AAEC"}}
    assert opened.skipped == ["panels.maps.settings.bad: not valid base64"]


def test_the_command_line_opens_a_lesson(qtbot, tmp_path: Path, capsys) -> None:
    assert split_lesson(["-platform", "offscreen", "a.JSON", "--theme", "dark"]) == (
        "a.JSON", ["-platform", "offscreen", "--theme", "dark"])
    assert split_lesson(["--panel", "studio"]) == (None, ["--panel", "studio"])
    path = tmp_path / "scene.json"
    path.write_text(lesson_text(current_panel="positional", theme="nope"))
    started = start([str(path), "--screenshots", str(tmp_path / "shots")])
    assert not isinstance(started, int)
    qtbot.addWidget(started.window)
    try:
        assert started.lesson == str(path) and started.window.current_key() == "positional"
        assert "theme: 'nope'" in capsys.readouterr().out
    finally:
        started.window.shutdown(save=False)
    assert start([str(tmp_path / "missing.json")]) == 2


def test_the_studios_run_travels_by_name_the_demo_and_its_replay_speed_too(qtbot, monkeypatch, window,
                                                                           tmp_path: Path) -> None:
    from explorer.paths import demo_run_dir

    window.show_panel("studio")
    window.panel("studio").replay_run(str(demo_run_dir()), 5.0)
    assert window.classroom.save_lesson(str(tmp_path / "demo.json"))
    saved = json.loads((tmp_path / "demo.json").read_text(encoding="utf-8"))
    assert saved["panels"]["studio"]["run"] == {"path": "demo", "replay_speed": 5.0}  # no machine's path in it
    other = make_window(qtbot, monkeypatch, tmp_path / "settings-b", WITH_STUDIO, {"FakeStudio": FakeStudio})
    assert other.classroom.open_lesson(str(tmp_path / "demo.json"))
    other.show_panel("studio")
    assert other.panel("studio").runs == [(str(demo_run_dir()), 5.0)]

    run = tmp_path / "elsewhere" / "run_1"  # a followed run, handed on beside the lesson
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}")
    window.panel("studio").open_run(str(run))
    assert window.classroom.save_lesson(str(tmp_path / "followed.json"))
    beside = tmp_path / "handed_on"
    beside.mkdir()
    (beside / "followed.json").write_bytes((tmp_path / "followed.json").read_bytes())
    run.rename(beside / "run_1")
    assert other.classroom.open_lesson(str(beside / "followed.json"))
    assert other.panel("studio").runs[-1] == (str(beside / "run_1"), None)


def test_a_bad_run_entry_is_skipped_and_named(window, tmp_path: Path) -> None:
    path = tmp_path / "bad_run.json"
    path.write_text(lesson_text(panels={"studio": {"settings": {}, "run": {"path": str(tmp_path / "gone"),
                                                                           "replay_speed": -2}}}))
    window.show_panel("studio")
    assert window.classroom.open_lesson(str(path))
    report = window.classroom.last_report
    assert "panels.studio.run.replay_speed: -2" in report and "gone was not found" in report
    assert window.panel("studio").runs == []


def test_values_a_real_panel_cannot_take_are_named(qtbot, monkeypatch, tmp_path: Path) -> None:
    """Not a choice, not a number, out of range: each is listed in the report, the good values are applied."""
    from explorer.ui.shell.panel_registry import PANELS

    specs = tuple(spec for spec in PANELS if spec.key == "attention_cues")
    window = make_window(qtbot, monkeypatch, tmp_path / "settings", specs)
    window.show_panel("attention_cues")
    path = tmp_path / "bad-values.json"
    path.write_text(lesson_text(panels={"attention_cues": {"settings": {
        "scorer": "banana", "num_keys": "many", "temperature": -5, "seed": 3, "query_x": 2.5}}}))
    assert window.classroom.open_lesson(str(path))
    panel = window.panel("attention_cues")
    assert panel.seed_spin.value() == 3
    report = window.classroom.last_report
    for part in ('panels.attention_cues.settings.scorer: "banana" is not one of', "dot product",
                 'panels.attention_cues.settings.num_keys: "many" is not a number',
                 "panels.attention_cues.settings.temperature: -5 is not between 0.01 and 100"):
        assert part in report, (part, report)
    assert "seed" not in report and "query_x" not in report


@pytest.mark.parametrize("argv", [["missing.json"], ["--panel", "nowhere"]])
def test_refused_starts_build_no_window(qtbot, tmp_path: Path, argv: list[str]) -> None:
    """A start refused for a missing lesson or an unknown panel leaves no window behind: one built and dropped
    (never shown, never shut down) kept its timers and workers, and freeing it later crashed the process."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow

    def windows() -> int:
        return sum(isinstance(w, MainWindow) for w in QApplication.topLevelWidgets())

    before = windows()
    args = [str(tmp_path / argv[0]), *argv[1:]] if argv[0].endswith(".json") else argv
    assert start(args) == 2
    assert windows() == before
