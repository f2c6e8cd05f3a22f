"""Fixtures shared by the core tests."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Run a test with one torch thread: tiny tensors only pay overhead for more, and the CPU is shared."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
