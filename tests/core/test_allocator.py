"""A training process keeps the large blocks its steps free: once the trainer has started, a step's big tensors come
from the heap and stay there when freed, instead of being mapped and unmapped every step (glibc); nothing is asked
of a C library that is not glibc."""
from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap

import pytest

from explorer.core.training import allocator

# Three 8 MB blocks allocated, then freed, as a training step's logits, log-probabilities and their gradient: glibc
# maps each straight from the kernel by default (its threshold starts at 128 KiB), and unmaps it when it is freed.
# Retained, they come from the heap, and the heap keeps them once freed. ``mallinfo2`` says where they live.
BLOCKS_SCRIPT = textwrap.dedent("""
    import ctypes, sys
    import torch
    from explorer.core.training.allocator import retain_freed_memory
    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                         "fsmblks", "uordblks", "fordblks", "keepcost")]
    mallinfo2 = ctypes.CDLL(None).mallinfo2
    mallinfo2.restype = MallInfo2
    if sys.argv[1] == "retain":
        assert retain_freed_memory()
    before = mallinfo2()
    blocks = [torch.empty(2 << 20) for _ in range(3)]
    during = mallinfo2()
    del blocks
    after = mallinfo2()
    print((during.hblkhd - before.hblkhd) >> 20, after.fordblks >> 20)
""")


def _mapped_and_kept_mib(mode: str) -> tuple[int, int]:
    """(MiB mapped outside the heap for the blocks, MiB free in the heap once they were freed)."""
    done = subprocess.run([sys.executable, "-c", BLOCKS_SCRIPT, mode], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    mapped, kept = done.stdout.split()[-2:]
    return int(mapped), int(kept)


@pytest.mark.skipif(allocator._libc_name() != "glibc" or not hasattr(ctypes.CDLL(None), "mallinfo2"),
                    reason="the setting and mallinfo2 are glibc's (2.33 and later)")
def test_freed_blocks_stay_in_the_heap_once_retained() -> None:
    mapped, kept = _mapped_and_kept_mib("default")
    if mapped != 24 or kept >= 24:
        pytest.skip(f"this interpreter's allocator already keeps such blocks (mapped {mapped} MiB, kept {kept} MiB)")
    # by default each block is mapped and unmapped (faulted in again the next step); retained, they come from the
    # heap and stay there, free, for the next step
    mapped, kept = _mapped_and_kept_mib("retain")
    assert mapped == 0 and kept >= 24, f"mapped {mapped} MiB, kept {kept} MiB"


def test_nothing_is_set_off_glibc(monkeypatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(allocator, "_libc_name", lambda: asked.append("libc") or "")
    allocator.retain_freed_memory.cache_clear()
    try:
        assert allocator.retain_freed_memory() is False
        assert allocator.retain_freed_memory() is False and len(asked) <= 1  # asked once per process
    finally:
        allocator.retain_freed_memory.cache_clear()  # the next caller asks again, with the real C library


def test_the_trainer_retains_when_it_starts(monkeypatch) -> None:
    from explorer.core.data.text import build_dataset
    from explorer.core.model.transformer import TransformerConfig
    from explorer.core.training import trainer as trainer_module
    from explorer.core.training.config import TrainingConfig

    calls: list[int] = []
    monkeypatch.setattr(trainer_module, "retain_freed_memory", lambda: calls.append(1) or True)
    pairs = [("a b", "b a"), ("c d", "d c"), ("a c", "c a")] * 4
    dataset = build_dataset(pairs, 6, min_freq=1)
    config = TrainingConfig(model=TransformerConfig(num_hiddens=8, num_heads=2, ffn_num_hiddens=16), batch_size=4,
                            num_steps=6, num_epochs=1, snapshot_every=0, device="cpu")
    trainer = trainer_module.Trainer(config, dataset)
    assert calls == []  # building a trainer changes nothing
    first = next(iter(trainer))
    assert calls == [1] and first.kind == "step"
