"""``python -m explorer.cli ...`` (and ``torchrun --nproc_per_node=N -m explorer.cli train ...``): the CLI."""
from __future__ import annotations

import sys

from explorer.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
