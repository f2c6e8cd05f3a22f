"""Test-wide setup: Qt renders offscreen (set before any Qt import) and settings live in a temp dir."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")
