"""``python -m explorer``: start the desktop app (the same as ``attention-explorer`` and ``python main.py``)."""
from __future__ import annotations

if __name__ == "__main__":  # the GUI is imported here only: training processes re-import this module
    from explorer.launch import main

    raise SystemExit(main())
