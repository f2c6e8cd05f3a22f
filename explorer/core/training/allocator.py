"""A training process keeps the memory its steps free for the next step, instead of handing it back to the kernel.

glibc's ``malloc`` maps a large block (above a threshold it raises to the largest block freed so far, up to 32 MiB)
straight from the kernel, and gives the free top of its heap back once that passes twice the threshold. A training
step frees the same few large blocks it allocates again the next step (the logits, their log-softmax and its
gradient over a big target vocabulary: 349 × 3,604 floats, 5 MB each), so every step faulted them in afresh: on the
18,000-pair corpus ~1,000-1,300 minor page faults and ~2 ms of kernel time per 10-12 ms step, and 7-10 faults with
these settings (measured with ``getrusage``; the step time in ``bench/train_throughput.py --big`` and
``bench/step_profile.py --big``). The book's vocabulary (152 words) and the studio's larger shapes fault a few times
a step either way.

The cost: a training process keeps up to :data:`TRIM_THRESHOLD` of freed heap beyond what it uses, and blocks under
:data:`MMAP_THRESHOLD` come from the heap. Only processes that train call :func:`retain_freed_memory` (the trainer
does, when it starts); elsewhere, and off glibc, nothing changes.
"""
from __future__ import annotations

import ctypes
import logging
import os
import sys

log = logging.getLogger(__name__)

#: Blocks up to this size come from the heap (glibc's own ceiling for the threshold it adjusts by itself).
MMAP_THRESHOLD = 32 << 20
#: The free top of the heap is given back to the kernel only past this much.
TRIM_THRESHOLD = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
_done: list[bool] = []


def _libc_name() -> str:
    """``glibc`` under glibc ('' where the C library does not say, e.g. musl)."""
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").split(" ")[0]
    except (ValueError, OSError):
        return ""


def retain_freed_memory() -> bool:
    """Set this process's ``malloc`` to keep what a training step frees (once; later calls return the first answer).
    True where it took effect (glibc on Linux), False elsewhere or if ``mallopt`` refused."""
    if _done:
        return _done[0]
    applied = False
    if sys.platform.startswith("linux") and _libc_name() == "glibc":
        try:
            mallopt = ctypes.CDLL(None).mallopt
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
        except (OSError, AttributeError) as exc:
            log.debug("malloc settings left as they are: %s", exc)
    _done.append(applied)
    return applied
