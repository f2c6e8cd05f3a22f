"""A run trained here (book §11.7): the child training process and the superqt worker that reads its events,
behind the same small interface as a followed or replayed run (:class:`FollowedRun`), so the studio's state
owner drives either without asking which it holds."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from explorer.core.runs.process import TrainingJob, TrainingProcess
from explorer.ui.process_settings import training_threads
from explorer.ui.worker import function_worker, generator_worker

if TYPE_CHECKING:
    from explorer.core.training.config import TrainingConfig
    from explorer.ui.panels.studio.data_loading import LoadRequest


#: A run recorded here checkpoints at an epoch's end at most this often (the last epoch always). Every epoch of
#: the book's run (~75 ms) cost the training process 26 % of its speed beside the GUI (bench/gui_responsiveness.py).
CHECKPOINT_INTERVAL_S = 5.0
#: ... and translates its probe at most this often: once per epoch cost ~5 % of its speed, for a record that a
#: replay shows at a readable pace anyway.
PROBE_INTERVAL_S = 1.0
#: ... and runs at a lower scheduling priority: when it trains on every core (the thread tuner measured that pays),
#: the GUI still gets a core the moment it needs one (event-loop lateness p99 49 ms at equal priority, large model).
TRAINING_NICE = 5
#: ... and its events reach the GUI in lists, at most this often: the book's model steps ~100 times a second, and each
#: wake-up of the GUI costs the training process more than the GUI's own time (its OpenMP team waits at a barrier).
EVENT_PACE_S = 0.1


class TrainingRun:
    """Trains ``config`` on the data of ``request`` in a child process, recording the run in ``run_dir`` (None: not
    recorded); ``worker`` yields its events in lists, at most every ``EVENT_PACE_S`` (connect, then :meth:`start`)."""

    clock = None  # nothing is replayed

    def __init__(self, config: TrainingConfig, request: LoadRequest, probe: tuple[str, str],
                 run_dir: Path | None) -> None:
        job = TrainingJob(config.to_dict(), request.spec, request.num_examples, request.seed, probe,
                          num_threads=training_threads(config), run_dir=str(run_dir) if run_dir else None,
                          checkpoint_interval_s=CHECKPOINT_INTERVAL_S, probe_interval_s=PROBE_INTERVAL_S,
                          tune_threads=True, nice=TRAINING_NICE)
        self.process = TrainingProcess(job)
        self.worker = generator_worker(self.process.event_batches, EVENT_PACE_S)

    def start(self) -> None:
        self.process.start()
        self.worker.start()

    def pause(self) -> None:
        """Pause before the next step (the model of that step boundary arrives as an event)."""
        self.process.pause()

    def resume(self) -> None:
        self.process.resume()

    def request_step(self) -> None:
        """While paused: train on exactly one more batch."""
        self.process.request_step()

    def change_settings(self, values: dict[str, float]) -> None:
        """Change ``lr``, ``grad_clip`` and/or ``dropout`` before the next step (``ConfigError`` for a bad value)."""
        self.process.change_settings(**values)

    def stop(self) -> None:
        """End the run after the current step; the events up to it still arrive."""
        self.process.stop()

    def close(self, timeout_ms: int | None = None) -> None:
        """Stop reading events and close the process: waiting up to ``timeout_ms`` (window close), or, with None,
        on a worker thread so that Reset and the end of a run never hold the GUI thread."""
        self.worker.quit()
        if timeout_ms is None:
            self.process.stop()
            function_worker(self.process.close, 5.0).start()
        else:
            self.process.close(timeout_ms / 1000)
