"""One interface for every model whose attention can be inspected (book §11.7 maps, and Hugging Face models):
``describe`` / ``attention`` / ``generate``, answering in one ``(kind, layer) -> (heads, queries, keys)`` form.

``open_model`` picks the implementation: our checkpoint file, a run directory, or a Hugging Face folder.
"""
from __future__ import annotations

import functools
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from explorer.core.atomic_file import atomic_open
from explorer.core.checks import positive_int
from explorer.core.choices import ATTENTION_KINDS
from explorer.core.model.decoding import METHODS

FAMILIES = ("encoder-decoder", "encoder-only", "decoder-only")


class ModelError(ValueError):
    """A model could not be opened or asked; the message is fit to show to a user."""


@dataclass(frozen=True)
class ModelInfo:
    """What a model is: names, sizes and which attention kinds it has (``layers``/``heads`` per kind)."""

    name: str  # the file or folder name
    origin: str  # "checkpoint" (ours) or "huggingface"
    architecture: str  # e.g. "MarianMTModel", "Seq2SeqTransformer"
    model_type: str  # e.g. "marian", "bert", "d2l-transformer"
    family: str  # one of FAMILIES
    kinds: tuple[str, ...]  # the kinds present, in ATTENTION_KINDS order
    layers: dict[str, int]
    heads: dict[str, int]
    hidden_size: int
    parameters: int
    vocab_size: int  # the (source) vocabulary
    target_vocab_size: int | None = None  # only where the target side has its own vocabulary
    max_positions: int | None = None  # longest input the model can read, where it has a limit
    #: key/value heads per kind where query heads share them (grouped- or multi-query attention); absent: one each
    kv_heads: dict[str, int] = field(default_factory=dict)
    #: per kind, the sliding window of each layer (0: the layer sees every key its mask allows); absent: none
    windows: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def kv_head(self, kind: str, head: int) -> int | None:
        """The key/value head that query ``head`` of ``kind`` shares, or None where each head has its own."""
        kv = self.kv_heads.get(kind)
        if not kv or kv >= self.heads[kind]:
            return None
        return head // (self.heads[kind] // kv)

    def summary(self) -> str:
        """One line for a window title or a status bar."""
        layers = "+".join(str(self.layers[k]) for k in self.kinds if k != "cross")
        heads = max(self.heads.values()) if self.heads else 0
        shared = f" ({min(self.kv_heads.values())} key/value)" if self.kv_heads else ""
        return (f"{self.architecture} ({self.family}): {layers} layers × {heads} heads{shared}, d={self.hidden_size}, "
                f"{_count(self.parameters)} parameters")


def _count(n: int) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


@dataclass
class AttentionResult:
    """Every head's attention for one source (and target) text.

    ``maps[kind][layer]`` is float32 ``(heads, queries, keys)``; each row sums to 1 over the keys its query
    may see (a causal decoder's later keys are 0). ``query_tokens[kind]`` / ``key_tokens[kind]`` label the
    axes: encoder = source tokens; decoder queries and keys = the decoder's inputs (a start token, then the
    target but its last token); cross = decoder inputs × source tokens. For a decoder-only model the
    ``decoder`` kind spans the source tokens followed by the target tokens.
    """

    source_tokens: list[str]
    target_tokens: list[str]
    maps: dict[str, list[np.ndarray]]
    query_tokens: dict[str, list[str]]
    key_tokens: dict[str, list[str]]
    decoder_input_tokens: list[str] = field(default_factory=list)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in ATTENTION_KINDS if k in self.maps)

    def stacked(self, kind: str) -> np.ndarray:
        """All layers of ``kind`` as one ``(layers, heads, queries, keys)`` array (a copy)."""
        return np.stack(self.maps[kind])

    def snapshot_maps(self) -> dict[str, np.ndarray]:
        """The maps as a :class:`~explorer.core.training.events.SnapshotEvent` holds them, ``(L, h, Tq, Tk)`` each."""
        return {k: self.stacked(k) for k in self.kinds}

    def nbytes(self) -> int:
        return sum(m.nbytes for layers in self.maps.values() for m in layers)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The ``.npz`` content: token string arrays plus ``encoder.L`` / ``decoder.L`` / ``cross.L`` maps."""
        out = {"source_tokens": _strings(self.source_tokens), "target_tokens": _strings(self.target_tokens)}
        if self.decoder_input_tokens:
            out["decoder_input_tokens"] = _strings(self.decoder_input_tokens)
        for kind in self.kinds:
            for layer, m in enumerate(self.maps[kind]):
                out[f"{kind}.{layer}"] = np.ascontiguousarray(m, dtype=np.float32)
        return out


def _strings(tokens: list[str]) -> np.ndarray:
    return np.array([str(t) for t in tokens], dtype=np.str_)  # unicode, loads without allow_pickle


@dataclass
class PooledAttention:
    """Pooled thumbnails of every head, for texts too long to hold every full map.

    ``maps[kind]`` is float32 ``(layers, heads, qbins, kbins)``: bin (i, j) is the attention mass that the
    queries of row bin i give to the keys of column bin j, averaged over those queries (rows still sum
    to 1). ``query_edges[kind]`` / ``key_edges[kind]`` hold the token index where each bin starts, then the
    token count. Token labels are at full resolution, as in :class:`AttentionResult`.
    """

    source_tokens: list[str]
    target_tokens: list[str]
    maps: dict[str, np.ndarray]
    query_tokens: dict[str, list[str]]
    key_tokens: dict[str, list[str]]
    query_edges: dict[str, np.ndarray]
    key_edges: dict[str, np.ndarray]
    size: int

    def nbytes(self) -> int:
        return sum(m.nbytes for m in self.maps.values())


@dataclass
class Generation:
    """A generated output: ``tokens`` as produced (its end-of-sequence token included when produced),
    ``text`` decoded, and ``attention`` of the source and output in one teacher-forced pass (``cross`` row i
    is the step that produced ``tokens[i]``)."""

    tokens: list[str]
    text: str
    finished: bool
    method: str
    attention: AttentionResult


def pool_edges(n: int, size: int) -> np.ndarray:
    """``min(n, size) + 1`` increasing bin edges over ``n`` positions, as even as whole tokens allow."""
    bins = max(1, min(int(n), int(size)))
    return np.floor(np.linspace(0, n, bins + 1)).astype(np.int64)


def pooled_maps(maps: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pool the last two axes ``(..., queries, keys)`` of ``maps`` to at most ``size × size`` bins.

    Keys are summed within a bin and queries averaged, so a row of the result is still a distribution
    over key bins. Returns ``(pooled float32 (..., qbins, kbins), query_edges, key_edges)``.
    """
    if size < 1:
        raise ModelError(f"the thumbnail size must be at least 1, got {size}")
    arr = np.asarray(maps, dtype=np.float32)
    q, k = arr.shape[-2:]
    if q == 0 or k == 0:
        return arr.copy(), np.zeros(1, np.int64), np.zeros(1, np.int64)
    q_edges, k_edges = pool_edges(q, size), pool_edges(k, size)
    by_key = np.add.reduceat(arr, k_edges[:-1], axis=-1)  # (..., q, kbins)
    by_both = np.add.reduceat(by_key, q_edges[:-1], axis=-2)  # (..., qbins, kbins)
    by_both /= np.diff(q_edges).astype(np.float32)[:, None]
    return by_both.astype(np.float32, copy=False), q_edges, k_edges


@functools.lru_cache(maxsize=16)  # a grid asks once per layer: layers share a few windows and sizes
def masked_bins(window: int, queries: int, keys: int, qbins: int | None = None,
                kbins: int | None = None) -> np.ndarray:
    """Where a causal self-attention map with a sliding ``window`` (0: none) masks every key: bool ``(qbins, kbins)``,
    True for a bin none of whose cells a query may see (keys after the query, or ``window`` or more before it).
    Bins as :func:`pool_edges` cuts ``queries × keys`` to at most ``qbins × kbins`` (default: one per token)."""
    q = np.arange(queries)[:, None]  # (Tq, 1)
    k = np.arange(keys)[None, :]  # (1, Tk)
    seen = k <= q
    if window:
        seen &= q - k < window  # (Tq, Tk)
    q_edges, k_edges = pool_edges(queries, qbins or queries), pool_edges(keys, kbins or keys)
    if queries == 0 or keys == 0:
        return np.zeros((len(q_edges) - 1, len(k_edges) - 1), bool)
    counts = np.add.reduceat(np.add.reduceat(seen.astype(np.int32), k_edges[:-1], axis=1), q_edges[:-1], axis=0)
    masked = counts == 0  # (qbins, kbins)
    masked.flags.writeable = False  # shared by every caller of the cache
    return masked


class InspectableModel(ABC):
    """A model that answers "attention maps for this source/target" (see :class:`AttentionResult`)."""

    @abstractmethod
    def describe(self) -> ModelInfo:
        """Names, sizes and attention kinds of the model."""

    @abstractmethod
    def attention(self, source: str, target: str | None = None) -> AttentionResult:
        """Every head's attention, from one eval-mode forward pass without gradients.

        An encoder–decoder reads ``source`` and is teacher-forced on ``target`` (its greedy output when
        ``target`` is None); a decoder-only model reads ``source`` then ``target``; an encoder-only model
        refuses a target. Raises :class:`ModelError` (or another ``ValueError``) for unusable text.
        """

    def generate(self, source: str, method: str = "greedy", beam_width: int = 4,
                 max_new_tokens: int | None = None) -> Generation:
        """Translate / continue ``source`` (greedy or beam search) with the attention of the output."""
        raise ModelError(f"{self.describe().architecture} is an encoder-only model: it does not generate text")

    def pooled_attention(self, source: str, target: str | None = None, size: int = 256) -> PooledAttention:
        """Every head pooled to at most ``size × size`` (see :class:`PooledAttention`).

        This default computes the full maps first; implementations for long texts pool layer by layer.
        """
        full = self.attention(source, target)
        maps, q_edges, k_edges = {}, {}, {}
        for kind in full.kinds:
            maps[kind], q_edges[kind], k_edges[kind] = pooled_maps(full.stacked(kind), size)
        return PooledAttention(full.source_tokens, full.target_tokens, maps, full.query_tokens,
                               full.key_tokens, q_edges, k_edges, size)

    def head_attention(self, source: str, target: str | None, kind: str, layer: int, head: int) -> np.ndarray:
        """One head at full resolution, float32 ``(queries, keys)`` (recomputed on demand)."""
        full = self.attention(source, target)
        check_head(self.describe(), kind, layer, head)
        return full.maps[kind][layer][head].copy()


def check_head(info: ModelInfo, kind: str, layer: int, head: int) -> None:
    """Raise :class:`ModelError` unless ``(kind, layer, head)`` exists in the model."""
    if kind not in info.kinds:
        raise ModelError(f"{info.architecture} has no {kind} attention (it has {', '.join(info.kinds)})")
    if not 0 <= layer < info.layers[kind]:
        raise ModelError(f"layer {layer} does not exist: {kind} layers are 0 to {info.layers[kind] - 1}")
    if not 0 <= head < info.heads[kind]:
        raise ModelError(f"head {head} does not exist: heads are 0 to {info.heads[kind] - 1}")


def check_method(method: str, beam_width: int) -> None:
    """Raise :class:`ModelError` for an unknown method or a beam width below 1."""
    if method not in METHODS:
        raise ModelError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    positive_int(beam_width, "beam width", ModelError)


def save_npz(result: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``result.to_arrays()`` (an :class:`AttentionResult`, a model diff …) to ``path`` (uncompressed ``.npz``) atomically: temp file, then rename."""
    target = Path(path)
    if target.is_dir():
        raise ModelError(f"{target} is a folder; give a file name such as maps.npz")
    if not target.parent.is_dir():
        raise ModelError(f"the folder {target.parent} does not exist: give a file name in an existing folder")
    opened = False
    try:
        with atomic_open(target, "wb") as handle:
            opened = True
            np.savez(handle, **result.to_arrays())
    except OSError as exc:
        if not opened:
            raise ModelError(f"cannot write to folder {target.parent}: {exc.strerror or exc}") from exc
        raise ModelError(f"could not write {target}: {exc.strerror or exc}") from exc
    return target
