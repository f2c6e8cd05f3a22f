"""The training process's event pipe: the trainer hands events over without waiting for a slow reader, they
arrive in order, and a reader that has gone ends the run as a direct send would."""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from explorer.core.runs.child_pipes import EventSender


def _received(reader, count: int) -> list[object]:  # type: ignore[no-untyped-def]
    """The next ``count`` items read from ``reader``: each message is the list of items written together."""
    items: list[object] = []
    while len(items) < count:
        message = reader.recv()
        assert isinstance(message, list) and message
        items.extend(message)
    assert len(items) == count
    return items


def test_a_reader_that_does_not_read_never_stops_the_sender_and_order_is_kept() -> None:
    reader, writer = mp.Pipe(duplex=False)
    sender = EventSender(writer)
    payload = b"x" * 4096
    start = time.monotonic()
    for i in range(200):  # 800 kB: a pipe holds 64 kB, so a direct send would block here
        sender.send((i, payload))
    assert time.monotonic() - start < 1.0
    got = [item[0] for item in _received(reader, 200)]  # read only now
    assert got == list(range(200))
    sender.send("end")
    assert sender.close(timeout_s=5.0) and _received(reader, 1) == ["end"]
    writer.close()
    reader.close()


def test_a_reader_that_has_gone_raises_broken_pipe_on_a_later_send() -> None:
    reader, writer = mp.Pipe(duplex=False)
    sender = EventSender(writer)
    reader.close()
    sender.send("lost")  # handed over; its write fails on the thread
    deadline = time.monotonic() + 5.0
    while not sender.broken and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sender.broken
    with pytest.raises(BrokenPipeError):
        sender.send("after")
    assert sender.close(timeout_s=5.0)
    writer.close()


class _TimedConnection:
    """A real pipe's sending end that notes when each message was written."""

    def __init__(self, connection) -> None:  # type: ignore[no-untyped-def]
        self.connection = connection
        self.written: list[float] = []

    def send(self, item: object) -> None:
        self.written.append(time.monotonic())
        self.connection.send(item)


def test_items_handed_over_within_the_pace_are_written_together_and_a_lone_one_at_once() -> None:
    reader, writer = mp.Pipe(duplex=False)
    timed = _TimedConnection(writer)
    sender = EventSender(timed, pace_s=0.3)  # type: ignore[arg-type]
    start = time.monotonic()
    sender.send(0)  # the first item goes out at once...
    deadline = start + 5.0
    while not timed.written and time.monotonic() < deadline:
        time.sleep(0.001)
    assert timed.written and reader.recv() == [0]
    for i in range(1, 50):  # ...the next 49, handed over at once, wait for the pace and go out together
        sender.send(i)
    assert reader.recv() == list(range(1, 50))  # one message
    rest = timed.written[1:]
    assert len(rest) == 1 and rest[0] - start >= 0.3  # one write, a pace after the first
    time.sleep(0.35)  # a quiet spell longer than the pace
    handed = time.monotonic()
    sender.send("lone")
    assert reader.recv() == ["lone"] and time.monotonic() - handed < 0.25
    assert sender.close(timeout_s=5.0)
    writer.close()
    reader.close()
