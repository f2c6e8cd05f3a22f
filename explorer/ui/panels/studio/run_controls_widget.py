"""The studio's training controls (book §11.7): Start, Pause/Resume, Step, Stop, Reset, a progress bar and, while a
recorded run is replayed, its speed."""
from __future__ import annotations

import math

from typing import Any

from PySide6.QtCore import QEvent, Signal, Slot
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QProgressBar, QPushButton, QWidget

from explorer.core.runs.replay import SPEEDS
from explorer.ui.i18n.words import Words, again

STATES = ("idle", "starting", "running", "paused", "stopping", "finished", "following")


def format_duration(seconds: float) -> str:
    """``75 -> '1:15'``, ``3725 -> '1:02:05'``; '–' for unknown."""
    if not math.isfinite(seconds) or seconds < 0:
        return "–"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class TrainingControls(QWidget):
    """Buttons whose enabled state follows the run state, plus progress, epoch, ETA and tokens/s.

    The panel connects the buttons' ``clicked`` signals; :meth:`set_state` enables what makes sense.
    ``replay_speed_chosen(float)``: the user chose another speed for the run being replayed.
    """

    replay_speed_chosen = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.start_button, self.pause_button, self.step_button = (QPushButton(self), QPushButton(self),
                                                                  QPushButton(self))
        self.stop_button, self.reset_button = QPushButton(self), QPushButton(self)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.setFormat("")
        self.info_label = QLabel(self)
        self._info = ""  # what the line under the bar says (Words re-worded in retranslate)
        self.speed_label = QLabel(self)
        self.speed_combo = QComboBox(self)
        for speed in SPEEDS:
            self.speed_combo.addItem(f"{speed:g}×", speed)
        self.speed_combo.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_label.setBuddy(self.speed_combo)
        self.speed_combo.activated.connect(self._on_speed_combo_activated)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for col, button in enumerate((self.start_button, self.pause_button, self.step_button)):
            layout.addWidget(button, 0, 2 * col, 1, 2)  # two rows of buttons keep the column narrow (≥ 1024 px screens)
        layout.addWidget(self.stop_button, 1, 0, 1, 3)
        layout.addWidget(self.reset_button, 1, 3, 1, 3)
        layout.addWidget(self.progress, 2, 0, 1, 6)
        layout.addWidget(self.info_label, 3, 0, 1, 6)
        layout.addWidget(self.speed_label, 4, 0, 1, 2)
        layout.addWidget(self.speed_combo, 4, 2, 1, 4)
        self.info_label.setWordWrap(True)
        self.state = "idle"
        self._can_start = True
        self._awaiting_progress = False  # started, no progress shown yet: the line says "Starting…"
        self.set_state("idle")
        self.show_replay(None)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, the buttons' and the progress line's worded from the state
        (at build and on ``LanguageChange``)."""
        self.start_button.setText(self.tr("Start"))
        self.step_button.setText(self.tr("Step"))
        self.reset_button.setText(self.tr("Reset"))
        self.start_button.setToolTip(self.tr("Train a fresh model with the settings above"))
        self.pause_button.setToolTip(self.tr("Pause training (the model can then be inspected and used to translate)"))
        self.step_button.setToolTip(self.tr("While paused: train on exactly one more batch"))
        self.stop_button.setToolTip(self.tr("End training; the model trained so far is kept"))
        self.reset_button.setToolTip(self.tr("Forget the model, the loss curves and the attention history"))
        self.speed_label.setText(self.tr("Replay speed"))
        self.speed_combo.setToolTip(self.tr("Recorded seconds per second: the replay shows the run as it was trained, "
                                            "this many times as fast"))
        self._word_buttons()
        self.info_label.setText(again(self._info))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _say(self, text: str) -> None:
        self._info = text
        self.info_label.setText(text)

    def _word_buttons(self) -> None:
        """Pause or Resume, Stop or Stop following, as the state says."""
        self.pause_button.setText(self.tr("Resume") if self.state == "paused" else self.tr("Pause"))
        self.stop_button.setText(self.tr("Stop following") if self.state == "following" else self.tr("Stop"))

    @Slot(object)
    def show_replay(self, speed: float | None) -> None:
        """Show the replay's ``speed`` (the nearest offered), or hide the speed row when nothing is replayed."""
        for widget in (self.speed_label, self.speed_combo):
            widget.setVisible(speed is not None)
        if speed is not None:
            nearest = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
            self.speed_combo.setCurrentIndex(nearest)

    def chosen_speed(self) -> float:
        """The speed in the combo (a replay started from the menu begins at it)."""
        return float(self.speed_combo.currentData())

    @Slot(int)
    def _on_speed_combo_activated(self, index: int) -> None:
        self.replay_speed_chosen.emit(float(self.speed_combo.itemData(index)))

    def set_can_start(self, ok: bool) -> None:
        """Whether the settings are valid (Start stays disabled otherwise)."""
        self._can_start = bool(ok)
        self.set_state(self.state)

    @Slot(str)
    def set_state(self, state: str) -> None:
        """Enable the buttons that fit ``state`` (one of :data:`STATES`)."""
        if state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        self.state = state
        active = state in ("starting", "running", "paused")
        if state == "starting":
            self.progress.setValue(0)
            self.progress.setFormat("")
            self._say(Words(lambda: self.tr("Starting the training process…")))
            self._awaiting_progress = True
        self.start_button.setEnabled(self._can_start and state in ("idle", "finished"))
        self.pause_button.setEnabled(active)
        self.step_button.setEnabled(state == "paused")
        self.stop_button.setEnabled(active or state == "following")
        self._word_buttons()
        self.reset_button.setEnabled(state in ("idle", "finished", "paused", "running", "following"))
        if state == "idle" or (state == "finished" and self._awaiting_progress):  # a start that failed says so no more
            self.reset_progress()

    def reset_progress(self) -> None:
        """Empty bar, 'Not started'."""
        self._awaiting_progress = False
        self.progress.setValue(0)
        self.progress.setFormat("")
        self._say(Words(lambda: self.tr("Not started")))

    @Slot(object)
    def show_progress(self, p: Any) -> None:
        """Bar at ``p.fraction`` in [0, 1]; text: epoch, the labelled loss, then ETA and tokens/s while running,
        else where it paused or stopped. ``p`` is a ``studio_state.Progress``."""
        fraction = min(max(p.fraction, 0.0), 1.0)
        self._awaiting_progress = False
        self.progress.setValue(int(round(fraction * 1000)))
        self.progress.setFormat(f"{fraction:.0%}")
        self._say(Words(lambda: self._progress_text(p, fraction)))

    def _progress_text(self, p: Any, fraction: float) -> str:
        eta = p.elapsed_s * (1.0 - fraction) / fraction if fraction > 0 else float("nan")
        if p.run_state == "paused":
            text = self.tr("epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · paused at step {step}")
        elif p.run_state == "stopping":
            text = self.tr("epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · stopping at step {step}")
        elif p.run_state == "finished" and fraction >= 1.0:
            text = self.tr("epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · finished, {rate:,.0f} tokens/s")
        elif p.run_state == "finished":
            text = self.tr("epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · stopped at step {step}")
        elif fraction < 1.0:
            text = self.tr("epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · ETA {eta} · {rate:,.0f} tokens/s")
        else:
            text = self.tr("epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · {rate:,.0f} tokens/s")
        text = text.format(epoch=p.epoch, epochs=p.num_epochs, loss=p.loss, label=again(p.loss_label), step=p.step,
                           rate=p.tokens_per_s, eta=format_duration(eta))
        return f"{text} · {again(p.device)}" if p.device else text
