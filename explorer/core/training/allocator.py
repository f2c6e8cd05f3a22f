"""A process that trains keeps the memory its steps free (glibc's ``mallopt``), instead of mapping and unmapping a big
vocabulary's logits, log-probabilities and their gradient every step (the reasons and figures: docs/CONTRACTS.md,
"A process that trains keeps the memory its steps free")."""
from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys

log = logging.getLogger(__name__)

#: Blocks up to this size come from the heap (glibc's own ceiling for the threshold it adjusts by itself) ...
MMAP_THRESHOLD = 32 << 20
#: ... and each arena gives the free top of its heap back to the kernel only past this much.
TRIM_THRESHOLD = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


def _libc_name() -> str:
    """``glibc`` under glibc ('' where the C library does not say: musl, macOS, Windows)."""
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").split(" ")[0]
    except (AttributeError, ValueError, OSError):  # no confstr (Windows), or no such name (macOS)
        return ""


@functools.cache
def retain_freed_memory() -> bool:
    """Set this process's ``malloc`` to keep freed blocks of up to :data:`MMAP_THRESHOLD` in its heap, giving a heap's
    free top back past :data:`TRIM_THRESHOLD` (freed holes below a live block stay too); once per process. True
    where it took effect (glibc on Linux); elsewhere nothing is set."""
    if not sys.platform.startswith("linux") or _libc_name() != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    except (OSError, AttributeError) as exc:
        log.debug("malloc settings left as they are: %s", exc)
        return False
