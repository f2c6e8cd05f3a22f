"""The head summaries view: offsets shown signed and sorted as numbers, the offset map on a −8…8 scale, a data
file read as written for a Hugging Face model, and a warning when many tokens are unknown."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
import hf_tiny  # noqa: E402

from explorer.core.debug.head_summaries import SCORES, HeadSummaries  # noqa: E402
from explorer.core.inspect.token_roles import UnknownCount  # noqa: E402
from explorer.ui.panels.inspector.debug_state import DebugState  # noqa: E402
from explorer.ui.panels.inspector.head_summary_widget import COLUMNS, HeadSummaryView  # noqa: E402
from explorer.ui.panels.inspector.inspect_state import InspectState  # noqa: E402


@pytest.fixture
def view(qtbot):  # type: ignore[no-untyped-def]
    state = DebugState(InspectState())
    widget = HeadSummaryView(state)
    qtbot.addWidget(widget)
    return widget


def _summary(unknown: int) -> HeadSummaries:
    scores = {name: np.full((2, 2), 0.25) for name in SCORES}
    scores["offset"] = np.array([[-1.0, 2.0], [0.0, -8.0]])
    return HeadSummaries({"encoder": scores}, 3, [], {}, UnknownCount(unknown, 100, "[UNK]"))


def test_offsets_are_signed_and_sorted_as_numbers(view: HeadSummaryView) -> None:
    view._on_state_summarized(_summary(unknown=1))
    column = COLUMNS.index("offset")
    shown = [view.table_model.item(r, column).text() for r in range(view.table_model.rowCount())]
    assert shown == ["-1", "+2", "+0", "-8"]
    view.table.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    assert [view.table_model.item(r, column).text() for r in range(4)] == ["-8", "-1", "+0", "+2"]
    assert "Warning" not in view.status.text()
    view.score_combo.setCurrentIndex(SCORES.index("offset"))  # drawn on a −8 … 8 scale without error


def test_many_unknown_tokens_are_said(view: HeadSummaryView) -> None:
    view._on_state_summarized(_summary(unknown=30))
    assert "30 of 100 tokens" in view.status.text() and "[UNK]" in view.status.text()


def test_a_text_file_is_read_as_written_for_a_hugging_face_model(view: HeadSummaryView, tmp_path: Path,
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    hf_tiny.require_hf_extra(module_level=False)
    from explorer.core.inspect.opening import open_model

    view.state.inspect.opened = open_model(hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny"))
    view.state.inspect.choice = "opened"
    data = tmp_path / "texts.txt"
    data.write_text("The Cat sat.\nA dog,  running!\n", encoding="utf-8")
    assert view.state.pairs("file", 10, str(data)) == [("The Cat sat.", ""), ("A dog,  running!", "")]


def test_the_inspect_tab_warns_when_many_tokens_are_unknown(qtbot, tmp_path_factory: pytest.TempPathFactory) -> None:
    hf_tiny.require_hf_extra(module_level=False)
    from explorer.core.inspect.opening import open_model

    state = InspectState()
    state.opened = open_model(hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny"))
    state.choice = "opened"
    posted: list[tuple[str, str]] = []
    state.message_posted.connect(lambda text, level: posted.append((str(text), level)))
    with qtbot.waitSignal(state.inspected, timeout=60_000):
        assert state.inspect("the cat sat on the mat .")
    assert not [p for p in posted if p[1] == "alert"]
    with qtbot.waitSignal(state.inspected, timeout=60_000):
        assert state.inspect("zebras and quokkas sat on the mat .")
    alerts = [text for text, level in posted if level == "alert"]
    assert len(alerts) == 1 and "[UNK]" in alerts[0] and "3 of 10 tokens" in alerts[0]
    state.shutdown(2000)
