"""Launch Attention Explorer from a source checkout: ``python main.py [--screenshots DIR]``."""
from __future__ import annotations

from explorer.ui.app import main

if __name__ == "__main__":
    raise SystemExit(main())
