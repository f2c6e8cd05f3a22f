"""Synthetic tasks: answers, seeded generation, ideal alignments and the alignment score."""
from __future__ import annotations

import numpy as np
import pytest

from explorer.core.data.tasks import (
    DEFAULT_MAX_LEN,
    DEFAULT_MIN_LEN,
    TASKS,
    alignment_score,
    alignment_scores,
    default_probe,
    ideal_alignment,
    make_task_pairs,
    solve,
)
from explorer.core.data.readers import DatasetError
from explorer.core.data.text import build_dataset


def test_solve_examples() -> None:
    assert solve("copy", "3 1 4") == ["3", "1", "4"]
    assert solve("reverse", "3 1 4") == ["4", "1", "3"]
    assert solve("sort", "3 1 4") == ["1", "3", "4"]
    with pytest.raises(DatasetError, match="known tasks: copy, reverse, sort"):
        solve("shuffle", "1 2")


@pytest.mark.parametrize("name", TASKS)
def test_pairs_are_correct_seeded_and_fit_num_steps(name: str) -> None:
    pairs = make_task_pairs(name, 300, seed=7)
    assert pairs == make_task_pairs(name, 300, seed=7)
    assert pairs != make_task_pairs(name, 300, seed=8)
    lengths = set()
    for src, tgt in pairs:
        tokens = src.split()
        lengths.add(len(tokens))
        assert all(t in "0123456789" and len(t) == 1 for t in tokens)
        assert tgt.split() == solve(name, tokens)
    assert lengths == set(range(DEFAULT_MIN_LEN, DEFAULT_MAX_LEN + 1))
    ds = build_dataset(pairs, num_steps=10)  # the book's num_steps: every <eos> fits
    last = ds.src.gather(1, (ds.src_valid_len - 1).unsqueeze(1)).squeeze(1)  # (N,)
    assert (last == ds.src_vocab.eos).all()


def test_pairs_options_and_errors() -> None:
    pairs = make_task_pairs("sort", 20, seed=0, min_len=2, max_len=2, alphabet="abc")
    assert all(len(s.split()) == 2 and t.split() == sorted(s.split()) for s, t in pairs)
    for kwargs in ({"num_pairs": 0}, {"num_pairs": 5, "min_len": 4, "max_len": 3},
                   {"num_pairs": 5, "alphabet": ["a b"]}, {"num_pairs": 5, "alphabet": []}):
        with pytest.raises(DatasetError):
            make_task_pairs("copy", **kwargs)


def test_ideal_alignment_copy_and_reverse() -> None:
    copy = ideal_alignment("copy", "3 1 4", "3 1 4")
    np.testing.assert_array_equal(copy, np.eye(4))
    rev = ideal_alignment("reverse", ["3", "1", "4"], ["4", "1", "3"])
    expected = np.zeros((4, 4))
    expected[[0, 1, 2], [2, 1, 0]] = 1
    expected[3, 3] = 1  # <eos> -> <eos>
    np.testing.assert_array_equal(rev, expected)
    assert rev.dtype == np.float32


def test_ideal_alignment_sort_spreads_over_equal_keys() -> None:
    ideal = ideal_alignment("sort", "5 2 5 1", "1 2 5 5")
    assert ideal.shape == (5, 5)
    np.testing.assert_allclose(ideal.sum(axis=1), 1.0)
    np.testing.assert_array_equal(ideal[0], [0, 0, 0, 1, 0])
    np.testing.assert_array_equal(ideal[1], [0, 1, 0, 0, 0])
    np.testing.assert_array_equal(ideal[2], [0.5, 0, 0.5, 0, 0])
    np.testing.assert_array_equal(ideal[3], [0.5, 0, 0.5, 0, 0])
    np.testing.assert_array_equal(ideal[4], [0, 0, 0, 0, 1])


def test_ideal_alignment_rejects_wrong_answer() -> None:
    with pytest.raises(DatasetError, match="not the reverse answer"):
        ideal_alignment("reverse", "1 2 3", "1 2 3")


def test_alignment_score_values() -> None:
    ideal = ideal_alignment("reverse", "1 2 3", "3 2 1")  # (4, 4)
    assert alignment_score(ideal, ideal) == pytest.approx(1.0)
    assert alignment_score(np.full((4, 4), 0.25), ideal) == pytest.approx(0.25)
    np.testing.assert_allclose(alignment_score(np.eye(4), ideal), (0 + 1 + 0 + 1) / 4)
    # larger weights (padding keys, an extra decoded step) are cropped to the ideal's shape
    big = np.zeros((6, 10))
    big[:4, :4] = ideal
    big[4:, :] = 0.1
    assert alignment_score(big, ideal) == pytest.approx(1.0)
    # sort: mass on any equal key counts
    s_ideal = ideal_alignment("sort", "5 5", "5 5")
    w = np.array([[1.0, 0, 0], [0.3, 0.5, 0.2], [0, 0, 1]])
    assert alignment_score(w, s_ideal) == pytest.approx((1 + 0.8 + 1) / 3)


def test_alignment_scores_stack_and_errors() -> None:
    ideal = ideal_alignment("copy", "1 2", "1 2")
    heads = np.stack([np.eye(3), np.full((3, 3), 1 / 3)])  # (2, 3, 3)
    np.testing.assert_allclose(alignment_scores(heads[None], ideal), [[1.0, 1 / 3]])
    with pytest.raises(ValueError, match="smaller"):
        alignment_score(np.eye(2), ideal)
    with pytest.raises(ValueError, match="NaN"):
        alignment_score(np.full((3, 3), np.nan), ideal)
    with pytest.raises(ValueError, match="alignment_scores"):
        alignment_score(heads, ideal)


@pytest.mark.parametrize("name", TASKS)
def test_default_probe(name: str) -> None:
    src, tgt = default_probe(name, seed=0)
    assert default_probe(name, seed=0) == (src, tgt)
    assert tgt.split() == solve(name, src)
    assert len(src.split()) + 1 <= 10
    ideal_alignment(name, src, tgt)  # consistent with the task
    if name == "sort":
        assert len(set(src.split())) < len(src.split())  # one repeated digit shows the spread
