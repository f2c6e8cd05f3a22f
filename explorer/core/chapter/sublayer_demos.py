"""The Transformer's two small sublayers, shown on real inputs (d2l §11.7.2–11.7.3): the position-wise FFN
(equal rows in, equal rows out) and layer normalization against batch normalization (what each averages over).

Normalizations are written out as means and variances over named axes (and checked against
``torch.nn.LayerNorm`` / ``torch.nn.BatchNorm1d`` in the tests), so the axes shown are the axes computed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from explorer.core.chapter.anatomy_model import AnatomyError, AnatomyModel, embed_rows, source_ids, unknown_words, words_of

EPS = 1e-5  # torch's default for both norms
BOOK_X = np.array([[1.0, 2.0], [2.0, 3.0]])  # the book's §11.7.2 tensor
MAX_SENTENCES = 6


def normalize(X: np.ndarray, axes: tuple[int, ...], eps: float = EPS) -> np.ndarray:
    """(X − mean) / √(var + eps), mean and (biased) variance taken over ``axes``; the shape of X."""
    X = np.asarray(X, dtype=np.float64)
    mean = X.mean(axis=axes, keepdims=True)
    var = X.var(axis=axes, keepdims=True)
    return (X - mean) / np.sqrt(var + eps)


def layer_norm(X: np.ndarray, eps: float = EPS) -> np.ndarray:
    """LayerNorm without its affine part: every row (token) over its own features, the last axis."""
    return normalize(X, (-1,), eps)


def batch_norm(X: np.ndarray, eps: float = EPS) -> np.ndarray:
    """BatchNorm in training mode, without its affine part: every feature (last axis) over all other axes,
    i.e. over the batch (and, for ``(B, T, d)``, over every position, padding included)."""
    return normalize(X, tuple(range(X.ndim - 1)), eps)


@dataclass(frozen=True)
class BookNorms:
    """The book's example: ``X (2, 2)``, ``ln (2, 2)`` = each row normalized, ``bn (2, 2)`` = each column."""

    X: np.ndarray
    ln: np.ndarray
    bn: np.ndarray


def book_norms() -> BookNorms:
    """LayerNorm and BatchNorm of ``[[1, 2], [2, 3]]``: ``[[-1, 1], [-1, 1]]`` and ``[[-1, -1], [1, 1]]``."""
    return BookNorms(BOOK_X.copy(), layer_norm(BOOK_X), batch_norm(BOOK_X))


@dataclass(frozen=True)
class BatchNorms:
    """A padded batch of B sentences, T steps, d features, normalized both ways.

    ``X``, ``ln``, ``bn`` ``(B, T, d)``; ``valid`` ``(B, T)`` bool (False = padding); ``tokens`` B lists of T;
    ``unknown`` words read as <unk>; ``bn_valid_only`` BatchNorm with statistics of the real tokens only; ``bn_shift`` the largest change padding
    makes to a real token's BatchNorm output; ``ln_alone`` each sentence's LayerNorm computed alone (equal to
    ``ln`` on its tokens: LayerNorm does not look at the batch).
    """

    X: np.ndarray
    ln: np.ndarray
    bn: np.ndarray
    valid: np.ndarray
    tokens: list[list[str]]
    bn_valid_only: np.ndarray
    bn_shift: float
    ln_alone_shift: float
    unknown: list[str]


def sentence_batch(m: AnatomyModel, sentences: list[str], num_steps: int = 10) -> BatchNorms:
    """The encoder's input rows (embedding × √d + positions) of ``sentences`` padded to ``num_steps``."""
    if not 1 <= len(sentences) <= MAX_SENTENCES:
        raise AnatomyError(f"type between 1 and {MAX_SENTENCES} sentences, separated by '|' (got {len(sentences)})")
    words = [words_of(s, f"sentence {i + 1}") for i, s in enumerate(sentences)]
    longest = max(len(w) for w in words) + 1
    if longest > num_steps:
        raise AnatomyError(f"a sentence of {longest} tokens (with <eos>) does not fit num_steps = {num_steps}")
    encoded = [source_ids(w, m.src_vocab, num_steps) for w in words]
    ids = torch.stack([e[0] for e in encoded])  # (B, T)
    with torch.no_grad():
        X = embed_rows(m.model, ids, "encoder").double().numpy().copy()  # (B, T, d)
    valid = np.array([[t != "<pad>" for t in e[1]] for e in encoded])
    ln, bn = layer_norm(X), batch_norm(X)
    real = X[valid]  # (N, d) the real tokens only
    bn_valid_only = (X - real.mean(axis=0)) / np.sqrt(real.var(axis=0) + EPS)
    bn_shift = float(np.abs(bn - bn_valid_only)[valid].max())
    ln_alone_shift = max(float(np.abs(layer_norm(X[b, valid[b]]) - ln[b, valid[b]]).max()) for b in range(len(X)))
    unknown = unknown_words([w for ws in words for w in ws], m.src_vocab)
    return BatchNorms(X, ln, bn, valid, [e[1] for e in encoded], bn_valid_only, bn_shift, ln_alone_shift, unknown)


def split_sentences(text: str) -> list[str]:
    """Sentences typed on one line, separated by ``|``; empty parts are dropped."""
    return [part.strip() for part in text.split("|") if part.strip()]


@dataclass(frozen=True)
class FFNDemo:
    """The FFN of one encoder block on a sentence.

    ``X (T, d)`` its input rows, ``Y (T, d)`` = FFN(X), ``tokens``; ``repeats`` pairs (i, j) of positions holding
    the same word; ``input_gap``/``output_gap`` the largest |X_i − X_j| and |Y_i − Y_j| over those pairs.
    """

    X: np.ndarray
    Y: np.ndarray
    tokens: list[str]
    repeats: list[tuple[int, int]]
    input_gap: float
    output_gap: float
    positions: bool
    unknown: list[str]


def ffn_demo(m: AnatomyModel, sentence: str, layer: int = 0, positions: bool = False) -> FFNDemo:
    """FFN of encoder block ``layer`` applied to the embeddings × √d of ``sentence`` (+ P with ``positions``).

    Without positions a repeated word is the same row, and the FFN, which sees one position at a time, gives
    the same output row: ``output_gap`` is 0. With positions the rows differ, and so do the outputs.
    """
    words = words_of(sentence)
    if not 0 <= layer < len(m.model.encoder.blocks):
        raise AnatomyError(f"the model has {len(m.model.encoder.blocks)} encoder blocks (got block {layer + 1})")
    ids, tokens = source_ids(words, m.src_vocab)
    with torch.no_grad():
        X = embed_rows(m.model, ids[None], "encoder", positions)  # (1, T, d)
        Y = m.model.encoder.blocks[layer].ffn(X)  # (1, T, d)
    x, y = X[0].double().numpy().copy(), Y[0].double().numpy().copy()
    ids_list = ids.tolist()
    repeats = [(i, j) for i in range(len(tokens)) for j in range(i + 1, len(tokens)) if ids_list[i] == ids_list[j]]
    input_gap = max((float(np.abs(x[i] - x[j]).max()) for i, j in repeats), default=float("nan"))
    output_gap = max((float(np.abs(y[i] - y[j]).max()) for i, j in repeats), default=float("nan"))
    return FFNDemo(x, y, tokens, repeats, input_gap, output_gap, positions, unknown_words(words, m.src_vocab))
