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


def spelled_out(choices: tuple[str, ...]) -> str:
    """``("auto", "cpu", "cuda")`` -> ``"auto, cpu or cuda"`` (for messages that list the choices)."""
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"


def positive_int(value: Any, what: str, error: type[Exception] = ValueError) -> int:
    """Return ``value`` if it is a whole number ≥ 1, else raise ``error`` naming ``what``."""
    if not is_whole(value) or value < 1:
        raise error(f"{what} must be a whole number of at least 1, got {value!r}")
    return int(value)


def non_negative(value: Any, what: str, error: type[Exception] = ValueError) -> float:
    """Return ``value`` if it is a finite number ≥ 0, else raise ``error`` naming ``what``."""
    if not is_number(value) or value < 0:
        raise error(f"{what} must be a number ≥ 0, got {value!r}")
    return value
