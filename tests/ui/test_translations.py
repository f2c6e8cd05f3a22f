"""简体中文: every panel shown in zh_CN has no English left (but formulas, numbers, tokens and names);
the catalogues are complete and up to date with the code; the language switches live, both ways."""
from __future__ import annotations

import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from explorer.ui.i18n.translators import compiled_qm, language_manager, ts_path
from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import PANELS
from explorer.ui.shell.panel_walker import PanelWalker
from explorer.ui.i18n.text_walk import text_slots
from explorer.ui.settings import AppSettings
from i18n_checks import english_words, has_cjk

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import update_translations  # noqa: E402

#: Texts that come from explorer.core, which has no Qt and so no translations yet: (pattern, why it shows).
#: Only these may stay English on a Chinese screen. The screens walked here (every panel as it opens) show none:
#: core's messages appear only after a refusal — ConfigError under the studio's form, DemoError/CostError/
#: CuesError over a panel for impossible sizes, DatasetError/CheckpointError when a file cannot be read, a
#: model's ``summary()`` once one is inspected — each inside one of our translated sentences ("无法加载数据：{error}").
CORE_MESSAGES: tuple[tuple[str, str], ...] = ()


def _is_core_message(text: str) -> bool:
    return any(re.search(pattern, text) for pattern, _why in CORE_MESSAGES)


def _messages(path: Path) -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(path).getroot()
    return {(c.findtext("name"), m.findtext("source")): m for c in root.iter("context") for m in c.iter("message")}


def _fields(text: str) -> list[str]:
    return sorted(set(re.findall(r"\{[^{}]*\}|%n|%\d", text)))


def _roots(window: MainWindow) -> list:
    """The window and the menus of its menu bar (a panel's menu may have no parent widget)."""
    menus = [a.menu() for a in window.menuBar().actions() if isinstance(a.menu(), QMenu)]
    return [window, *menus]


def _settled_window(qtbot, tmp_path: Path) -> MainWindow:
    """A main window with every panel built and its first results drawn."""
    window = MainWindow(AppSettings(tmp_path / "settings"), device_probe=None)
    qtbot.addWidget(window)
    window.confirm_close = lambda reasons: True
    done: list[bool] = []
    walker = PanelWalker(window, window.keys(), lambda key: None, lambda: done.append(True), min_wait_ms=50)
    window.build_all_panels()
    walker.start()
    qtbot.waitUntil(lambda: bool(done), timeout=60_000)
    return window


def _english_left(window: MainWindow) -> list[str]:
    return [f"{slot.where}: {slot.text!r} -> {words}" for slot in text_slots(_roots(window))
            if not slot.data and (words := english_words(slot.text)) and not _is_core_message(slot.text)]


# ---------------------------------------------------------------------------------------------- catalogues
@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_catalogue_has_no_unfinished_or_vanished_entries(language: str) -> None:
    messages = _messages(ts_path(language))
    assert messages
    problems = []
    for (context, source), message in messages.items():
        translation = message.find("translation")
        if translation.get("type") in ("unfinished", "obsolete", "vanished"):
            problems.append(f"{context}: {source!r} is {translation.get('type')}")
            continue
        forms = [f.text or "" for f in translation.iter("numerusform")] or [translation.text or ""]
        if message.get("numerus") == "yes" and len(forms) != (1 if language == "zh_CN" else 2):
            problems.append(f"{context}: {source!r} has {len(forms)} plural forms")
        for form in forms:
            if not form.strip():
                problems.append(f"{context}: {source!r} has an empty translation")
            elif _fields(form) != _fields(source):
                problems.append(f"{context}: {source!r} -> {form!r}: placeholders differ")
    assert problems == []


def test_every_text_in_the_code_is_in_the_catalogues(tmp_path: Path) -> None:
    """lupdate over the package, into copies of the catalogues: nothing new, nothing gone."""
    for language in update_translations.CATALOGUES:
        shutil.copy(ts_path(language), tmp_path / ts_path(language).name)
    update_translations.update(tmp_path)
    for language in update_translations.CATALOGUES:
        before, after = _messages(ts_path(language)), _messages(tmp_path / ts_path(language).name)
        assert sorted(set(after) - set(before)) == [], \
            f"not in the {language} catalogue: run tools/update_translations.py"
        assert sorted(set(before) - set(after)) == [], f"gone from the code, still in the {language} catalogue"


def test_a_missing_or_older_qm_is_compiled_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer.ui.i18n.translators as i18n

    folder = tmp_path / "i18n"
    folder.mkdir()
    ts = folder / "attention_explorer_zh_CN.ts"
    shutil.copy(ts_path("zh_CN"), ts)
    monkeypatch.setattr(i18n, "i18n_dir", lambda: folder)
    monkeypatch.setenv(i18n.CACHE_DIR_ENV, str(tmp_path / "cache"))
    first = compiled_qm("zh_CN")
    assert first is not None and first.parent == tmp_path / "cache" / "i18n" and first.stat().st_size > 0
    assert compiled_qm("zh_CN") == first  # compiled once
    packaged = ts.with_suffix(".qm")
    shutil.copy(first, packaged)
    assert compiled_qm("zh_CN") == packaged  # the build's own .qm, as new as its source
    ts.write_text(ts.read_text(encoding="utf-8").replace("查询、键和值", "查询、键与值"), encoding="utf-8")
    edited = packaged.stat().st_mtime + 60
    os.utime(ts, (edited, edited))  # edited a minute after the build
    changed = compiled_qm("zh_CN")
    assert changed not in (first, packaged)  # the source changed: compiled again, under another name


# ---------------------------------------------------------------------------------------------- screens
def test_every_panel_in_chinese_leaves_nothing_in_english(qtbot, tmp_path: Path) -> None:
    language_manager().apply("zh_CN")
    window = _settled_window(qtbot, tmp_path)
    try:
        assert [k for k in window.keys() if window.panel_error(k)] == []
        assert _english_left(window) == []
        assert window.menuBar().actions()[0].text() == "文件(&F)"
    finally:
        window.shutdown(save=False)


def test_language_switches_live_both_ways(qtbot, tmp_path: Path) -> None:
    window = _settled_window(qtbot, tmp_path)
    try:
        scoring = window.panel("scoring")
        known = {"menu": lambda: window.menuBar().actions()[0].text(), "nav": lambda: window.nav.item(2).text(),
                 "group": lambda: scoring.lengths_group.title(), "tab": lambda: scoring.tabs.tabText(1),
                 "box": lambda: scoring.explanation_box.text(),
                 "plot": lambda: window.panel("kernel_regression").fit_plot.getPlotItem().titleLabel.text}
        english = {name: read() for name, read in known.items()}
        assert english == {"menu": "&File", "nav": "3. Scoring functions", "group": "Masking",
                           "tab": "Why divide by √d?", "box": "Formula and explanation", "plot": "Nadaraya–Watson fit"}

        window.language.choose("zh_CN")
        chinese = {name: read() for name, read in known.items()}
        assert chinese == {"menu": "文件(&F)", "nav": "3. 注意力评分函数", "group": "掩蔽", "tab": "为什么要除以 √d？",
                           "box": "公式与说明", "plot": "Nadaraya-Watson 拟合"}
        assert _english_left(window) == []
        assert window.settings.language == "zh_CN"

        window.language.choose("en")
        assert {name: read() for name, read in known.items()} == english
        left = [f"{s.where}: {s.text!r}" for s in text_slots(_roots(window)) if has_cjk(s.text) and s.text != "简体中文"]
        assert left == []
    finally:
        window.shutdown(save=False)


# ---------------------------------------------------------------------------------------------- each panel on its own
#: The panels that set their own texts in ``retranslate()`` (no main window, so no one else re-sets them).
SELF_TRANSLATING = ["multihead", "scoring", "positional", "attention_cues", "architecture_comparison",
                    "kernel_regression", "transformer_anatomy", "studio", "inspector"]


def _settle(qtbot, panel) -> None:  # type: ignore[no-untyped-def]
    """Wait until the panel's workers and debounces are idle (its first results drawn)."""
    from PySide6.QtCore import QTimer

    from explorer.ui.worker import LatestOnlyRunner

    qtbot.wait(100)
    qtbot.waitUntil(lambda: not any(r.is_busy() for r in panel.findChildren(LatestOnlyRunner))
                    and not any(t.isActive() and t.isSingleShot() for t in panel.findChildren(QTimer)),
                    timeout=30_000)


def _unlabelled_rows(panel) -> list[str]:  # type: ignore[no-untyped-def]
    """Form rows with a field but no label text (a label a ``retranslate()`` forgot to set)."""
    from PySide6.QtWidgets import QFormLayout, QLabel

    missing = []
    for form in panel.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            field = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            label = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            text = label.widget().text() if label is not None and isinstance(label.widget(), QLabel) else ""
            spanning = form.itemAt(row, QFormLayout.ItemRole.SpanningRole) is not None
            # a row of buttons (a layout) set beside the fields may go without a label; a single field may not
            if field is not None and field.widget() is not None and not spanning and not text:
                missing.append(f"row {row} of a form in {type(form.parentWidget()).__name__}")
    return missing


@pytest.mark.parametrize("key", SELF_TRANSLATING)
def test_a_panel_retranslates_itself_live(qtbot, key: str) -> None:
    """Built in English, switched to 简体中文 and back while shown: the panel's own ``retranslate()`` re-sets
    every text (nothing matches texts against the catalogue)."""
    from explorer.ui.shell.panel_registry import load_panel_class

    panel = load_panel_class(next(s.target for s in PANELS if s.key == key))()
    qtbot.addWidget(panel)
    try:
        _settle(qtbot, panel)
        assert _unlabelled_rows(panel) == []
        language_manager().apply("zh_CN")
        _settle(qtbot, panel)
        left = [f"{slot.where}: {slot.text!r} -> {words}" for slot in text_slots([panel])
                if not slot.data and (words := english_words(slot.text)) and not _is_core_message(slot.text)]
        assert left == []
        language_manager().apply("en")
        _settle(qtbot, panel)
        assert [f"{s.where}: {s.text!r}" for s in text_slots([panel]) if has_cjk(s.text)] == []
    finally:
        panel.shutdown(3000)


def test_texts_worded_from_values_are_worded_again(qtbot) -> None:
    """An inline message, a caption quoting numbers and a trained model's title follow the language both ways."""
    from explorer.ui.panels.kernel_regression.kernel_regression_panel import KernelRegressionPanel

    panel = KernelRegressionPanel()
    qtbot.addWidget(panel)
    try:
        panel._on_trainer_failed("boom")
        panel.losses, panel.learned_w = [0.5], 2.0
        panel._draw_training()
        english = (panel.inline_message(), panel.w_label.text(), panel.loss_plot.getPlotItem().titleLabel.text)
        assert english[0] == "Training w failed: boom" and english[1].startswith("learned w = 2")
        language_manager().apply("zh_CN")
        chinese = (panel.inline_message(), panel.w_label.text(), panel.loss_plot.getPlotItem().titleLabel.text)
        assert all(has_cjk(text) for text in chinese) and "boom" in chinese[0], chinese
        language_manager().apply("en")
        assert (panel.inline_message(), panel.w_label.text(),
                panel.loss_plot.getPlotItem().titleLabel.text) == english
    finally:
        panel.shutdown(3000)


def test_words_are_worded_again_in_the_language_in_force(qtbot) -> None:
    """A message made as Words (how states post theirs) is rendered anew by ``again``; a plain string is data."""
    from PySide6.QtCore import QCoreApplication

    from explorer.ui.i18n.words import Words, again
    from explorer.ui.panels.base_panel import BasePanel

    text = Words(lambda: QCoreApplication.translate("KernelRegressionPanel", "Training w failed: {message}").format(
        message="boom"))
    panel = BasePanel()
    qtbot.addWidget(panel)
    panel.show_inline_message(text)
    language_manager().apply("zh_CN")
    assert has_cjk(again(text)) and "boom" in again(text) and again("boom") == "boom"
    assert panel.inline_message() == again(text)
    language_manager().apply("en")
    assert again(text) == text == panel.inline_message() == "Training w failed: boom"


# ---------------------------------------------------------------------------------------------- a projector, in 简体中文
@pytest.mark.qt_log_ignore("propagateSizeHints")
@pytest.mark.parametrize("key", ["scoring", "kernel_regression", "transformer_anatomy", "studio"])
def test_chinese_panels_fit_a_1024x700_window(qtbot, key: str) -> None:
    """Chinese labels are wider or narrower than English ones: nothing is clipped at 1024×700 on any tab."""
    from layout_checks import settled_problems, window_around

    from explorer.ui.shell.panel_registry import load_panel_class

    language_manager().apply("zh_CN")
    panel = load_panel_class(next(s.target for s in PANELS if s.key == key))()
    window = window_around(panel)
    qtbot.addWidget(window)
    try:
        qtbot.waitExposed(window)
        tabs = getattr(panel, "tabs", None)
        for index in range(tabs.count() if tabs is not None else 1):
            if tabs is not None:
                tabs.setCurrentIndex(index)
            assert settled_problems(qtbot, window, panel) == [], (key, index)
    finally:
        panel.shutdown(3000)


# ---------------------------------------------------------------------------------------------- the command line
def test_language_option_renders_every_panel_in_chinese(tmp_path: Path) -> None:
    """``attention-explorer --language zh_CN --screenshots DIR`` (for this run: the setting is left alone)."""
    import subprocess

    from explorer.ui.app import build_parser

    assert build_parser().parse_args(["--language", "zh_CN"]).language == "zh_CN"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--language", "klingon"])
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path / "settings"))
    out = tmp_path / "shots"
    result = subprocess.run([sys.executable, "-m", "explorer", "--language", "zh_CN", "--screenshots", str(out),
                             "--size", "1024x700"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(p.name for p in out.glob("*.png")) == sorted(f"{spec.key}.png" for spec in PANELS)
    ini = tmp_path / "settings" / "attention-explorer.ini"
    assert not ini.exists() or "language" not in ini.read_text()


def test_a_font_draws_chinese(skip_outside_ci) -> None:  # type: ignore[no-untyped-def]
    """The 简体中文 screens need a font with Chinese glyphs (CI installs fonts-wqy-microhei)."""
    from PySide6.QtGui import QFontDatabase

    if not QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese):
        skip_outside_ci("no font with Chinese glyphs is installed (apt-get install fonts-wqy-microhei)")


def test_a_lesson_carries_its_language(qtbot, tmp_path: Path) -> None:
    """A lesson saved in 简体中文 opens in 简体中文 (and says so in the View → Language menu)."""
    from explorer.ui.shell.lessons.lesson import Lesson, read_lesson, write_lesson

    window = MainWindow(AppSettings(tmp_path / "settings"), panels=PANELS[:1], device_probe=None)
    qtbot.addWidget(window)
    window.classroom.show_dialogs = False
    try:
        write_lesson(tmp_path / "zh.json", Lesson(language="zh_CN"))
        assert window.classroom.open_lesson(str(tmp_path / "zh.json"))
        assert language_manager().language == "zh_CN" and window.menuBar().actions()[0].text() == "文件(&F)"
        assert [a.data() for a in window.menu_actions.language_group.actions() if a.isChecked()] == ["zh_CN"]
        assert window.classroom.save_lesson(str(tmp_path / "again.json"))
        assert read_lesson(tmp_path / "again.json", window.keys()).lesson.language == "zh_CN"
    finally:
        window.shutdown(save=False)
