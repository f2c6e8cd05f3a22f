"""The lesson writer's import of the one atomic writer, :func:`explorer.core.atomic_file.write_text_atomic`
(UTF-8, ``\\n`` line ends, temporary file then rename; DESIGN rule 7). New code imports it from core."""
from __future__ import annotations

from explorer.core.atomic_file import write_text_atomic

__all__ = ["write_text_atomic"]
