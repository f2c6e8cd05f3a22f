"""The studio's training process starts with the thread count its model's batches call for, on the cores it may use;
what start-up and panel builds make is frozen, made with the collector paused."""
from __future__ import annotations

import gc
import weakref

import pytest

from explorer.core.model.transformer import TransformerConfig
from explorer.core.training.config import TrainingConfig
from explorer.ui.process_settings import making_lasting_objects, training_threads

LARGE = TrainingConfig(model=TransformerConfig(num_layers=6, num_heads=8, num_hiddens=64, ffn_num_hiddens=128),
                       num_steps=20)


def test_the_studio_starts_a_large_model_on_every_core(monkeypatch) -> None:
    monkeypatch.setattr("explorer.ui.process_settings.available_cores", lambda: 2)
    assert training_threads(TrainingConfig()) == 1  # the book's model leaves a core to the GUI
    assert training_threads(LARGE) == 2
    assert training_threads() == 1
    monkeypatch.setattr("explorer.ui.process_settings.available_cores", lambda: 1)
    assert training_threads(LARGE) is None


def test_the_start_counts_only_the_cores_this_process_may_run_on(monkeypatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert training_threads(LARGE) == 4
    assert training_threads(TrainingConfig()) == 3


def test_lasting_objects_are_frozen_made_with_the_collector_paused_and_garbage_before_is_freed() -> None:
    class Cycle:
        pass

    garbage = Cycle()
    garbage.me = garbage
    gone = weakref.ref(garbage)
    del garbage
    frozen_before = gc.get_freeze_count()
    with making_lasting_objects():
        assert gone() is None  # freed before the block, not frozen with what it makes
        assert not gc.isenabled()
        kept = [Cycle() for _ in range(50)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(kept)
    assert not any(o is kept for o in gc.get_objects())


def test_the_collector_resumes_when_the_block_fails() -> None:
    with pytest.raises(RuntimeError), making_lasting_objects():
        raise RuntimeError("a build that fails")
    assert gc.isenabled()
