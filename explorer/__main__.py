"""``python -m explorer``: start the desktop app (the same as ``attention-explorer`` and ``python main.py``)."""
from __future__ import annotations

from explorer.ui.app import main

if __name__ == "__main__":
    raise SystemExit(main())
