"""Plain value checks shared by the core's validations: whole numbers and finite numbers, with messages fit
for users (each caller names the error type its module raises)."""
from __future__ import annotations

import math
from typing import Any


def is_whole(value: object) -> bool:
    """An ``int`` that is not a ``bool`` (JSON ``true`` is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def positive_int(value: Any, what: str, error: type[Exception] = ValueError) -> int:
    """Return ``value`` if it is a whole number ≥ 1, else raise ``error`` naming ``what``."""
    if not is_whole(value) or value < 1:
        raise error(f"{what} must be a whole number of at least 1, got {value!r}")
    return int(value)
