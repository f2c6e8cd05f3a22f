"""Launch Attention Explorer from a source checkout: ``python main.py [--screenshots DIR]``."""
from __future__ import annotations

if __name__ == "__main__":  # the GUI is imported here only: training processes re-import this file
    from explorer.launch import main

    raise SystemExit(main())
