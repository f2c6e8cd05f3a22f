"""Headless computations of the attention chapter (torch + numpy only; never Qt)."""
from __future__ import annotations
