"""The run writer's checkpoint thread runs no torch operation.

A helper thread that once ran a parallel torch operation keeps an OpenMP team of its own for as long as it lives.
With more OpenMP threads than cores, libgomp stops spinning at barriers, and every later step of a two-thread
training run became ~2x slower after the run's first checkpoint (``bench/omp_side_thread.py``). The test counts the
process's threads: a second team shows as extra worker threads.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import tiny_config, tiny_dataset  # noqa: E402
from explorer.core.model.transformer import TransformerConfig
from explorer.core.runs.writer import RunWriter
from explorer.core.training.trainer import Trainer

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/task") or "OpenMP" not in torch.__config__.parallel_info(),
    reason="counts the threads of an OpenMP build in /proc")


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_checkpoints_leave_no_second_openmp_team(tmp_path: Path) -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        # > 32,768 parameters: copying Adam's moments is a parallel operation (torch's grain size)
        model = TransformerConfig(num_hiddens=64, num_heads=2, ffn_num_hiddens=128, dropout=0.0)
        trainer = Trainer(tiny_config(epochs=3, model=model, snapshot_every=0), tiny_dataset())
        writer = RunWriter.create(tmp_path / "run", trainer, {"spec": "test", "name": "test"})
        big = torch.ones(1 << 20)
        big.add_(1)  # the training thread's own team exists before counting
        with writer:
            events = iter(trainer)
            first_epoch = next(e for e in events if e.kind == "epoch")  # every thread training needs exists now
            counted = _threads()
            writer.on_event(first_epoch)  # the first checkpoint starts the helper thread, and that is all
            writer.wait()
            assert _threads() == counted + 1
            for event in events:  # two more checkpoints
                writer.on_event(event)
            writer.wait()
            assert _threads() == counted + 1
            assert (tmp_path / "run" / "checkpoints" / "last.safetensors").stat().st_size > 0

        # the count does see a team: the same copy on a helper thread adds its worker
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(lambda: None).result()
            counted = _threads()
            pool.submit(big.clone).result()
            assert _threads() > counted
    finally:
        torch.set_num_threads(before)
