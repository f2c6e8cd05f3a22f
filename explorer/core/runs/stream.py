"""A run directory as a stream of events (``docs/RUNS.md``): what :class:`~explorer.core.runs.follower.RunFollower`
reads, polled until the reader asks it to stop, plus a note each time the run's last checkpoint is rewritten
(so a viewer can reload the model to translate with). Plain Python, meant for a worker thread."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from explorer.core.runs.follower import RunFollower

POLL_S = 0.1  # written to disk -> yielded: ≤ 0.1 s plus the read itself (the studio draws at ≤ 10 Hz after)
#: A finished run is followed this long after its last change: its last checkpoint is renamed into place just after
#: the finished line (the writer saves it on a helper thread), and a viewer wants that model.
FINISHED_GRACE_S = 2.0


@dataclass(frozen=True)
class CheckpointWrittenEvent:
    """The run's ``checkpoints/last.safetensors`` is new or was rewritten (its path)."""

    path: str
    kind: str = field(default="checkpoint", init=False)


@dataclass(frozen=True)
class CaughtUpEvent:
    """Everything the run had written when it was opened has been yielded (once per follow, after those events)."""

    kind: str = field(default="caught_up", init=False)


def _signature(path: Any) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def follow_run(follower: RunFollower, stop: threading.Event, poll_s: float = POLL_S,
               finished_grace_s: float = FINISHED_GRACE_S) -> Iterator[list[Any]]:
    """Yield the events of the run as they are written, one list per poll (a long finished run arrives in a few
    lists, not thousands of hand-overs to the GUI thread), with one :class:`CaughtUpEvent` after what the run had
    written when it was opened, until ``stop`` is set, the run was deleted or replaced,
    or it finished and nothing (its last checkpoint included) changed for ``finished_grace_s`` seconds: a resume
    is seen by opening the run again. Never raises for what it finds on disk."""
    checkpoint_sig: tuple[int, int, int] | None = None
    quiet_since: float | None = None  # when a finished run last changed
    caught_up = False
    while not stop.is_set():
        events: list[Any] = follower.poll()
        path = follower.latest_checkpoint()
        sig = _signature(path) if path is not None else None
        if sig is not None and sig != checkpoint_sig:
            checkpoint_sig = sig
            events.append(CheckpointWrittenEvent(str(path)))
        if follower.caught_up and not caught_up:
            caught_up = True
            events.append(CaughtUpEvent())
        if events:
            yield events
        if follower.ended:
            return
        now = time.monotonic()
        if not follower.finished:
            quiet_since = None
        elif events or quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= finished_grace_s:
            return
        if not events:
            stop.wait(poll_s)
