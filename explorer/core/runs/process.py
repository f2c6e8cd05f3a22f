"""Training (book §11.7) in a child process that trains on its own main thread and streams plain events back.

The parent builds a :class:`TrainingJob`, starts a :class:`TrainingProcess` and iterates :meth:`events` on a
background thread; pause/resume/step/stop and changed settings travel the other way. Both pipes carry pickles, which is safe
here because both ends are our own processes; nothing is unpickled from files.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import json
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.context import BaseContext
from typing import Any

from explorer.core.training.events import ErrorEvent, TrainingEvent
from explorer.core.runs.child_pipes import SETTINGS_PREFIX, STREAM_END
from explorer.core.runs.training_child import child_main
from explorer.core.runs.training_job import TrainingJob
from explorer.core.training.config import check_live_settings

_NOTHING = object()  # no message arrived within the poll interval
MAX_BATCH = 10_000  # no more message is read into a list once it holds this many events (event_batches)
_EXIT_WAIT_S = 1.0  # how long a crash report waits for the exit code


@functools.lru_cache(maxsize=1)
def _context() -> BaseContext:
    """``forkserver`` on Linux (children fork from a server that has imported torch), else ``spawn``.

    Not on macOS: forking a process that has loaded Apple's frameworks (torch does, for MPS) is unsafe there,
    which is why Python's default there is ``spawn``.
    """
    if sys.platform.startswith("linux") and "forkserver" in mp.get_all_start_methods():
        context = mp.get_context("forkserver")
        # takes effect when the server starts; torch._dynamo is what torch.optim's first optimiser imports (~1 s)
        context.set_forkserver_preload(["explorer.core.runs.process", "torch._dynamo"])
        return context
    return mp.get_context("spawn")


def warm_up() -> None:
    """Start the fork server in the background (it imports torch once), so a later Start is quick. Never blocks."""
    if _context().get_start_method() == "forkserver":
        threading.Thread(target=_start_forkserver, name="training-forkserver-warm-up", daemon=True).start()


def _start_forkserver() -> None:
    from multiprocessing import forkserver

    try:
        forkserver.ensure_running()
    except OSError:
        pass  # TrainingProcess.start() tries again and reports the failure as an ErrorEvent


class TrainingProcess:
    """One training run in a child process.

    ``start()`` returns at once (the launch runs on a helper thread); ``events()`` is a blocking generator
    for a background thread, ending after the final :class:`ModelStateEvent` or an :class:`ErrorEvent`.
    ``pause() resume() request_step() stop()`` may be called from any thread, before or after the start, and
    never block (after the child has ended they do nothing). ``close()`` ends the child for good.
    """

    def __init__(self, job: TrainingJob) -> None:
        self.job = job
        context = _context()
        self._events_r, events_w = context.Pipe(duplex=False)
        control_r, self._control_w = context.Pipe(duplex=False)
        if sys.platform != "win32":  # a command is a few bytes (atomic); a full pipe must not block the GUI
            os.set_blocking(self._control_w.fileno(), False)
        self._process = context.Process(target=child_main, args=(job, events_w, control_r),
                                        name="explorer-training", daemon=True)
        self._child_ends = (events_w, control_r)  # closed here once the child holds its own copies
        self._lock = threading.Lock()  # guards the flags below
        self._process_lock = threading.Lock()  # Process.is_alive/exitcode read the exit status: one reader
        self._send_lock = threading.Lock()
        # one reader of the events pipe at a time: the consumer, or close() dropping what an abandoned consumer
        # (a worker told to quit between two events) no longer reads; taken after _lock where both are held
        self._read_lock = threading.Lock()
        self._launched = threading.Event()
        self._starter: threading.Thread | None = None
        self._start_error: BaseException | None = None
        self._consuming = self._consumed = self._closing = False
        self._close_result: bool | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Launch the child on a helper thread and return at once; the first event is a StartedEvent."""
        with self._lock:
            if self._starter is not None or self._closing:
                raise RuntimeError("a TrainingProcess starts once")
            self._starter = threading.Thread(target=self._launch, name="training-process-start", daemon=True)
        self._starter.start()

    def _launch(self) -> None:
        # Process.start() waits for the fork server, which may still be importing torch: not on the caller.
        try:
            self._process.start()
        except Exception as exc:  # reported by events() as an ErrorEvent
            self._start_error = exc
        finally:
            for end in self._child_ends:  # so the pipes report end of file when the child is gone
                end.close()
            self._launched.set()

    def is_alive(self) -> bool:
        """True from :meth:`start` until the child has ended."""
        if self._starter is None:
            return False
        if not self._launched.is_set():
            return True
        if self._start_error is not None:
            return False
        with self._process_lock:
            return self._process.is_alive()

    @property
    def exitcode(self) -> int | None:
        """The child's exit code (negative: killed by that signal); None before it has ended."""
        if not self._launched.is_set() or self._start_error is not None:
            return None
        with self._process_lock:
            return self._process.exitcode

    @property
    def pid(self) -> int | None:
        """The child's process id once launched."""
        return self._process.pid if self._launched.is_set() else None

    def close(self, timeout_s: float = 2.0) -> bool:
        """Stop, wait up to ``timeout_s`` for the child to end, then terminate, then kill it.

        Returns True if the child ended by itself in time (or never started). Idempotent, never raises,
        safe from ``atexit`` or a window's close handler; a running ``events()`` ends without a crash report.
        """
        with self._lock:
            if self._close_result is not None or self._closing:
                return bool(self._close_result)
            self._closing = True
        self.stop()
        deadline = time.monotonic() + timeout_s
        ended = True
        if self._starter is None:
            for end in self._child_ends:
                end.close()
        else:
            self._starter.join(max(deadline - time.monotonic(), 0.0))
            if not self._launched.is_set():
                ended = False  # still launching: the closed control pipe tells the child to stop on arrival
            elif self._start_error is None and not self._wait_for_exit(deadline):
                ended = False
                for end_child in (self._process.terminate, self._process.kill):
                    with contextlib.suppress(OSError):
                        end_child()
                    if self._wait_for_exit(time.monotonic() + 0.5):
                        break
        with self._send_lock:
            self._control_w.close()
        with self._lock, self._read_lock:
            if not self._consuming:
                self._events_r.close()
            self._close_result = ended
        return ended

    def _wait_for_exit(self, deadline: float) -> bool:
        """Wait until the child has ended or ``deadline``, discarding what it sends meanwhile when no consumer
        is reading it (a child blocked writing a large final state could not otherwise exit)."""
        while True:
            self._discard_pending_events()
            remaining = deadline - time.monotonic()
            if mp_connection.wait([self._process.sentinel], timeout=min(max(remaining, 0.0), 0.05)):
                with self._process_lock:
                    self._process.join(0)  # reap (spawn) and read the exit status
                return True
            if remaining <= 0:
                return False

    def _discard_pending_events(self) -> None:
        """Read and drop what has arrived, unless a consumer is reading now (once closing it drops them itself)."""
        if not self._read_lock.acquire(blocking=False):
            return
        try:
            while not self._events_r.closed and self._events_r.poll(0):
                self._events_r.recv_bytes()
        except (EOFError, OSError):
            pass
        finally:
            self._read_lock.release()

    # ------------------------------------------------------------------ control (any thread, never blocks)
    def pause(self) -> None:
        """Pause between steps; the child sends a ModelStateEvent(reason="paused") on entering the pause."""
        self._send(b"pause")

    def resume(self) -> None:
        """Continue after :meth:`pause`."""
        self._send(b"resume")

    def request_step(self) -> None:
        """Take exactly one more step, then pause again (another paused ModelStateEvent follows)."""
        self._send(b"step")

    def stop(self) -> None:
        """End the run between steps: a FinishedEvent(stopped=True), then the final ModelStateEvent."""
        self._send(b"stop")

    def change_settings(self, **values: float) -> None:
        """Change ``lr`` (the schedule's base rate), ``grad_clip`` and/or ``dropout`` before the child's next step
        (a ``SettingsEvent`` follows). Raises ``ConfigError`` for a bad value, sending nothing."""
        checked = check_live_settings(values)
        self._send(SETTINGS_PREFIX + json.dumps(checked).encode("ascii"))

    def _send(self, command: bytes) -> None:
        with self._send_lock:
            if self._control_w.closed:
                return
            try:
                self._control_w.send_bytes(command)
            except OSError:  # BrokenPipeError: the child has ended; BlockingIOError: it stopped reading
                pass

    # ------------------------------------------------------------------ events (a background thread)
    def events(self, poll_s: float = 0.1) -> Iterator[TrainingEvent]:
        """Yield the child's events: StartedEvent, the trainer's events, the final ModelStateEvent.

        Blocks between events (run it on a background thread); iterable once (this or :meth:`event_batches`). If the
        child dies without finishing, yields one ``ErrorEvent(reason="crashed")`` and ends; never waits on a dead
        child.
        """
        for batch in self.event_batches(0.0, poll_s):
            for event in batch:
                if self._closing:  # closed while reading: the rest of the list is dropped, the lists read on
                    break
                yield event

    def event_batches(self, pace_s: float = 0.0, poll_s: float = 0.1) -> Iterator[list[TrainingEvent]]:
        """:meth:`events` as lists: each holds the events that had arrived when it was read (up to ``MAX_BATCH``, or a
        little more: a message of the child's, the events its sender wrote together, is taken whole), and a
        list follows the one before after ``pace_s`` seconds at the earliest (events wait in the pipe meanwhile; the
        child never waits for them). A GUI thus wakes at most 1 / ``pace_s`` times a second for a run's events,
        however fast it steps. Once :meth:`close` is called, nothing more is yielded.
        """
        with self._lock:
            if self._starter is None:
                raise RuntimeError("call start() before events()")
            if self._consumed:
                raise RuntimeError("events() can be iterated once")
            self._consumed = True
            if self._closing:
                return
            self._consuming = True
        try:
            yield from self._receive(poll_s, pace_s)
        finally:
            with self._lock, self._read_lock:
                self._consuming = False
                if self._closing:
                    self._events_r.close()

    def _receive(self, poll_s: float, pace_s: float) -> Iterator[list[TrainingEvent]]:
        while not self._launched.wait(poll_s):
            if self._closing:
                return
        if self._start_error is not None:
            yield [ErrorEvent(step=0, reason="error",
                              message=f"the training process could not be started: {self._start_error}")]
            return
        last_step, final_received, ended, next_at = 0, False, False, 0.0
        while not ended:
            wait = next_at - time.monotonic()
            if wait > 0 and not self._closing:
                time.sleep(wait)
            batch: list[TrainingEvent] = []
            timeout = poll_s  # wait for the first event, then take what is there already
            while len(batch) < MAX_BATCH:
                try:
                    item = self._next_item(timeout)
                except (EOFError, OSError):  # the child ended without saying it had finished
                    if not (final_received or self._closing):
                        batch.append(self._crashed(last_step))
                    ended = True
                    break
                if item is _NOTHING:
                    break
                timeout = 0.0
                # a message is the list of events the child's sender wrote together; STREAM_END closes the last one
                events = list(itertools.takewhile(lambda event: event is not STREAM_END, item))
                ended = len(events) < len(item)
                if not self._closing:  # closed while reading: read on to the end, so the child can write and exit
                    for event in events:
                        last_step = getattr(event, "step", last_step)
                        final_received = final_received or (event.kind == "model_state" and event.reason == "final")
                        batch.append(event)
                if ended:
                    break
            if batch and not self._closing:  # a list completed after close() is dropped too
                yield batch
                next_at = time.monotonic() + pace_s

    def _next_item(self, poll_s: float) -> Any:
        """The next message; ``_NOTHING`` if none arrived in ``poll_s``; EOFError once the child has gone."""
        reader = self._events_r
        with self._read_lock:
            if reader.closed:
                raise EOFError
            ready = mp_connection.wait([reader, self._process.sentinel], timeout=poll_s)
            if reader in ready:
                return reader.recv()  # EOFError/OSError at the end of the pipe, complete message or not
            if ready and not reader.poll(poll_s):  # the child ended and nothing more is coming
                raise EOFError
            return _NOTHING

    def _crashed(self, step: int) -> ErrorEvent:
        mp_connection.wait([self._process.sentinel], timeout=_EXIT_WAIT_S)
        return ErrorEvent(step=step, reason="crashed", message=(
            f"the training process ended unexpectedly (exit code {self.exitcode}); "
            f"the last weights received are kept"))
