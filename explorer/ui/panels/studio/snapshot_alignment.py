"""How well each cross-attention head follows a synthetic task's ideal alignment (book §11.7 probes):
the numbers the attention grid prints over cross-attention thumbnails. Core calls only, cached per probe."""
from __future__ import annotations

from typing import Any

import numpy as np

from explorer.core.data.tasks import alignment_scores, ideal_alignment
from explorer.core.data.readers import DatasetError


class AlignmentCache:
    """Scores ``(L, h)`` of a snapshot's cross-attention against the task's ideal; the ideal is kept per probe."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._ideal: np.ndarray | None = None

    def scores(self, task: str | None, snap: Any) -> np.ndarray | None:
        """Alignment of each cross-attention head in [0, 1], or None (no task, or a probe not of this task)."""
        if not task or snap is None or "cross" not in snap.maps:
            return None
        key = (task, tuple(snap.src_tokens), tuple(snap.tgt_tokens))
        if key != self._key:
            try:  # the tokens end with <eos>; the ideal adds its own <eos> row and column
                self._ideal = ideal_alignment(task, snap.src_tokens[:-1], snap.tgt_tokens[:-1])
            except (DatasetError, ValueError):
                self._ideal = None  # the probe is not a pair of this task
            self._key = key
        if self._ideal is None:
            return None
        try:
            return alignment_scores(snap.maps["cross"], self._ideal)  # (L, h)
        except ValueError:
            return None
