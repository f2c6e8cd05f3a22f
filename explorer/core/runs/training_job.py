"""What a training process is asked to do (:class:`TrainingJob`): plain, picklable values the parent
(:mod:`explorer.core.runs.process`) hands to the child (:mod:`explorer.core.runs.training_child`)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainingJob:
    """Everything the child needs, as plain picklable values.

    ``config`` is ``TrainingConfig.to_dict()``; ``data_spec``, ``num_examples`` and ``data_seed`` are what
    ``data_sources.load_source`` takes; ``probe`` is the (source, target) pair to snapshot (None: the first pair);
    ``num_threads`` is torch's intra-op thread count in the child (None: torch's default, one per core); with
    ``tune_threads`` it is where the child starts, and it then measures all its cores and all but one (and that
    count) against each other and keeps the fastest, again after 10 s and then less and less often
    (``thread_tuner.ThreadTuner``): the GUI beside it leaves a share of a core.
    ``run_dir``: the child also records the run there (``run_writer.RunWriter``; a new or empty folder, refused
    otherwise with an ``ErrorEvent(reason="run_dir")`` before training); the probe pair is translated each epoch,
    and a checkpoint written at an epoch's end once ``checkpoint_interval_s`` have passed since the last one;
    ``probe_interval_s`` spaces the probe's translations the same way (``RunWriter``). ``nice``: the child lowers
    its scheduling priority by this much (where the system has ``os.nice``), so a GUI beside it is served first.
    """

    config: dict
    data_spec: str
    num_examples: int
    data_seed: int
    probe: tuple[str, str] | None = None
    num_threads: int | None = None
    run_dir: str | None = None
    checkpoint_interval_s: float = 0.0
    tune_threads: bool = False
    probe_interval_s: float = 0.0
    nice: int = 0
