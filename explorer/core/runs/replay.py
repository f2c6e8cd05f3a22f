"""Replaying a recorded run directory (``docs/RUNS.md``) at any speed: the events a :class:`RunFollower` reads,
handed out as the run's own clock reached them, so a demo shows training (book §11.7) on a machine too slow to
train live. Plain Python for a worker thread; :class:`ReplayClock` is what the GUI thread turns (speed, pause,
one step) while :func:`replay_run` waits on it.
"""
from __future__ import annotations

import bisect
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from explorer.core.runs.follower import RunFollower
from explorer.core.runs.stream import CheckpointWrittenEvent

SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)  # what the studio offers; any speed in range works
MIN_SPEED, MAX_SPEED = 0.01, 1000.0
FRAME_S = 1 / 30  # at most ~30 hand-overs a second (the studio draws at ≤ 10 Hz; a replay trains nothing)


class ReplayClock:
    """The replay's position in the recorded run's seconds, advanced by wall time × ``speed`` unless paused.

    Thread-safe: the GUI thread calls :meth:`set_speed`, :meth:`pause`, :meth:`resume`, :meth:`request_step`
    and :meth:`stop`; the replay's worker reads :meth:`position` and sleeps in :meth:`wait`.
    """

    def __init__(self, speed: float = 1.0, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._lock = threading.Condition()
        self._speed = checked_speed(speed)
        self._base = 0.0  # recorded seconds reached at wall time self._since
        self._since = now()
        self._paused = False
        self._steps = 0  # one-step requests not yet served
        self.stopped = False

    # ---- GUI side --------------------------------------------------------------------------------
    @property
    def speed(self) -> float:
        return self._speed

    @property
    def paused(self) -> bool:
        return self._paused

    def set_speed(self, speed: float) -> None:
        """Replay ``speed`` recorded seconds per second from now on (ValueError if not a usable number)."""
        speed = checked_speed(speed)
        with self._lock:
            self._settle()
            self._speed = speed
            self._lock.notify_all()

    def pause(self) -> None:
        with self._lock:
            self._settle()
            self._paused = True
            self._lock.notify_all()

    def resume(self) -> None:
        with self._lock:
            self._settle()
            self._paused, self._steps = False, 0
            self._lock.notify_all()

    def request_step(self) -> None:
        """While paused: hand out the next recorded optimiser step (and what was recorded with it)."""
        with self._lock:
            if self._paused:
                self._steps += 1
                self._lock.notify_all()

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            self._lock.notify_all()

    # ---- worker side -----------------------------------------------------------------------------
    def rewind(self) -> None:
        """Start again at recorded second 0 (when the run has been read: reading takes no replay time)."""
        with self._lock:
            self._base, self._since = 0.0, self._now()

    def position(self) -> float:
        """Recorded seconds reached so far."""
        with self._lock:
            return self._position()

    def take_step(self) -> bool:
        """True (once per request) if a one-step request is waiting."""
        with self._lock:
            if self._steps and self._paused:
                self._steps -= 1
                return True
            return False

    def jump_to(self, position: float) -> None:
        """Move the position forward to ``position`` recorded seconds (a served one-step request)."""
        with self._lock:
            self._settle()
            self._base = max(self._base, float(position))

    def wait(self, recorded_s: float) -> None:
        """Sleep until ``recorded_s`` more recorded seconds have passed (at most one frame), or until the GUI
        changes something (speed, pause, step, stop)."""
        with self._lock:
            if self.stopped or (self._paused and self._steps):
                return
            wall = FRAME_S if self._paused else min(max(recorded_s / self._speed, FRAME_S), 0.25)
            self._lock.wait(wall)

    def _position(self) -> float:
        if self._paused:
            return self._base
        return self._base + (self._now() - self._since) * self._speed

    def _settle(self) -> None:
        self._base, self._since = self._position(), self._now()


def checked_speed(speed: float) -> float:
    """``speed`` as a float in [MIN_SPEED, MAX_SPEED]; ValueError for NaN, infinity, zero or negatives."""
    value = float(speed)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"A replay speed must be a positive number, not {speed!r}.")
    return min(max(value, MIN_SPEED), MAX_SPEED)


@dataclass(frozen=True)
class ReplayPausedEvent:
    """The replay is paused and has handed out everything recorded up to its position (once per pause, and once
    after each step requested while paused): the step the viewer shows now is the step it paused at."""

    kind: str = field(default="replay_paused", init=False)


@dataclass(frozen=True)
class RecordedRun:
    """Every event of a run directory in order, each with the recorded second it happened at."""

    events: list[Any]
    times: list[float]
    checkpoint: str | None  # the run's last checkpoint (the model at the end), if it has one
    problems: list[str]

    @property
    def duration_s(self) -> float:
        return self.times[-1] if self.times else 0.0


def read_recorded_run(follower: RunFollower, max_polls: int = 100_000) -> RecordedRun:
    """Read the whole run ``follower`` follows (as it is now on disk) and time its events.

    Events keep the follower's order (a resumed run's ``resumed`` line and the steps trained again after it
    included); a step, epoch or finished line carries its time (after a resume, shifted to follow what came
    before), anything else takes that of what came before (times never go back). Snapshots, which the follower may read several polls after their steps, go right
    after the last line of their step (step 0's after the start), with its time.
    """
    events: list[Any] = []
    for _ in range(max_polls):
        batch = follower.poll()
        if not batch:
            break
        events.extend(batch)
    lines = [e for e in events if e.kind != "snapshot"]
    times, now, offset = [], 0.0, 0.0
    for event in lines:
        own = getattr(event, "elapsed_s", None)
        if event.kind == "resumed" and _finite(own):
            offset = now - float(own)  # the steps trained again play after the first pass, at their pace
        elif event.kind in ("step", "epoch", "finished") and _finite(own):
            now = max(now, float(own) + offset)
        times.append(now)
    after_step = {e.step: i for i, e in enumerate(lines) if e.kind == "step"}  # the last line of each step
    known = sorted(after_step)
    placed: dict[int, list[Any]] = {}
    for snapshot in sorted((e for e in events if e.kind == "snapshot"), key=lambda e: e.step):
        below = bisect.bisect_right(known, snapshot.step)  # its step, else the last step before it, else the start
        placed.setdefault(after_step[known[below - 1]] if below else 0, []).append(snapshot)
    ordered, ordered_times = [], []
    for i, (event, t) in enumerate(zip(lines, times)):
        ordered.append(event)
        ordered_times.append(t)
        for snapshot in placed.get(i, ()):
            ordered.append(snapshot)
            ordered_times.append(t)
    checkpoint = follower.latest_checkpoint()
    return RecordedRun(ordered, ordered_times, str(checkpoint) if checkpoint is not None else None,
                       list(follower.problems))


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def replay_run(follower: RunFollower, clock: ReplayClock) -> Iterator[list[Any]]:
    """Yield the run's events in lists as ``clock`` reaches their recorded times, then, with the last list,
    a :class:`CheckpointWrittenEvent` for the run's model at the end. A pause (and each step served while paused)
    ends its list with a :class:`ReplayPausedEvent`. Ends early when the clock is stopped."""
    recorded = read_recorded_run(follower)
    clock.rewind()
    events, times = recorded.events, recorded.times
    index, count = 0, len(events)
    said_paused = False
    while index < count and not clock.stopped:
        paused = clock.paused  # read before the position: a paused clock's position no longer moves
        if clock.take_step():
            end = _past_next_step(events, times, index)
            clock.jump_to(times[end - 1])
            said_paused = False
        else:
            end = bisect.bisect_right(times, clock.position(), lo=index)
        batch = events[index:end]
        index = max(index, end)
        if index >= count and batch and recorded.checkpoint is not None:
            batch.append(CheckpointWrittenEvent(recorded.checkpoint))
        if paused and not said_paused and index < count:
            batch.append(ReplayPausedEvent())  # after the last event handed out before the pause
            said_paused = True
        elif not paused:
            said_paused = False
        if batch:
            yield batch
        if index < count:
            clock.wait(times[index] - clock.position())
    if not count and recorded.checkpoint is not None:
        yield [CheckpointWrittenEvent(recorded.checkpoint)]


def _past_next_step(events: list[Any], times: list[float], index: int) -> int:
    """The end of the next step event after ``index`` and of what was recorded at the same second (its snapshot)."""
    end = index
    while end < len(events) and events[end].kind != "step":
        end += 1
    if end == len(events):
        return end
    end += 1
    while end < len(events) and events[end].kind != "step" and times[end] <= times[end - 1]:
        end += 1
    return end
