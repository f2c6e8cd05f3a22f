"""Queries, keys and values in two dimensions (d2l §11.1): a volitional cue (the query) scored against
non-volitional cues (the keys), a softmax with a temperature, and attention pooling of the values.

Everything here is numpy on a handful of 2-D points, cheap enough to run on every drag step.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCORERS = ("dot product", "scaled dot product", "additive", "gaussian")
#: Bounds of the plane the keys are laid out in (and the query may be dragged over).
PLANE = (-3.0, 3.0)
MIN_TEMPERATURE, MAX_TEMPERATURE = 1e-3, 1e3
ADDITIVE_HIDDENS = 8


class CuesError(ValueError):
    """A setting of the cues demo that cannot work, with a message fit for users."""


@dataclass(frozen=True)
class CueSet:
    """Keys ``(K, 2)`` on the plane, one scalar value per key ``(K,)`` and the additive scorer's fixed
    random weights ``W_q (h, 2)``, ``W_k (h, 2)``, ``w_v (h,)``."""

    keys: np.ndarray
    values: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    w_v: np.ndarray

    @property
    def labels(self) -> list[str]:
        return [f"k{i}" for i in range(len(self.keys))]


@dataclass(frozen=True)
class CuesResult:
    """One query against the keys, and the heatmap's queries.

    ``scores``/``weights`` ``(K,)`` for the dragged query; ``output`` = Σᵢ αᵢ vᵢ; ``grid_weights``
    ``(Q, K)`` for the heatmap rows ``grid_rows`` (the dragged query, then one query at every key, or the
    identity matrix of the book's ``show_heatmaps``).
    """

    scores: np.ndarray
    weights: np.ndarray
    output: float
    grid_weights: np.ndarray
    grid_rows: list[str]


def cue_set(num_keys: int = 6, seed: int = 0) -> CueSet:
    """``num_keys`` keys spread over the plane (no two closer than 0.8) with values in [0, 10)."""
    if not 1 <= num_keys <= 16:
        raise CuesError(f"the number of keys must be between 1 and 16 (got {num_keys})")
    rng = np.random.default_rng(seed)
    lo, hi = PLANE[0] + 0.5, PLANE[1] - 0.5
    keys: list[np.ndarray] = []
    while len(keys) < num_keys:  # rejection sampling: distinct, readable points
        p = rng.uniform(lo, hi, size=2)
        if all(np.linalg.norm(p - k) >= 0.8 for k in keys):
            keys.append(p)
    values = np.round(rng.uniform(0.0, 10.0, size=num_keys), 1)
    W_q = rng.normal(0.0, 1.0, size=(ADDITIVE_HIDDENS, 2))
    W_k = rng.normal(0.0, 1.0, size=(ADDITIVE_HIDDENS, 2))
    w_v = rng.normal(0.0, 1.0, size=ADDITIVE_HIDDENS)
    return CueSet(np.array(keys), values, W_q, W_k, w_v)


def scores(queries: np.ndarray, cues: CueSet, scorer: str) -> np.ndarray:
    """Attention scores a(q, k) of queries ``(Q, 2)`` against the keys ``(K, 2)``: ``(Q, K)``.

    dot product q·k; scaled dot product q·k/√2; additive w_vᵀ tanh(W_q q + W_k k); gaussian −‖q − k‖²/2.
    """
    q = np.atleast_2d(np.asarray(queries, dtype=np.float64))  # (Q, 2)
    k = cues.keys  # (K, 2)
    if scorer == "dot product":
        return q @ k.T
    if scorer == "scaled dot product":
        return q @ k.T / np.sqrt(k.shape[1])
    if scorer == "additive":
        features = np.tanh((q @ cues.W_q.T)[:, None, :] + (k @ cues.W_k.T)[None, :, :])  # (Q, K, h)
        return features @ cues.w_v
    if scorer == "gaussian":
        return -0.5 * ((q[:, None, :] - k[None, :, :]) ** 2).sum(axis=-1)
    raise CuesError(f"unknown scoring function {scorer!r}; choose one of {', '.join(SCORERS)}")


def softmax_with_temperature(scores_: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(a / T) over the last axis (stable: the largest score is subtracted first)."""
    if not temperature > 0:
        raise CuesError(f"the temperature must be positive (got {temperature})")
    z = np.asarray(scores_, dtype=np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def cues_demo(cues: CueSet, query: tuple[float, float], scorer: str = "gaussian", temperature: float = 1.0,
              identity: bool = False) -> CuesResult:
    """Score ``query`` against the keys, softmax with ``temperature``, pool the values.

    The heatmap holds the dragged query and one query at each key; with ``identity`` it is the book's
    first heatmap instead, ``torch.eye(K)``: every query attends to its own key only (the T → 0 limit of
    the Gaussian score with the queries at the keys).
    """
    if not MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE:
        raise CuesError(f"the temperature must lie between {MIN_TEMPERATURE:g} and {MAX_TEMPERATURE:g} "
                        f"(got {temperature:g})")
    a = scores(np.array([query]), cues, scorer)[0]  # (K,)
    w = softmax_with_temperature(a, temperature)
    labels = cues.labels
    if identity:
        grid, rows = np.eye(len(labels)), [f"q{i}" for i in range(len(labels))]
    else:
        grid_queries = np.vstack([np.asarray(query, dtype=np.float64)[None], cues.keys])  # (1 + K, 2)
        grid = softmax_with_temperature(scores(grid_queries, cues, scorer), temperature)
        rows = ["q", *(f"q={name}" for name in labels)]
    return CuesResult(scores=a, weights=w, output=float(w @ cues.values), grid_weights=grid, grid_rows=rows)


def clamp_to_plane(x: float, y: float) -> tuple[float, float]:
    """(x, y) moved into the plane the keys live in."""
    lo, hi = PLANE
    return min(max(float(x), lo), hi), min(max(float(y), lo), hi)


def pooling_field(cues: CueSet, scorer: str, temperature: float, resolution: int = 64) -> np.ndarray:
    """Attention pooling Σᵢ α(q, kᵢ) vᵢ for queries q on a ``resolution``² grid over the plane.

    Returns ``(resolution, resolution)``, row r at y = cell centre r (bottom to top), column c at x likewise.
    """
    lo, hi = PLANE
    centres = lo + (np.arange(resolution) + 0.5) * (hi - lo) / resolution  # (R,)
    xs, ys = np.meshgrid(centres, centres)  # (R, R): rows follow y
    queries = np.column_stack([xs.ravel(), ys.ravel()])  # (R², 2)
    weights = softmax_with_temperature(scores(queries, cues, scorer), temperature)  # (R², K)
    return (weights @ cues.values).reshape(resolution, resolution)  # (R, R)
