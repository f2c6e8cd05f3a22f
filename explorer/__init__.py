"""Attention Explorer: the attention chapter of Dive into Deep Learning, made visible."""
from __future__ import annotations

__version__ = "0.1.0"
