"""How many threads the training process trains with, chosen by measuring (book §11.7 run beside the GUI).

The desktop app leaves its GUI part of a core. Whether the trainer gains from that core depends on the model
(a small one loses: its OpenMP team stalls whenever the GUI takes the core; a large one gains) and on what the
GUI draws, so the tuner tries each thread count for a short while, keeps the fastest, and tries again now and then.
A round measures the count in use before and after the others (A B A), so a machine that speeds up or slows down
during the round does not decide it.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence

#: Seconds of training (pauses excluded) per trial, before the first trial, and between two rounds of trials; the
#: wait doubles (up to MAX_HOLD_S) each round that keeps the same count, since a trial of a slower count costs. The
#: first round waits 3 s: in the first seconds the GUI builds its views for the run's first snapshots.
TRIAL_S, WARMUP_S, HOLD_S, MAX_HOLD_S = 1.0, 3.0, 10.0, 480.0
#: A trial of another count ends early, after this share of TRIAL_S and at least MIN_STEPS measured steps, once it
#: trains slower than ABORT_BELOW times the best rate of its round: two threads beside a busy GUI can fall to a
#: fraction of one thread's speed. A trial lasts at least MIN_STEPS measured steps (a large model's step can take
#: a fifth of a second), and the first step after a switch is not measured: the new thread team starts up in it.
#: (A quarter of a second and 0.8 cut trials of two threads on chance: a large model steps ~4 times in that time, and
#: one redraw of the GUI's grid in it decided the trial, measured at 4,419 and 2,854 tokens/s against one thread's
#: 5,810 and 3,937 where two threads train faster over whole seconds.)
EARLY_SHARE, ABORT_BELOW, MIN_STEPS = 0.5, 0.6, 3
#: A round moves to another count only when that count trained this much faster than the one in use: two counts a few
#: per cent apart are within a one-second trial's noise, and a move to the slower one costs until the next round.
SWITCH_ABOVE = 1.05
#: torch's grain size (``at::internal::GRAIN_SIZE``): an elementwise kernel over fewer elements runs on one thread,
#: whatever the thread count. Below it, a batch's width-wide activations (residuals, layer norms, dropout, attention
#: outputs) stay on one thread; the FFN's and the output layer's wider ones may still split. Used as a cut-off, which
#: two model shapes were measured on (:func:`starting_threads`), not derived.
GRAIN_SIZE = 32768


def available_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def starting_threads(batch_size: int, num_steps: int, num_hiddens: int, cores: int) -> int:
    """The thread count a run beside the GUI starts with, before the tuner has measured anything: every core when a
    batch's activations (``batch_size × num_steps × num_hiddens`` values) reach :data:`GRAIN_SIZE`, so that torch's
    elementwise kernels split over the threads too; else every core but one, left to the GUI.

    Measured beside the studio's GUI on 2 cores (``bench/gui_responsiveness.py``, each count fixed, runs in turns):
    the book's model (64 × 10 × 32 = 20,480) trained at 0.88 and 0.85 of the engine with one thread, 0.82 and 0.74
    with two; the large one (64 × 20 × 64 = 81,920) at 0.89, 0.85 and 0.84 with two threads. A wrong start costs
    the first round of trials (~5 s at the slower count); the tuner corrects it either way.
    """
    if cores <= 1:
        return 1
    return cores if batch_size * num_steps * num_hiddens >= GRAIN_SIZE else cores - 1


class ThreadTuner:
    """Measures the thread count in use for ``trial_s`` seconds of training, then each other of ``choices`` (cut short
    once it clearly lags), then the first count again unless another was cut short (the mean of its two trials' rates
    counts: a steady drift of the machine's speed then weighs the same on every count), then trains with the one that
    reached the most tokens per second (if it beat the count in use by :data:`SWITCH_ABOVE`) for ``hold_s`` seconds
    (twice as long after each round that changed nothing, up to ``max_hold_s``), and so on.

    Feed it every step with :meth:`on_step` (the run's active seconds so far and the step's tokens), on the thread
    that trains, between steps: it calls ``set_threads`` there. ``rates`` holds the tokens/s per count of the round
    in progress, or else of the last one. ``start``: the count it trains with first (added to the choices when it is
    not one of them; None: the smallest).
    """

    def __init__(self, choices: Sequence[int], set_threads: Callable[[int], None], trial_s: float = TRIAL_S,
                 warmup_s: float = WARMUP_S, hold_s: float = HOLD_S, max_hold_s: float = MAX_HOLD_S,
                 start: int | None = None) -> None:
        self.choices = sorted({max(1, int(n)) for n in (*choices, *(() if start is None else (start,)))})
        self._set_threads = set_threads
        self.trial_s, self.hold_s, self.max_hold_s = trial_s, hold_s, max_hold_s
        self._hold = hold_s
        self._kept: int | None = None  # the count the last round kept
        self.rates: dict[int, float] = {}
        self._measured: dict[int, list[float]] = {}  # this round's trial rates (tokens/s) per count
        self.current = self.choices[0] if start is None else max(1, int(start))
        self._queue: list[int] = []  # the counts still to try in this round
        self._since = warmup_s  # when the current trial or hold started (first: after the warm-up)
        self._tokens = self._steps = 0
        self._warming = False  # the next step is the first after a switch (not measured)
        self._waiting = True  # warming up or holding: not measuring
        self._incumbent = self.current  # the count in use when the round began
        set_threads(self.current)

    def on_step(self, elapsed_s: float, tokens: int) -> None:
        """A step has ended ``elapsed_s`` active seconds into the run, scoring ``tokens`` target tokens."""
        if len(self.choices) < 2:
            return
        if self._waiting:
            if elapsed_s >= self._since:
                self._waiting = False
                self.rates, self._measured = {}, {}
                # the count in use first (measuring it costs nothing), then the others, each cut short if it lags,
                # then the first again: a drift of the machine's speed during the round weighs on both sides
                self._queue = [n for n in self.choices if n != self.current] + [self.current]
                self._incumbent = self.current
                self._begin(self.current, elapsed_s)
            return
        if self._warming:  # the step the switch happened before: its time is the new team's start-up
            self._warming = False
            self._since = elapsed_s
            return
        self._tokens += tokens
        self._steps += 1
        spent = elapsed_s - self._since
        if spent < self.trial_s * EARLY_SHARE or self._steps < MIN_STEPS:
            return
        rate = self._tokens / spent
        others = [r for n, r in self.rates.items() if n != self.current]
        lagging = bool(others) and rate < ABORT_BELOW * max(others)
        if spent < self.trial_s and not lagging:
            return
        trials = self._measured.setdefault(self.current, [])
        trials.append(rate)
        self.rates[self.current] = sum(trials) / len(trials)  # A's two trials weigh the same, however long each
        if lagging and self._queue:  # clearly slower: no need to measure the first count again
            self._queue = [n for n in self._queue if n not in self._measured]
        if self._queue:
            self._begin(self._queue.pop(0), elapsed_s)
            return
        best = max(self.rates, key=self.rates.__getitem__)
        if self.rates[best] < SWITCH_ABOVE * self.rates[self._incumbent]:  # not clearly faster: stay
            best = self._incumbent
        self._hold = min(2 * self._hold, self.max_hold_s) if best == self._kept else self.hold_s
        self._kept = best
        self._use(best)
        self._since, self._waiting = elapsed_s + self._hold, True

    def _begin(self, threads: int, elapsed_s: float) -> None:
        self._warming = threads != self.current
        self._use(threads)
        self._since, self._tokens, self._steps = elapsed_s, 0, 0

    def _use(self, threads: int) -> None:
        if threads != self.current:
            self._set_threads(threads)
            self.current = threads
