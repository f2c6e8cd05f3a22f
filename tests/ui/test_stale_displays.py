"""What the studio and the inspector show stays true to what happened last: a staged grid build stops with its grid,
Translate counts the words it cut as the core does, a paused replay names one step, tokens per second come from one
record, a banner can be closed and leaves the controls free, an opened run shows its own settings, tokens in angle
brackets keep their brackets, and Reset, a failed translation, a finished followed run and another model leave
nothing of what came before."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QWidget

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
import debug_helpers  # noqa: E402

from explorer.core.data.text import build_dataset  # noqa: E402
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig  # noqa: E402
from explorer.core.training.events import FinishedEvent, StepEvent  # noqa: E402
from explorer.paths import demo_run_dir  # noqa: E402
from explorer.ui.panels.base_panel import BasePanel  # noqa: E402
from explorer.ui.panels.studio.run_progress import ProgressTracker  # noqa: E402
from explorer.ui.widgets.attention_grid_widget import AttentionGrid, uniform_layout  # noqa: E402
from explorer.ui.widgets.heatmap_widget import HeatmapWidget  # noqa: E402

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
TIMEOUT = 30_000


def step_event(step: int, tokens_per_s: float = 1000.0) -> StepEvent:
    return StepEvent(step=step, epoch=1, loss=1.0, book_loss=0.1, tokens=100, tokens_per_s=tokens_per_s,
                     elapsed_s=float(step), epoch_fraction=step / 10, progress=step / 100, grad_norm=1.0)


# ---------------------------------------------------------------- a staged build and its grid
def test_a_staged_grid_build_stops_when_its_grid_is_closed(qtbot) -> None:
    from PySide6.QtWidgets import QVBoxLayout

    page = QWidget()  # in a page, as in the studio and the inspector
    qtbot.addWidget(page)
    grid = AttentionGrid()
    QVBoxLayout(page).addWidget(grid)
    grid.prepare_layout(uniform_layout(2, 4), staged=True)
    QApplication.processEvents()  # the first stage only
    grid.close()  # pyqtgraph's close() deletes the scene's items, the grid's layout among them
    for _ in range(40):  # a stage left running would raise "Internal C++ object already deleted"
        QApplication.processEvents()
    assert grid.layout is None


# ---------------------------------------------------------------- Translate's count of cut words
def tiny_model(num_steps: int = 10):  # type: ignore[no-untyped-def]
    words = "very good i am home".split()
    data = build_dataset([(" ".join(words), "tres bien je suis")] * 4, num_steps, min_freq=1)
    torch.manual_seed(0)
    model = Seq2SeqTransformer(TransformerConfig(num_hiddens=8, num_layers=1, num_heads=2, ffn_num_hiddens=8,
                                                 dropout=0.0), len(data.src_vocab), len(data.tgt_vocab)).eval()
    return model, data.src_vocab, data.tgt_vocab


def test_translate_counts_the_words_it_cut_as_the_model_read_them(studio_panel) -> None:
    view = studio_panel.translate_view
    view.set_model(*tiny_model(), 10, "tiny")
    view.sentence_edit.setText(" ".join(["very"] * 13))
    result = view.translate_now()
    assert result is not None and len(result.src_tokens) == 10  # the map's columns: ten words read
    assert result.dropped == ["very"] * 3
    text = view.output_label.text()
    assert "reads at most 10 words" in text and "cut off very very very<" in text
    view.sentence_edit.setText("very good")  # typed after translating: the note stays the translation's
    view._show_result(result)
    assert "cut off very very very<" in view.output_label.text()


# ---------------------------------------------------------------- a paused replay names one step
def test_a_paused_replay_names_the_step_it_stopped_at_once(qtbot, studio_panel) -> None:
    panel, state = studio_panel, studio_panel.studio_state
    messages: list[str] = []
    state.message_posted.connect(lambda text, _level: messages.append(str(text)))
    panel.controls.speed_combo.setCurrentIndex(0)  # slow: nothing else arrives while the test runs
    assert panel.replay_run(str(demo_run_dir()))
    qtbot.waitUntil(lambda: state.latest_step is not None and state.latest_step.step >= 1, timeout=TIMEOUT)
    state.pause()
    late = state.latest_step.step + 2  # what was on its way to the GUI thread when Pause was pressed
    state._on_worker_yielded([step_event(late - 1), step_event(late)])
    qtbot.waitUntil(lambda: any("Replay paused at step" in m for m in messages), timeout=TIMEOUT)
    qtbot.wait(200)
    said = [m for m in messages if "Replay paused at step" in m]
    assert len(said) == 1 and f"Replay paused at step {late}" in said[0]
    assert state.latest_step.step == late and f"paused at step {late}" in panel.controls.info_label.text()


# ---------------------------------------------------------------- one tokens-per-second figure
def test_a_finished_run_shows_the_tokens_per_second_of_its_finished_record() -> None:
    tracker = ProgressTracker()
    tracker.on_step(step_event(100, tokens_per_s=22_789.0))
    tracker.on_finished(FinishedEvent(step=100, epoch=10, loss=0.45, book_loss=0.045, tokens_per_s=22_754.0,
                                      elapsed_s=100.0, stopped=False, device="cpu"))
    progress = tracker.progress(10, "cpu", "finished")
    assert progress is not None and progress.tokens_per_s == 22_754.0


# ---------------------------------------------------------------- a resumed run's progress
def test_after_a_resume_the_progress_starts_from_the_checkpoints_epoch(tmp_path) -> None:
    """A run checkpointed at epoch 2 (every second epoch) is killed in epoch 4, after training epoch 3 at a rate
    changed after the checkpoint; resumed from epoch 2, it trains epochs 3 and 4 again, at the old rate."""
    from types import SimpleNamespace

    from run_helpers import tiny_config, tiny_dataset

    from explorer.core.runs.follower import RunFollower
    from explorer.core.runs.writer import RunWriter
    from explorer.core.training.state import load_training_checkpoint
    from explorer.core.training.trainer import Trainer
    from explorer.ui.panels.studio.run_feed import RunFeed

    ds, run = tiny_dataset(), tmp_path / "run"
    killed = Trainer(tiny_config(4), ds)
    with RunWriter.create(run, killed, {"spec": "test", "name": "test"}, probes=ds.pairs[:2],
                          checkpoint_every=2) as writer:
        for event in killed:
            writer.on_event(event)
            if event.kind == "epoch" and event.epoch == 2:
                killed.change_settings(lr=20 * killed.config.lr)  # the killed run's epoch 3 differs
            if event.kind == "step" and event.epoch == 4:
                break  # killed one step into epoch 4 (a kill leaves no finished line)
    _, state = load_training_checkpoint(run / "checkpoints" / "last.safetensors")
    assert state.epoch == 2
    resumed = Trainer(tiny_config(4), ds, resume=state)
    with RunWriter.resume(run, resumed) as writer:
        for event in resumed:
            writer.on_event(event)
    events = [e for e in RunFollower(run).poll() if e.kind != "snapshot"]
    kinds = [e.kind for e in events]
    first_after = kinds.index("step", kinds.index("resumed"))
    killed_epoch3 = [e.loss for e in events[:kinds.index("resumed")] if e.kind == "epoch" and e.epoch == 3]
    feed = RunFeed(SimpleNamespace(add=lambda _snapshot: None), lambda: None)
    for event in events[:first_after + 1]:  # up to the resumed run's first step (epoch 3, trained again)
        feed.record(event)
    loss, label = feed.progress.shown_loss()
    assert (loss, str(label)) == (pytest.approx(resumed.history.epoch_loss[1]), "epoch 2, per token")
    assert killed_epoch3 and killed_epoch3[0] != pytest.approx(resumed.history.epoch_loss[2], rel=1e-3)
    for event in events[first_after + 1:kinds.index("epoch", first_after) + 1]:  # to the end of epoch 3
        feed.record(event)
    loss, label = feed.progress.shown_loss()
    assert (loss, str(label)) == (pytest.approx(resumed.history.epoch_loss[2]), "epoch 3, per token")


# ---------------------------------------------------------------- banners
class FormPanel(BasePanel):
    key, title = "form", "Form"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from PySide6.QtWidgets import QPushButton, QTabWidget

        self.tabs = QTabWidget()
        page = QWidget()
        self.button = QPushButton("a control at the top of the page", page)
        self.tabs.addTab(page, "one")
        self.body_layout.addWidget(self.tabs)


def test_a_banner_covers_no_control_and_has_a_close_button(qtbot) -> None:
    panel = FormPanel()
    qtbot.addWidget(panel)
    panel.resize(800, 500)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_inline_message("Could not read that run's losses: not a run")
    qtbot.wait(20)
    banner = QRect(panel.message_banner.mapTo(panel, QPoint(0, 0)), panel.message_banner.size())
    button = QRect(panel.button.mapTo(panel, QPoint(0, 0)), panel.button.size())
    tab_bar = panel.tabs.tabBar()
    tabs = QRect(tab_bar.mapTo(panel, QPoint(0, 0)), tab_bar.size())
    assert panel.inline_message() and not banner.intersects(button) and not banner.intersects(tabs)
    assert panel.childAt(button.center()) is panel.button  # clicks reach the control
    qtbot.mouseClick(panel.message_close_button, Qt.MouseButton.LeftButton)
    assert panel.inline_message() == "" and not panel.message_banner.isVisible()


def test_a_studio_banner_goes_when_the_user_acts_again(qtbot, studio_panel, tmp_path) -> None:
    panel = studio_panel
    qtbot.waitUntil(lambda: panel.source is not None and not panel.is_loading(), timeout=TIMEOUT)
    assert panel.replay_run(str(demo_run_dir()), 0.1)
    assert not panel.overlay_run(str(tmp_path))  # not a run
    qtbot.wait(100)
    assert "Could not read" in panel.inline_message()  # it stays while the replay goes on
    panel.controls.pause_button.click()  # the user acts again: the overlay's banner goes
    assert panel.inline_message() == "" and panel.state == "paused"
    assert not panel.overlay_run(str(tmp_path)) and panel.inline_message()
    panel.controls.stop_button.click()
    assert panel.inline_message() == ""


def test_an_inspector_banner_can_be_closed(qtbot, tmp_path) -> None:
    from explorer.ui.panels.inspector.inspector_panel import InspectorPanel

    panel = InspectorPanel()
    qtbot.addWidget(panel)
    (tmp_path / "config.json").write_text("{}")
    with qtbot.waitSignal(panel.model_open_finished, timeout=TIMEOUT):
        panel.open_model(str(tmp_path))
    assert "Could not open" in panel.inline_message()
    panel.message_close_button.click()
    assert panel.inline_message() == ""
    panel.shutdown(3000)


# ---------------------------------------------------------------- an opened run's settings
def test_a_replayed_run_shows_its_own_settings_and_probe(qtbot, studio_panel) -> None:
    panel, state = studio_panel, studio_panel.studio_state
    panel.form.set_values({"num_epochs": 7, "batch_size": 8, "num_hiddens": 64})
    panel.data.set_probe("go .", "va !", user=True)
    assert panel.replay_run(str(demo_run_dir()), 0.1)
    qtbot.waitUntil(lambda: state.run_feed.started is not None, timeout=TIMEOUT)
    config = state.run_config
    values = panel.form.values()
    assert (values["num_epochs"], values["batch_size"], values["num_hiddens"]) == (
        config.num_epochs, config.batch_size, config.model.num_hiddens)
    assert panel.data.probe() == tuple(state.run_feed.started.probe)
    state.stop()


# ---------------------------------------------------------------- tokens in angle brackets
def test_a_hovered_cell_keeps_tokens_in_angle_brackets(qtbot) -> None:
    heatmap = HeatmapWidget()
    qtbot.addWidget(heatmap)
    heatmap.set_matrix(np.eye(2, dtype=np.float32), ["lost", "<eos>"], ["i", "<eos>"])
    heatmap._on_image_cell_hovered(0, 1, 1.0)
    assert "&lt;eos&gt;" in heatmap.readout.text and "<eos>" not in heatmap.readout.text


# ---------------------------------------------------------------- the studio's leftovers
def test_a_failed_translation_removes_the_previous_one(studio_panel) -> None:
    view = studio_panel.translate_view
    view.set_model(*tiny_model(), 10, "tiny")
    view.sentence_edit.setText("very good")
    assert view.translate_now() is not None and view.output_label.text()
    view.sentence_edit.setText("   ")
    assert view.translate_now() is None
    assert view.error_label.text() and view.output_label.text() == "" and view.result is None
    assert view.stack.showing_hint


def test_following_a_finished_run_ends_once_its_model_is_in(qtbot, studio_panel) -> None:
    panel = studio_panel
    assert panel.open_run(str(demo_run_dir()))
    assert panel.controls.stop_button.text() == "Stop following"
    qtbot.waitUntil(lambda: panel.state == "finished" and panel.record is not None, timeout=TIMEOUT)
    assert panel.controls.stop_button.text() == "Stop" and not panel.controls.stop_button.isEnabled()
    assert "epoch 200" in panel.record.origin  # the run's last model


# ---------------------------------------------------------------- the inspector after another model
@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.getbasetemp() / "stale_tiny"
    return debug_helpers.trained_checkpoint(root, epochs=20), debug_helpers.trained_checkpoint(root, 20, seed=1)


def test_another_model_clears_explain_and_ablation(qtbot, checkpoints) -> None:
    from explorer.ui.panels.inspector.debug_widget import DebugTabs
    from explorer.ui.panels.inspector.inspector_panel import InspectorPanel

    panel = InspectorPanel()
    qtbot.addWidget(panel)
    panel.resize(1024, 700)
    inspect, debug = panel.inspector_state.inspect, panel.inspector_state.debug
    inspect.source, inspect.target = "i lost .", "j'ai perdu ."
    with qtbot.waitSignal(inspect.inspected, timeout=TIMEOUT):
        panel.open_model(str(checkpoints[0]))
    tabs = panel.findChild(DebugTabs)
    with qtbot.waitSignal(debug.explained, timeout=TIMEOUT):
        tabs.explain.request("cross", 0, 0, 0, 0)
    assert tabs.explain.explanation is not None and tabs.explain.vectors.isVisibleTo(tabs.explain)
    ablation = tabs.ablation
    ablation.set_combo.setCurrentIndex(ablation.set_combo.findData("probe"))
    with qtbot.waitSignal(debug.evaluated, timeout=TIMEOUT):
        ablation.measure()
    assert "i lost . → " in ablation.result.text()  # each line names its source
    with qtbot.waitSignal(debug.sweep_ended, timeout=TIMEOUT):
        ablation.sweep_button.click()
    assert ablation.table_model.rows
    with qtbot.waitSignal(inspect.inspected, timeout=TIMEOUT):
        panel.open_model(str(checkpoints[1]))
    assert tabs.explain.explanation is None and not tabs.explain.vectors.isVisibleTo(tabs.explain)
    assert "Click a cell" in tabs.explain.steps.text()
    assert ablation.table_model.rows == [] and "head(s) off" not in ablation.result.text()
    panel.shutdown(3000)


# ---------------------------------------------------------------- the time-lapse's loss
def test_a_time_lapse_frame_names_its_loss_as_the_loss_of_its_step(qapp) -> None:
    from types import SimpleNamespace

    from explorer.core.runs.timelapse import build_timelapse
    from explorer.render.timelapse_frame import frame_caption

    maps = {"cross": np.full((1, 1, 2, 2), 0.5, dtype=np.float32)}
    snap = SimpleNamespace(step=20, epoch=2, maps=maps, src_tokens=["a", "<eos>"], tgt_tokens=["b", "<eos>"],
                           tgt_input_tokens=["<bos>", "b"])
    lapse = build_timelapse([snap], np.array([10.0, 20.0]), np.array([0.5, 0.423]))
    _, when = frame_caption(lapse, lapse.frames[-1])
    assert "this step's loss 0.423" in when


def test_the_studios_reset_clears_the_ablation_of_its_model(qtbot, checkpoints) -> None:
    from explorer.ui.panels.inspector.debug_widget import DebugTabs
    from explorer.ui.panels.inspector.inspector_panel import InspectorPanel
    from explorer.ui.panels.studio.followed_run import checkpoint_record

    panel = InspectorPanel()
    qtbot.addWidget(panel)
    inspect, debug = panel.inspector_state.inspect, panel.inspector_state.debug
    inspect.source, inspect.target = "i lost .", "j'ai perdu ."
    inspect.offer(checkpoint_record(str(checkpoints[0]), "studio"))  # the studio's model, through the exchange
    ablation = panel.findChild(DebugTabs).ablation
    ablation.set_combo.setCurrentIndex(ablation.set_combo.findData("probe"))
    with qtbot.waitSignal(debug.evaluated, timeout=TIMEOUT):
        ablation.measure()
    with qtbot.waitSignal(debug.sweep_ended, timeout=TIMEOUT):
        ablation.sweep_button.click()
    assert ablation.table_model.rows and "head(s) off" in ablation.result.text()
    inspect.offer(None)  # the studio's Reset: its model is gone
    assert ablation.table_model.rows == [] and "head(s) off" not in ablation.result.text()
    panel.shutdown(3000)
