"""Learning-rate schedules of a training run: the book's constant rate (§11.7), warm-up then inverse square root
(Vaswani et al. 2017, §5.3) and cosine decay to a floor, each a factor of the base rate that torch's ``LambdaLR``
applies step by step."""
from __future__ import annotations

import math

import torch
from torch.optim.lr_scheduler import LambdaLR

#: The schedules a run can be started with (the CLI's ``--lr-schedule`` choices, the studio's form).
LR_SCHEDULES = ("constant", "inverse-sqrt", "cosine")
#: Cosine decays to this share of the base rate (as Chinchilla and LLaMA decay to 10 %), then holds it.
COSINE_FLOOR = 0.1


def lr_factor(schedule: str, step: int, warmup_steps: int, schedule_steps: int) -> float:
    """The rate of the optimiser step ``step`` (0-based: the step about to be taken) as a share of the base rate.

    - ``constant``: 1 (the book's), after a linear warm-up of ``warmup_steps`` if any.
    - ``inverse-sqrt``: ``min(n^-0.5, n · w^-1.5) · w^0.5`` with ``n = step + 1`` (the paper counts steps from 1)
      and ``w = max(warmup_steps, 1)``: the paper's rate divided by its peak, so the base rate is the peak, reached
      at ``n = w``. The paper's own rate ``d_model^-0.5 · min(…)`` is this with a base rate of ``(d_model · w)^-0.5``.
    - ``cosine``: a linear warm-up, then ``f + (1 - f)(1 + cos(π t)) / 2`` with ``f = COSINE_FLOOR`` and ``t`` going
      from 0 to 1 over the rest of the ``schedule_steps`` (the run's total planned at Start); the floor after them.
      Without warm-up these are ``torch.optim.lr_scheduler.CosineAnnealingLR(T_max=schedule_steps,
      eta_min=f · base)``'s closed-form values.
    """
    n = step + 1
    if schedule == "inverse-sqrt":
        w = max(int(warmup_steps), 1)
        return min(n ** -0.5, n * w ** -1.5) * w ** 0.5
    if warmup_steps > 0 and n <= warmup_steps:
        return n / warmup_steps
    if schedule == "cosine":
        span = max(schedule_steps - warmup_steps, 1)
        t = min(step - warmup_steps, span) / span
        return COSINE_FLOOR + (1.0 - COSINE_FLOOR) * 0.5 * (1.0 + math.cos(math.pi * t))
    return 1.0


def needs_scheduler(schedule: str, warmup_steps: int) -> bool:
    """False for the book's constant rate without warm-up: no scheduler runs at all (results unchanged)."""
    return schedule != "constant" or warmup_steps > 0


def make_scheduler(optimizer: torch.optim.Optimizer, schedule: str, warmup_steps: int, schedule_steps: int,
                   base_lr: float, start_step: int = 0) -> LambdaLR:
    """A ``LambdaLR`` whose rate for the optimiser step ``start_step`` (0-based) is already set: call its ``step()``
    after every ``optimizer.step()``. A resumed run passes the steps taken, and so continues the schedule exactly."""
    for group in optimizer.param_groups:
        group["initial_lr"] = base_lr  # what LambdaLR multiplies (and a live change of the base rate replaces)
    return LambdaLR(optimizer, lambda k: lr_factor(schedule, k, warmup_steps, schedule_steps),
                    last_epoch=start_step - 1)  # its first step() (in the constructor) moves it to start_step


def set_base_lr(optimizer: torch.optim.Optimizer, scheduler: LambdaLR | None, base_lr: float) -> None:
    """A live change of the base rate: the schedule goes on from the same step with ``base_lr`` as its base, so
    the next step's rate is ``base_lr × factor(step)`` (with no schedule, simply ``base_lr``)."""
    for group in optimizer.param_groups:
        if scheduler is None:
            group["lr"] = base_lr
        else:
            group["initial_lr"] = base_lr
    if scheduler is not None:
        scheduler.base_lrs = [base_lr] * len(optimizer.param_groups)
        factors = [fn(scheduler.last_epoch) for fn in scheduler.lr_lambdas]
        for group, factor in zip(optimizer.param_groups, factors):
            group["lr"] = base_lr * factor
