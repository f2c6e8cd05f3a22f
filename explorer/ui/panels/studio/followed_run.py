"""A run directory the studio follows (docs/RUNS.md): a core ``RunFollower`` polled on a superqt generator worker
until the user stops following, or replayed at a chosen speed (``core.run_replay``), and the loading of the run's
latest checkpoint to translate with."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from explorer.core.training.checkpoint import load_model
from explorer.core.runs.follower import RunFollower
from explorer.core.runs.replay import ReplayClock, replay_run
from explorer.core.runs.stream import follow_run
from explorer.ui.i18n.words import Words
from explorer.ui.panels.studio.model_files import ModelRecord
from explorer.ui.worker import generator_worker


class FollowedRun:
    """One followed run: ``worker`` yields its events (connect, then :meth:`start`); :meth:`stop` ends it.

    With a ``clock`` the run is replayed as recorded, at the clock's speed (pause, one step and speed are the
    clock's), instead of handed over as fast as it is read.
    Raises ``RunDirError`` (a ``ValueError`` with a message for users) when ``path`` is not a readable run.
    """

    def __init__(self, path: str, clock: ReplayClock | None = None) -> None:
        # small reads per poll: a long run arrives over several polls, each short, so the GUI thread gets the GIL
        self.follower = RunFollower(path, max_bytes=256 * 1024, max_snapshots=8)
        self.path = Path(path)
        self.clock = clock
        self._stop = threading.Event()
        if clock is None:
            self.worker = generator_worker(follow_run, self.follower, self._stop)
        else:
            self.worker = generator_worker(replay_run, self.follower, clock)

    @property
    def name(self) -> str:
        return self.path.name

    def start(self) -> None:
        self.worker.start()

    def pause(self) -> None:
        """Pause a replay (a followed run goes on as it is written)."""
        if self.clock is not None:
            self.clock.pause()

    def resume(self) -> None:
        if self.clock is not None:
            self.clock.resume()

    def request_step(self) -> None:
        """While a replay is paused: hand out one more recorded step."""
        if self.clock is not None:
            self.clock.request_step()

    def stop(self) -> None:
        """Stop polling or replaying (the worker ends within one poll interval); the run on disk is untouched."""
        self._stop.set()
        if self.clock is not None:
            self.clock.stop()
        self.worker.quit()

    def close(self, timeout_ms: int | None = None) -> None:
        """Stop (nothing to wait for: no process)."""
        self.stop()


def checkpoint_record(path: str, run_name: str) -> ModelRecord:
    """The model of a run's checkpoint as the studio's model on offer (runs on a worker thread).

    Raises ``CheckpointError``/``OSError`` with a message fit for users."""
    loaded = load_model(path, device="cpu")
    steps = len(getattr(loaded.history, "step_loss", None) or [])
    epochs = len(getattr(loaded.history, "epoch_loss", None) or [])
    num_steps = loaded.train_config.num_steps if loaded.train_config is not None else 10
    origin = Words.formatted(lambda: QCoreApplication.translate(
        "FollowedRun", "run {name}, its checkpoint after epoch {epoch} (step {step})"), name=run_name, epoch=epochs,
        step=steps)
    return ModelRecord(loaded.model, loaded.src_vocab, loaded.tgt_vocab, loaded.train_config, loaded.history,
                       num_steps, origin)


def new_run_dir(root: Path) -> Path:
    """A fresh folder name for a run trained here, under ``root`` (the folder itself is created by the run)."""
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S")
    path, n = root / f"run_{stamp}", 1
    while path.exists():
        n += 1
        path = root / f"run_{stamp}_{n}"
    return path
