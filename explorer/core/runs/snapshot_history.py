"""A bounded history of attention snapshots taken during training (book §11.7), thinned when long.

Pure numpy: the studio's history scrubber replays it, the loss curve jumps into it by step.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

DEFAULT_MAX_SNAPSHOTS = 512
DEFAULT_MAX_BYTES = 150 * 1024 * 1024


def payload_nbytes(obj: Any) -> int:
    """Bytes held by the numpy arrays inside ``obj`` (dataclasses, dicts, lists and tuples are walked)."""
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(payload_nbytes(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, dict):
        return sum(payload_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(payload_nbytes(v) for v in obj)
    return 0


class SnapshotHistory:
    """Snapshots keyed by training step, kept within a count and a byte budget.

    When either bound is exceeded, every other snapshot of the *older half* is dropped (the first
    one is always kept), so recent training stays dense while the whole run stays covered: after
    many thinnings the spacing grows roughly geometrically with age.

    Parameters
    ----------
    max_snapshots : int
        Most snapshots kept at once (>= 4).
    max_bytes : int
        Most bytes of numpy payload kept at once.
    """

    def __init__(self, max_snapshots: int = DEFAULT_MAX_SNAPSHOTS, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_snapshots < 4:
            raise ValueError(f"max_snapshots must be at least 4, got {max_snapshots}")
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive, got {max_bytes}")
        self.max_snapshots = int(max_snapshots)
        self.max_bytes = int(max_bytes)
        self._steps: list[int] = []
        self._items: list[Any] = []
        self._sizes: list[int] = []
        self._nbytes = 0
        self.thinned = 0  # how many snapshots have been dropped so far

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: int) -> Any:
        return self._items[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._items))

    @property
    def nbytes(self) -> int:
        """Bytes of numpy payload currently held."""
        return self._nbytes

    @property
    def steps(self) -> np.ndarray:
        """Training step of each kept snapshot, increasing, shape ``(len(self),)``."""
        return np.asarray(self._steps, dtype=np.int64)

    def step_at(self, index: int) -> int:
        """Training step of snapshot ``index``."""
        return self._steps[index]

    def clear(self) -> None:
        """Forget every snapshot (a new run starts)."""
        self._steps.clear()
        self._items.clear()
        self._sizes.clear()
        self._nbytes = 0
        self.thinned = 0

    def append(self, step: int, item: Any, nbytes: int | None = None) -> None:
        """Keep ``item`` as the snapshot of training ``step`` and thin the history if it grew too big.

        A snapshot for a step at or before the last one replaces the tail from that step on (a
        restarted or stepped run never leaves the steps out of order).
        """
        step = int(step)
        while self._steps and self._steps[-1] >= step:
            self._drop(len(self._steps) - 1)
        size = payload_nbytes(item) if nbytes is None else int(nbytes)
        self._steps.append(step)
        self._items.append(item)
        self._sizes.append(size)
        self._nbytes += size
        while len(self._items) > 1 and (
            len(self._items) > self.max_snapshots or self._nbytes > self.max_bytes
        ):
            self._thin()

    def nearest_index(self, step: float) -> int | None:
        """Index of the snapshot whose step is closest to ``step`` (ties go to the earlier); None if empty."""
        if not self._steps:
            return None
        steps = self.steps
        pos = int(np.searchsorted(steps, step))
        if pos <= 0:
            return 0
        if pos >= len(steps):
            return len(steps) - 1
        return pos - 1 if step - steps[pos - 1] <= steps[pos] - step else pos

    def _drop(self, index: int) -> None:
        self._nbytes -= self._sizes.pop(index)
        del self._steps[index]
        del self._items[index]

    def _thin(self) -> None:
        """Drop every other snapshot of the older half (indices 1, 3, 5, … below the midpoint)."""
        n = len(self._items)
        # two left and still over the byte budget: keep the newest
        doomed = [0] if n == 2 else list(range(1, max(2, n // 2), 2))
        for index in reversed(doomed):
            self._drop(index)
        self.thinned += len(doomed)
