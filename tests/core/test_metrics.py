"""BLEU: the book's printed scores, hand-computed brevity and clipping, corpus BLEU by hand."""
from __future__ import annotations

import math

import pytest

from explorer.core.model.metrics import bleu, corpus_bleu


@pytest.mark.parametrize("pred, label, expected", [
    # the book's §10.7 outputs: "he's calm ." and "i'm home ." translated wrongly, k=2
    ("il est riche .", "il est calme .", math.sqrt(3 / 4) * (1 / 3) ** 0.25),  # 0.658
    ("je suis en retard ?", "je suis chez moi .", math.sqrt(2 / 5) * (1 / 4) ** 0.25),  # 0.447
    ("va !", "va !", 1.0),
    ("j'ai perdu .", "j'ai perdu .", 1.0),
])
def test_book_examples(pred: str, label: str, expected: float) -> None:
    assert bleu(pred, label, k=2) == pytest.approx(expected, abs=1e-12)


def test_book_printed_values_to_three_decimals() -> None:
    assert round(bleu("il est riche .", "il est calme .", 2), 3) == 0.658
    assert round(bleu("je suis en retard ?", "je suis chez moi .", 2), 3) == 0.447


def test_brevity_penalty_and_long_predictions() -> None:
    # too short: exp(1 - 3/2); all n-grams match
    assert bleu("il pleut", "il pleut .", 2) == pytest.approx(math.exp(-0.5))
    # too long is not penalised by the brevity term, only by precision: p1 = 3/4, p2 = 2/3
    assert bleu("il pleut . .", "il pleut .", 2) == pytest.approx((3 / 4) ** 0.5 * (2 / 3) ** 0.25)


def test_clipped_counts() -> None:
    # 'le' occurs once in the label, so only one of the three can match: p1 = 1/3
    assert bleu("le le le", "le chat", 1) == pytest.approx((1 / 3) ** 0.5)
    assert bleu(["le", "le", "le"], ["le", "chat"], 1) == pytest.approx((1 / 3) ** 0.5)


def test_short_or_empty_prediction_scores_zero() -> None:
    assert bleu("", "va !", 2) == 0.0
    assert bleu([], ["va", "!"], 1) == 0.0
    assert bleu("va", "va !", 2) == 0.0  # shorter than k: the book divides by zero here
    assert bleu("x y", "a b", 2) == 0.0
    with pytest.raises(ValueError, match="k must be"):
        bleu("a", "a", 0)


def test_corpus_bleu_hand_example() -> None:
    preds = [["a", "b", "c", "d"], ["x", "b", "c"]]
    refs = [["a", "b", "c", "d"], ["a", "b", "c", "e"]]
    # summed clipped matches / candidate n-grams: p1 = (4+2)/(4+3), p2 = (3+1)/(3+2), p3 = (2+0)/(2+1),
    # p4 = (1+0)/(1+0); c = 7, r = 8
    geo = (6 / 7 * 4 / 5 * 2 / 3 * 1) ** 0.25
    assert corpus_bleu(preds, refs) == pytest.approx(math.exp(1 - 8 / 7) * geo)
    # sentence 2 alone has p4 undefined/zero, so corpus BLEU is not a mean of sentence scores
    assert corpus_bleu(preds[1:], refs[1:]) == 0.0


def test_corpus_bleu_identical_and_strings_and_max_n() -> None:
    assert corpus_bleu(["the cat sat on the mat"], ["the cat sat on the mat"]) == pytest.approx(1.0)
    preds, refs = [["il", "est", "riche", "."]], [["il", "est", "calme", "."]]
    # with max_n=2: BP 1, p1 = 3/4, p2 = 1/3, equal weights
    assert corpus_bleu(preds, refs, max_n=2) == pytest.approx(math.sqrt(3 / 4 * 1 / 3))
    assert corpus_bleu([], []) == 0.0


def test_corpus_bleu_multiple_references() -> None:
    pred = [["the", "cat", "is", "here"]]
    refs = [[["the", "cat", "is", "there", "now"], ["a", "cat", "is", "here"]]]
    # clipped against the max count over references: p1 = 4/4, p2 = 3/3 ('the cat', 'cat is', 'is here'),
    # p3 = 2/2, p4 = 0/1 -> 0; with max_n=3: closest reference length 4 -> BP 1
    assert corpus_bleu(pred, refs, max_n=3) == pytest.approx(1.0)
    assert corpus_bleu(pred, refs, max_n=4) == 0.0


def test_corpus_bleu_errors() -> None:
    with pytest.raises(ValueError, match="2 predictions but 1"):
        corpus_bleu([["a"], ["b"]], [["a"]])
    with pytest.raises(ValueError, match="max_n"):
        corpus_bleu([["a"]], [["a"]], max_n=0)
