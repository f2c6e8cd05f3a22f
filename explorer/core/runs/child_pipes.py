"""The training process's two pipes: the parent's commands, read on a small thread and applied to the trainer
(:class:`RemoteControl`), and the events back, written on another (:class:`EventSender`), so a GUI that is slow to
read (a long redraw fills the 64 kB pipe in a tenth of a second of steps) never stops the training loop."""
from __future__ import annotations

import contextlib
import json
import multiprocessing.connection as mp_connection
import queue
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.core.training.trainer import Trainer

#: The commands the parent sends, each the name of the ``Trainer`` method it calls.
COMMANDS = {b"pause": "pause", b"resume": "resume", b"step": "request_step", b"stop": "stop"}
SETTINGS_PREFIX = b"settings:"  # followed by a JSON object of the settings to change (Trainer.change_settings)

_STOP = object()  # the thread's own end marker (the stream's end is the caller's item) ...
STREAM_END = None  # ... the training process's last item: its events ended as planned (an event is never None)

#: The sender writes at most this often: what was handed over meanwhile goes out together. Woken for each event
#: (~180 a second for the book's model), it took the GIL from the training thread as often: with two torch threads
#: the trainer kept 0.92-0.94 of its speed, paced 0.98-1.03 (``bench/child_overhead.py``; with one thread 0.91-1.01
#: against 0.97-1.04, closer to that bench's noise). An event handed over after a quiet spell goes out at once; one in
#: a burst waits up to this long, then up to the GUI's own 0.1 s (``training_run.EVENT_PACE_S``).
SEND_PACE_S = 0.05


class EventSender:
    """Sends items through ``connection`` in the order given, on a thread of its own.

    :meth:`send` never blocks; once a write has failed (the reader has gone) it raises ``BrokenPipeError``, as a
    direct send would. :meth:`close` waits until everything handed over is written (or the pipe has broken). The
    thread writes at most once per ``pace_s`` seconds (:data:`SEND_PACE_S`; 0: as soon as it can), each time all
    that has been handed over, as one message: the list of those items, in order (one pickle and one write for the
    ~10 events of a pace at the book's speed, and one read for the parent).
    """

    def __init__(self, connection: mp_connection.Connection, pace_s: float = SEND_PACE_S) -> None:
        self._connection = connection
        self._pace_s = pace_s
        self._items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._broken = threading.Event()
        self._thread = threading.Thread(target=self._write, name="training-events", daemon=True)
        self._thread.start()

    def send(self, item: Any) -> None:
        """Hand ``item`` over to be written; ``BrokenPipeError`` once the reader has gone."""
        if self._broken.is_set():
            raise BrokenPipeError("the reader of the training events has gone")
        self._items.put(item)

    def close(self, timeout_s: float | None = None) -> bool:
        """Write what was handed over, then end the thread; returns whether it ended within ``timeout_s``."""
        self._items.put(_STOP)
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    @property
    def broken(self) -> bool:
        """True once a write failed: the reader has gone."""
        return self._broken.is_set()

    def _write(self) -> None:
        next_write = 0.0
        while True:
            items = [self._items.get()]
            if items[0] is _STOP:  # nothing left to write: end without waiting out the pace
                return
            wait = next_write - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # the trainer goes on handing items over meanwhile
            next_write = time.monotonic() + self._pace_s
            with contextlib.suppress(queue.Empty):
                while True:
                    items.append(self._items.get_nowait())
            end = next((i for i, item in enumerate(items) if item is _STOP), None)
            stopped = end is not None
            if stopped:
                items = items[:end]
            try:
                self._connection.send(items)
            except Exception:  # BrokenPipeError/ConnectionResetError, a closed connection: the reader has gone
                self._broken.set()
                return
            if stopped:
                return


class RemoteControl:
    """The parent's commands, read on a small thread and applied to the trainer once it exists."""

    def __init__(self, control: mp_connection.Connection) -> None:
        self._control = control
        self._lock = threading.Lock()
        self._trainer: Trainer | None = None
        self._pending: list[bytes] = []
        threading.Thread(target=self._listen, name="training-control", daemon=True).start()

    def attach(self, trainer: Trainer) -> None:
        """Apply the commands that came before the trainer, in order, then pass new ones straight on."""
        with self._lock:
            self._trainer = trainer
            for command in self._pending:
                self._apply(command)
            self._pending.clear()

    def _listen(self) -> None:
        while True:
            try:
                command = self._control.recv_bytes()
            except (EOFError, OSError):
                command = b"stop"  # the parent has gone (or closed us): nobody wants the rest of the run
            with self._lock:
                if self._trainer is None:
                    self._pending.append(command)
                else:
                    self._apply(command)
            if command == b"stop":
                return

    def _apply(self, command: bytes) -> None:
        if self._trainer is None:
            return
        if command.startswith(SETTINGS_PREFIX):  # checked by the parent; a bad one changes nothing here either
            with contextlib.suppress(ValueError, TypeError):
                self._trainer.change_settings(**json.loads(command[len(SETTINGS_PREFIX):]))
            return
        name = COMMANDS.get(command)
        if name is not None:
            getattr(self._trainer, name)()
