"""Text pipeline for machine translation: tokenizing, the vocabulary, truncate/pad, the tensor
dataset and single-sentence encoding (D2L §10.5.2–10.5.4). Readers live in ``readers.py``."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence, overload

import numpy as np
import torch

from explorer.core.checks import positive_int
from explorer.core.data.readers import (
    MAX_TEXT_BYTES,
    DatasetError,
    ReadResult,
    normalize_side,
    preprocess_nmt,
    read_pairs,
)

__all__ = [
    "MAX_TEXT_BYTES", "DatasetError", "ReadResult", "preprocess_nmt", "normalize_side", "read_pairs", "tokenize",
    "Vocab", "truncate_pad", "NMTDataset", "build_dataset", "EncodedSentence", "encode_sentence",
    "UNK", "PAD", "BOS", "EOS", "RESERVED_TOKENS",
]

UNK, PAD, BOS, EOS = "<unk>", "<pad>", "<bos>", "<eos>"
#: Largest id tensors :func:`build_dataset` makes (source + target, int64), in bytes.
MAX_DATASET_BYTES = 2 * 1024**3
RESERVED_TOKENS: tuple[str, ...] = (PAD, BOS, EOS)


def tokenize(sentence: str) -> list[str]:
    """Split a preprocessed sentence into word tokens on whitespace (no empty tokens)."""
    return sentence.split()


def _count(tokens: Iterable[Any]) -> Counter[str]:
    """Token counts of a token list or a list of token lists; keys in order of first appearance."""
    counter: Counter[str] = Counter()
    for item in tokens:
        if isinstance(item, str):
            counter[item] += 1
        else:
            counter.update(item)  # one sentence at a time, in C
    return counter


class Vocab:
    """Token ↔ index table, as the book builds it.

    ``idx_to_token = ['<unk>', *reserved_tokens, *tokens]`` where the other tokens are sorted by
    descending frequency, **ties kept in order of first appearance** (the book's stable sort of a
    ``Counter``), and tokens seen fewer than ``min_freq`` times are left out (they map to ``<unk>``).

    Parameters
    ----------
    tokens : a list of tokens or a list of token lists (sentences).
    min_freq : minimum count for a token to get its own index.
    reserved_tokens : tokens placed right after ``<unk>`` whatever their frequency.
    """

    def __init__(
        self,
        tokens: Iterable[Any] = (),
        min_freq: int = 0,
        reserved_tokens: Sequence[str] = RESERVED_TOKENS,
    ) -> None:
        counter = _count(tokens)
        # sorted() is stable, also with reverse=True: equal counts keep first-appearance order.
        self._token_freqs = sorted(counter.items(), key=lambda kv: kv[1], reverse=True)
        self.min_freq = int(min_freq)
        self.reserved_tokens = list(reserved_tokens)
        self.idx_to_token: list[str] = []
        self.token_to_idx: dict[str, int] = {}
        for tok in (UNK, *self.reserved_tokens):
            self._add(tok)
        for tok, freq in self._token_freqs:
            if freq < self.min_freq:
                break
            self._add(tok)

    def _add(self, tok: str) -> None:
        if tok not in self.token_to_idx:
            self.token_to_idx[tok] = len(self.idx_to_token)
            self.idx_to_token.append(tok)

    def __len__(self) -> int:
        return len(self.idx_to_token)

    def __contains__(self, token: object) -> bool:
        return token in self.token_to_idx

    @overload
    def __getitem__(self, tokens: str) -> int: ...
    @overload
    def __getitem__(self, tokens: list[str] | tuple[str, ...]) -> list[int]: ...

    def __getitem__(self, tokens: Any) -> Any:
        """Index of a token (``unk`` when unknown), or a list of indices for a list/tuple of tokens."""
        if isinstance(tokens, (list, tuple)):
            get = self.token_to_idx.get
            return [get(t, 0) for t in tokens]
        return self.token_to_idx.get(tokens, 0)

    def to_tokens(self, indices: Any) -> Any:
        """Token of an index, or a list of tokens for a list/array/tensor of indices."""
        if isinstance(indices, torch.Tensor):
            indices = indices.tolist()
        elif hasattr(indices, "tolist"):  # numpy arrays and scalars
            indices = indices.tolist()
        if isinstance(indices, (list, tuple)):
            return [self.to_tokens(i) for i in indices]
        i = int(indices)
        if not 0 <= i < len(self.idx_to_token):
            raise IndexError(f"token index {i} is outside the vocabulary (size {len(self)})")
        return self.idx_to_token[i]

    @property
    def unk(self) -> int:
        return 0

    @property
    def pad(self) -> int:
        return self._reserved_index(PAD)

    @property
    def bos(self) -> int:
        return self._reserved_index(BOS)

    @property
    def eos(self) -> int:
        return self._reserved_index(EOS)

    def _reserved_index(self, tok: str) -> int:
        try:
            return self.token_to_idx[tok]
        except KeyError:
            raise KeyError(f"this vocabulary has no {tok} token") from None

    @property
    def token_freqs(self) -> list[tuple[str, int]]:
        """``(token, count)`` pairs of the corpus it was built from, most frequent first."""
        return list(self._token_freqs)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description (for checkpoints); :meth:`from_dict` restores the same indices."""
        return {
            "idx_to_token": list(self.idx_to_token),
            "reserved_tokens": list(self.reserved_tokens),
            "min_freq": self.min_freq,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Vocab:
        """Rebuild a vocabulary saved by :meth:`to_dict`; raises ``ValueError`` on a malformed one."""
        if not isinstance(d, dict):
            raise ValueError("invalid vocabulary: expected a dict")
        itos = d.get("idx_to_token")
        if not isinstance(itos, list) or not itos or not all(isinstance(t, str) for t in itos):
            raise ValueError("invalid vocabulary: 'idx_to_token' must be a non-empty list of strings")
        if itos[0] != UNK:
            raise ValueError(f"invalid vocabulary: index 0 must be {UNK}, found {itos[0]!r}")
        if len(set(itos)) != len(itos):
            raise ValueError("invalid vocabulary: duplicate tokens")
        reserved = d.get("reserved_tokens", list(RESERVED_TOKENS))
        if not isinstance(reserved, list) or not all(isinstance(t, str) and t in itos for t in reserved):
            raise ValueError("invalid vocabulary: 'reserved_tokens' must list tokens of the vocabulary")
        vocab = cls.__new__(cls)
        vocab.idx_to_token = list(itos)
        vocab.token_to_idx = {t: i for i, t in enumerate(itos)}
        vocab.reserved_tokens = list(reserved)
        vocab.min_freq = int(d.get("min_freq", 0))
        vocab._token_freqs = []
        return vocab

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.idx_to_token == other.idx_to_token

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Vocab(size={len(self)}, min_freq={self.min_freq})"


def truncate_pad(ids: Sequence[int], num_steps: int, padding: int) -> list[int]:
    """Cut ``ids`` to ``num_steps`` or pad it with ``padding`` up to ``num_steps`` (the book's rule)."""
    if len(ids) > num_steps:
        return list(ids[:num_steps])
    return list(ids) + [padding] * (num_steps - len(ids))


def _build_array(lines: list[list[str]], vocab: Vocab, num_steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids + ``<eos>``, truncated/padded: ``(N, num_steps)`` int64 and valid lengths ``(N,)`` int64
    counted as the book does (non-``<pad>`` entries, so a truncated line loses its ``<eos>``)."""
    pad, eos = vocab.pad, vocab.eos
    get = vocab.token_to_idx.get
    array = np.full((len(lines), num_steps), pad, dtype=np.int64)  # (N, T)
    for row, line in zip(array, lines):
        ids = [get(t, 0) for t in line[:num_steps]]
        ids.append(eos)
        n = min(len(ids), num_steps)
        row[:n] = ids[:n]
    tensor = torch.from_numpy(array)
    valid_len = (tensor != pad).sum(dim=1, dtype=torch.int64)  # (N,)
    return tensor, valid_len


@dataclass
class NMTDataset:
    """Tensors for a translation (or synthetic) corpus, ready for batching.

    ``src``/``tgt`` are ``(N, num_steps)`` int64 ids ending in ``<eos>`` then ``<pad>``;
    ``src_valid_len``/``tgt_valid_len`` are ``(N,)`` int64; ``src_tokens``/``tgt_tokens`` the
    token lists before ids; ``pairs`` the sentence pairs; ``skipped`` the reader's skipped lines.
    """

    src: torch.Tensor
    src_valid_len: torch.Tensor
    tgt: torch.Tensor
    tgt_valid_len: torch.Tensor
    src_vocab: Vocab
    tgt_vocab: Vocab
    pairs: list[tuple[str, str]]
    skipped: int = 0
    src_tokens: list[list[str]] = field(default_factory=list)
    tgt_tokens: list[list[str]] = field(default_factory=list)
    num_steps: int = 0

    def __len__(self) -> int:
        return int(self.src.shape[0])


def build_dataset(
    pairs: Sequence[tuple[str, str]],
    num_steps: int,
    min_freq: int = 2,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    *,
    skipped: int = 0,
) -> NMTDataset:
    """Tokenize pairs, build (or reuse) vocabularies and the padded id tensors, like the book's
    ``load_data_nmt`` without the data loader.

    Parameters
    ----------
    pairs : ``(source, target)`` preprocessed sentences (as from :func:`read_pairs`).
    num_steps : sequence length T; longer sequences are cut (losing ``<eos>``, as in the book).
    min_freq : for vocabularies built here.
    src_vocab, tgt_vocab : reuse these instead (e.g. from a checkpoint).
    """
    positive_int(num_steps, "num_steps", DatasetError)
    if min_freq < 0:
        raise DatasetError(f"min_freq must be 0 or more, got {min_freq!r}")
    pairs = [tuple(p) for p in pairs]  # type: ignore[misc]
    if not pairs:
        raise DatasetError("there are no sentence pairs to build a dataset from")
    for i, p in enumerate(pairs):
        if len(p) != 2 or not all(isinstance(s, str) for s in p):
            raise DatasetError(f"pair {i + 1} is not a (source, target) pair of strings: {p!r}")
    need = 2 * len(pairs) * num_steps * 8  # two (N, T) int64 tensors
    if need > MAX_DATASET_BYTES:
        raise DatasetError(f"{len(pairs):,} pairs of {num_steps} steps need {need / 2**30:.1f} GB of token ids "
                           f"(the limit is {MAX_DATASET_BYTES / 2**30:.0f} GB): use fewer pairs or fewer steps")
    src_tokens = [tokenize(s) for s, _ in pairs]
    tgt_tokens = [tokenize(t) for _, t in pairs]
    if src_vocab is None:
        src_vocab = Vocab(src_tokens, min_freq=min_freq)
    if tgt_vocab is None:
        tgt_vocab = Vocab(tgt_tokens, min_freq=min_freq)
    src, src_valid_len = _build_array(src_tokens, src_vocab, num_steps)
    tgt, tgt_valid_len = _build_array(tgt_tokens, tgt_vocab, num_steps)
    return NMTDataset(
        src=src, src_valid_len=src_valid_len, tgt=tgt, tgt_valid_len=tgt_valid_len,
        src_vocab=src_vocab, tgt_vocab=tgt_vocab, pairs=list(pairs), skipped=skipped,  # type: ignore[arg-type]
        src_tokens=src_tokens, tgt_tokens=tgt_tokens, num_steps=num_steps,
    )


@dataclass
class EncodedSentence:
    """A sentence ready for the encoder.

    ``ids`` ``(num_steps,)`` int64, padded; ``valid_len`` non-pad positions; ``tokens`` the words
    the encoder sees, as typed after preprocessing, ending with ``<eos>`` (``len(tokens) == valid_len``,
    handy as heatmap labels); ``unknown`` the words that map to ``<unk>``; ``truncated`` whether
    the sentence and its ``<eos>`` were cut to fit ``num_steps``; ``dropped`` the words the encoder does not read.
    """

    ids: torch.Tensor
    valid_len: int
    tokens: list[str]
    unknown: list[str]
    truncated: bool = False
    dropped: list[str] = field(default_factory=list)


def encode_sentence(sentence: str, vocab: Vocab, num_steps: int) -> EncodedSentence:
    """Preprocess + tokenize + ids + ``<eos>``, truncated/padded to ``num_steps``.

    Raises :class:`DatasetError` for an empty sentence or an impossible ``num_steps``.
    """
    if not isinstance(sentence, str):
        raise DatasetError(f"expected a sentence as text, got {type(sentence).__name__}")
    positive_int(num_steps, "num_steps", DatasetError)
    words = tokenize(normalize_side(sentence))
    if not words:
        raise DatasetError("empty sentence: type a few words to translate")
    unknown = [w for w in dict.fromkeys(words) if w not in vocab]
    tokens = (words + [EOS])[:num_steps]
    ids = truncate_pad(vocab[tokens], num_steps, vocab.pad)
    return EncodedSentence(
        ids=torch.tensor(ids, dtype=torch.int64),
        valid_len=len(tokens),
        tokens=tokens,
        unknown=unknown,
        truncated=len(words) + 1 > num_steps,
        dropped=words[num_steps:],
    )
