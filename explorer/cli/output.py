"""The last line of every command run with ``--json``: one JSON object on stdout."""
from __future__ import annotations

import json
import math
import sys
from typing import Any


def finite(value: Any) -> Any:
    """JSON has no NaN/inf: such numbers (e.g. the loss of a run stopped before its first step) become null."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def print_json(result: dict[str, Any]) -> None:
    """Print ``result`` as one line of strict JSON (non-finite numbers as null)."""
    print(json.dumps(finite(result), allow_nan=False))


def warn_unknown(count: Any) -> None:
    """A ``warning:`` line on stderr when many tokens fell back to the unknown token (a ``token_roles.UnknownCount``)."""
    if count is not None and count.many:
        print(f"warning: {count.warning()}", file=sys.stderr)
