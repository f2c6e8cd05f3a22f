"""简体中文 (issue 15): every panel shown in zh_CN has no English left (but formulas, numbers, tokens and names);
the catalogues are complete and up to date with the code; the language switches live, both ways."""
from __future__ import annotations

import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from explorer.ui.i18n import compiled_qm, language_manager, ts_path
from explorer.ui.main_window import MainWindow
from explorer.ui.panel_walker import PanelWalker
from explorer.ui.retranslate import text_slots
from explorer.ui.settings import AppSettings
from i18n_checks import english_words, has_cjk

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import update_translations  # noqa: E402

#: Texts that come from explorer.core, which has no Qt and so no translations yet: (pattern, why it may show).
#: Only these may stay English on a Chinese screen; each names the core function whose message it is.
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
        assert sorted(set(after) - set(before)) == [], f"not in the {language} catalogue: run tools/update_translations.py"
        assert sorted(set(before) - set(after)) == [], f"gone from the code, still in the {language} catalogue"


def test_a_missing_or_older_qm_is_compiled_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer.ui.i18n as i18n

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
                 "box": lambda: scoring.explanation_box.title(),
                 "plot": lambda: window.panel("kernel_regression").fit_plot.getPlotItem().titleLabel.text}
        english = {name: read() for name, read in known.items()}
        assert english == {"menu": "&File", "nav": "3. Scoring functions", "group": "Masking",
                           "tab": "Why divide by √d?", "box": "Formula and explanation", "plot": "Nadaraya–Watson fit"}

        window.set_language("zh_CN")
        chinese = {name: read() for name, read in known.items()}
        assert chinese == {"menu": "文件(&F)", "nav": "3. 注意力评分函数", "group": "掩蔽", "tab": "为什么要除以 √d？",
                           "box": "公式与说明", "plot": "Nadaraya-Watson 拟合"}
        assert _english_left(window) == []
        assert window.settings.language == "zh_CN"

        window.set_language("en")
        assert {name: read() for name, read in known.items()} == english
        left = [f"{s.where}: {s.text!r}" for s in text_slots(_roots(window)) if has_cjk(s.text) and s.text != "简体中文"]
        assert left == []
    finally:
        window.shutdown(save=False)
