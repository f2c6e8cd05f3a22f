"""Helpers of the robustness suite, also used by the bench scripts: a tiny training setup,
the GUI stall meter (a 16 ms QTimer measuring lateness) and the figures file of a report run."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

#: Where the figures of a run go (set by bench/robustness_report.py); unset: nothing is written.
STATS_ENV = "ROBUSTNESS_STATS"


def record_stat(name: str, value: Any) -> None:
    """Merge ``{name: value}`` into the JSON file named by ``$ROBUSTNESS_STATS`` (if set)."""
    target = os.environ.get(STATS_ENV)
    if not target:
        return
    path = Path(target)
    data = json.loads(path.read_text()) if path.is_file() else {}
    if isinstance(value, (int, float)) and isinstance(data.get(name), (int, float)) and name.startswith("max_"):
        value = max(value, data[name])
    data[name] = value
    path.write_text(json.dumps(data))


# ----------------------------------------------------------------------------------- a tiny model
TINY_PAIRS = [("go .", "va !"), ("i lost .", "j'ai perdu ."), ("he's calm .", "il est calme ."),
              ("i'm home .", "je suis chez moi ."), ("hi .", "salut !"), ("run !", "cours !")] * 3


def tiny_config(**overrides: Any) -> Any:
    from explorer.core.training.config import TrainingConfig
    from explorer.core.model.transformer import TransformerConfig

    model = TransformerConfig(num_hiddens=8, num_layers=1, num_heads=2, ffn_num_hiddens=16, dropout=0.0)
    values: dict[str, Any] = dict(model=model, batch_size=6, num_steps=6, lr=0.01, num_epochs=2, device="cpu",
                                  snapshot_every=0, min_freq=1)
    values.update(overrides)
    return TrainingConfig(**values)


def tiny_dataset(config: Any) -> Any:
    from explorer.core.data.text import build_dataset

    return build_dataset(TINY_PAIRS, config.num_steps, min_freq=config.min_freq)


# ----------------------------------------------------------------------------------- GUI stall meter
class StallMeter:
    """A 16 ms QTimer on the GUI thread; ``worst_ms`` is the largest lateness of a tick seen so far."""

    INTERVAL_MS = 16

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.worst_ms = 0.0
        self.ticks = 0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(self.INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        late = (now - self._last) * 1000.0 - self.INTERVAL_MS
        self.worst_ms = max(self.worst_ms, late)
        self.ticks += 1
        self._last = now


# ----------------------------------------------------------------------------------- process figures
def rss_mb() -> float:
    """Resident memory of this process in MB (Linux ``/proc``; peak RSS elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def os_thread_count() -> int:
    """Operating-system threads of this process (a QThread left running shows up here)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


#: The studio's smallest sensible run: 48 built-in pairs, batches of 8 (6 steps an epoch), a 1-layer model.
TINY_STUDIO = dict(num_hiddens=8, num_layers=1, num_heads=2, ffn_num_hiddens=16, dropout=0.0, batch_size=8,
                   num_steps=6, lr=0.01, snapshot_every=2, min_freq=1, seed=0, device="cpu")


def configure_tiny_studio(panel: Any, epochs: int) -> None:
    """Fill a ``StudioPanel`` form for a tiny run of ``epochs`` epochs on 48 pairs."""
    panel.form.set_values({**TINY_STUDIO, "num_epochs": epochs})
    if panel.data.num_examples.value() != 48:
        panel.data.num_examples.setValue(48)
    assert panel.controls.start_button.isEnabled(), panel.inline_message()
