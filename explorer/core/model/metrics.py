"""BLEU: the book's sentence score (D2L §10.7.6) and standard corpus BLEU (Papineni et al., 2002)."""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence, Union

from explorer.core.checks import positive_int

Tokens = Union[str, Sequence[str]]


def _as_tokens(seq: Tokens) -> list[str]:
    """A sentence as tokens: strings are split on whitespace, token sequences are used as they are."""
    if isinstance(seq, str):
        return seq.split()
    return [str(t) for t in seq]


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu(pred_seq: Tokens, label_seq: Tokens, k: int) -> float:
    """The book's BLEU of one prediction against one label.

    ``exp(min(0, 1 - len_label / len_pred)) * prod_{n=1..k} p_n ** (0.5 ** n)`` where ``p_n`` is the
    clipped n-gram precision (each label n-gram can be matched once per occurrence).

    Parameters
    ----------
    pred_seq, label_seq : space-separated strings (as in the book) or token lists.
    k : longest n-gram, at least 1.

    Returns 0.0, where the book would divide by zero or go negative, when the prediction is
    empty or shorter than ``k`` tokens.
    """
    positive_int(k, "k")
    pred, label = _as_tokens(pred_seq), _as_tokens(label_seq)
    len_pred, len_label = len(pred), len(label)
    if len_pred < k:
        return 0.0
    score = math.exp(min(0.0, 1.0 - len_label / len_pred))
    for n in range(1, k + 1):
        label_counts = _ngrams(label, n)
        pred_counts = _ngrams(pred, n)
        matches = sum(min(c, label_counts[g]) for g, c in pred_counts.items())
        score *= math.pow(matches / (len_pred - n + 1), math.pow(0.5, n))
    return score


def corpus_bleu(
    preds: Sequence[Sequence[str]],
    refs: Sequence[Sequence[str] | Sequence[Sequence[str]]],
    max_n: int = 4,
) -> float:
    """Standard corpus BLEU with uniform weights, no smoothing.

    Clipped n-gram matches and candidate n-gram counts are summed over the corpus; the score is
    ``BP * exp(mean_n log p_n)`` for ``n = 1..max_n`` with ``BP = exp(min(0, 1 - r / c))``, ``c`` the
    total prediction length and ``r`` the total reference length (with several references per
    sentence: the length closest to the prediction's, the shorter one on a tie).

    Parameters
    ----------
    preds : token lists (strings are split on whitespace).
    refs : one reference per prediction (a token list), or a list of token lists per prediction.

    Returns 0.0 when any ``p_n`` is zero or the corpus is empty.
    """
    positive_int(max_n, "max_n")
    if len(preds) != len(refs):
        raise ValueError(f"got {len(preds)} predictions but {len(refs)} references")
    matches = [0] * max_n
    totals = [0] * max_n
    pred_len = ref_len = 0
    for pred_seq, ref_item in zip(preds, refs):
        pred = _as_tokens(pred_seq)
        ref_list = _reference_list(ref_item)
        pred_len += len(pred)
        ref_len += min((abs(len(r) - len(pred)), len(r)) for r in ref_list)[1]
        for n in range(1, max_n + 1):
            pred_counts = _ngrams(pred, n)
            max_ref: Counter[tuple[str, ...]] = Counter()
            for r in ref_list:
                max_ref |= _ngrams(r, n)  # element-wise max over references
            matches[n - 1] += sum(min(c, max_ref[g]) for g, c in pred_counts.items())
            totals[n - 1] += max(len(pred) - n + 1, 0)
    if pred_len == 0 or min(matches) == 0:
        return 0.0
    log_p = sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n
    brevity = min(0.0, 1.0 - ref_len / pred_len)
    return math.exp(brevity + log_p)


def _reference_list(item: Tokens | Sequence[Sequence[str]]) -> list[list[str]]:
    """One reference (string or token list) or several (list of those) → a non-empty list of token
    lists; an empty list counts as one empty reference."""
    if isinstance(item, str):
        return [item.split()]
    items = list(item)
    if items and not isinstance(items[0], str):
        return [_as_tokens(r) for r in items]  # several references
    return [_as_tokens(items)]
