"""A run trained here (book §11.7): the child training process and the superqt worker that reads its events,
behind the same small interface as a followed or replayed run (:class:`FollowedRun`), so the studio's state
owner drives either without asking which it holds."""
from __future__ import annotations

from explorer.core.training_process import TrainingJob, TrainingProcess
from explorer.ui.worker import function_worker, generator_worker


class TrainingRun:
    """Trains ``job`` in a child process; ``worker`` yields its events (connect, then :meth:`start`)."""

    clock = None  # nothing is replayed

    def __init__(self, job: TrainingJob) -> None:
        self.process = TrainingProcess(job)
        self.worker = generator_worker(self.process.events)

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
