"""The training process's thread tuner keeps the faster thread count, measured, and measures again later."""
from __future__ import annotations

from explorer.core.runs.thread_tuner import ThreadTuner, starting_threads


def run(tuner: ThreadTuner, rates: dict[int, float], start_s: float, seconds: float, step_s: float = 0.05) -> float:
    """Feed steps of ``step_s`` active seconds, each scoring what the current thread count trains in that time."""
    t = start_s
    while t < start_s + seconds - 1e-9:
        t += step_s
        tuner.on_step(t, round(rates[tuner.current] * step_s))
    return t


def test_keeps_the_faster_count_then_measures_again() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=1.0, hold_s=10.0)
    assert calls == [1] and tuner.current == 1
    t = run(tuner, {1: 1000, 2: 1500}, 0.0, 4.2)  # warm-up, a second of each count (the one in use first), then
    assert tuner.current == 2 and calls == [1, 2, 1, 2]  # the first once more
    assert tuner.rates[2] > tuner.rates[1] > 0
    t = run(tuner, {1: 1000, 2: 400}, t, 5.0)  # holding: the GUI got busy, but nothing is tried yet
    assert tuner.current == 2 and calls == [1, 2, 1, 2]
    run(tuner, {1: 1000, 2: 400}, t, 8.0)  # the next round finds one thread faster now
    assert tuner.current == 1 and calls[-1] == 1


def test_a_slower_second_count_is_only_tried() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=0.5, warmup_s=0.2, hold_s=100.0)
    run(tuner, {1: 2000, 2: 800}, 0.0, 2.0)
    assert tuner.current == 1 and calls == [1, 2, 1]


def test_a_trial_that_lags_far_behind_ends_after_half_its_time() -> None:
    switches: list[tuple[int, float]] = []
    clock = [0.0]
    tuner = ThreadTuner([1, 2], lambda n: switches.append((n, clock[0])), trial_s=1.0, warmup_s=0.0, hold_s=100.0)
    rates = {1: 2000, 2: 300}  # two threads collapse beside a busy GUI
    while clock[0] < 3.0:
        clock[0] += 0.05
        tuner.on_step(clock[0], round(rates[tuner.current] * 0.05))
    assert [n for n, _ in switches] == [1, 2, 1] and tuner.current == 1
    tried_for = switches[2][1] - switches[1][1]
    assert 0.5 - 1e-9 <= tried_for <= 0.6  # not the whole second
    assert tuner.rates[2] < 0.6 * tuner.rates[1]


def test_a_close_second_count_gets_its_whole_trial() -> None:
    switches: list[tuple[int, float]] = []
    clock = [0.0]
    tuner = ThreadTuner([1, 2], lambda n: switches.append((n, clock[0])), trial_s=1.0, warmup_s=0.0, hold_s=100.0)
    rates = {1: 1000, 2: 950}
    while clock[0] < 3.0:
        clock[0] += 0.05
        tuner.on_step(clock[0], round(rates[tuner.current] * 0.05))
    assert [n for n, _ in switches] == [1, 2, 1]
    assert switches[2][1] - switches[1][1] >= 1.0 - 1e-9


def test_the_first_step_after_a_switch_is_not_held_against_a_slow_models_trial() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=0.0, hold_s=100.0)
    rates = {1: 1000, 2: 1300}  # a large model: two threads pay, each step takes a fifth of a second
    t, first_after_switch = 0.0, False
    while t < 5.0:
        t += 0.2
        rate = rates[tuner.current] / 10 if first_after_switch else rates[tuner.current]  # the team starts up
        before = tuner.current
        tuner.on_step(t, round(rate * 0.2))
        first_after_switch = tuner.current != before
    assert calls == [1, 2, 1, 2] and tuner.current == 2
    assert tuner.rates[2] > tuner.rates[1]


def test_one_choice_changes_nothing() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([2, 2], calls.append)
    run(tuner, {2: 1000}, 0.0, 100.0)
    assert calls == [2] and tuner.current == 2


def test_waits_longer_while_the_choice_stays() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=0.0, hold_s=10.0, max_hold_s=25.0)
    rates = {1: 1000, 2: 500}
    trials = []
    t = 0.0
    while t < 120.0:  # count the rounds: each tries 2 (then 1) once
        before = len(calls)
        t = run(tuner, rates, t, 0.5)
        trials += [t] * sum(1 for c in calls[before:] if c == 2)
    gaps = [b - a for a, b in zip(trials, trials[1:])]
    assert tuner.current == 1
    assert gaps[0] < gaps[1] < gaps[2] and max(gaps) < 25.0 + 3.0  # 10, 20, then 25 s (plus the trials)


def test_a_drift_during_the_round_does_not_decide_it() -> None:
    """The machine slows down steadily while the second count is tried: measured once each, the first count
    would win (it ran while the machine was faster); its second trial, after the drop, shows they are equal."""
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=0.0, hold_s=100.0)
    t = 0.0
    while t < 3.2:
        t += 0.05
        speed = 1.0 - 0.15 * min(t, 3.0)  # the machine: 100 % at the start, 55 % after three seconds
        threads_gain = 1.18 if tuner.current == 2 else 1.0  # two threads are faster at any moment
        tuner.on_step(t, round(1000 * speed * threads_gain * 0.05))
    assert calls == [1, 2, 1, 2] and tuner.current == 2


def test_a_drop_after_the_first_trial_does_not_decide_the_round() -> None:
    """The machine slows down once, right after the first trial; the count in use is measured again, its second
    trial cut short as it lags: its two trials weigh the same, so the faster count still wins."""
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=0.0, hold_s=100.0)
    t = 0.0
    while t < 3.6:
        t += 0.05
        speed = 1.0 if t <= 1.0 else 0.6
        tuner.on_step(t, round(1000 * speed * (1.4 if tuner.current == 2 else 1.0) * 0.05))
    assert calls == [1, 2, 1, 2] and tuner.current == 2


def test_starts_where_told_and_tries_the_other_count() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=1.0, hold_s=100.0, start=2)
    assert calls == [2] and tuner.current == 2
    run(tuner, {1: 1500, 2: 1000}, 0.0, 4.2)  # warm-up at two threads, then two, one, two
    assert calls == [2, 1, 2, 1] and tuner.current == 1


def test_a_start_outside_the_choices_is_one_of_them() -> None:
    tuner = ThreadTuner([3, 4], lambda n: None, start=1)
    assert tuner.choices == [1, 3, 4] and tuner.current == 1


def test_the_start_is_every_core_once_a_batch_reaches_the_grain_size() -> None:
    assert starting_threads(64, 10, 32, cores=2) == 1  # the book's model: 20,480 values a batch
    assert starting_threads(64, 20, 64, cores=2) == 2  # 81,920
    assert starting_threads(32, 32, 32, cores=8) == 8  # exactly the grain size
    assert starting_threads(64, 20, 64, cores=1) == 1
    assert starting_threads(1, 1, 1, cores=16) == 15


def test_a_count_only_a_little_faster_does_not_move_the_run() -> None:
    calls: list[int] = []
    tuner = ThreadTuner([1, 2], calls.append, trial_s=1.0, warmup_s=0.5, hold_s=100.0)
    run(tuner, {1: 1000, 2: 1030}, 0.0, 4.0)  # 3 % faster: within a trial's noise
    assert tuner.current == 1 and calls == [1, 2, 1]
    assert tuner.rates[2] > tuner.rates[1]
