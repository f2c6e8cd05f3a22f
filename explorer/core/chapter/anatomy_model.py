"""The model the Transformer-anatomy views look inside (d2l §11.7): the book's Transformer with its vocabularies,
built untrained from the bundled corpus or handed in (trained elsewhere or opened by the caller); and the
encoder's and decoder's input rows (embedding × √d + positional encoding) for typed sentences.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from explorer.core.data.sources import load_source
from explorer.core.data.text import BOS, EOS, PAD, Vocab, build_dataset, tokenize
from explorer.core.data.readers import normalize_side
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

#: Longest sentence the anatomy views take (tokens, ``<eos>`` included): the heatmaps stay readable.
MAX_TOKENS = 24
BUILTIN_PAIRS, BUILTIN_STEPS = 600, 10  # the book's first 600 pairs, num_steps 10


class AnatomyError(ValueError):
    """A sentence or model the anatomy views cannot use; the message is fit for users."""


@dataclass
class AnatomyModel:
    """A Transformer in eval mode that no training thread steps, with what it needs to read sentences."""

    model: Seq2SeqTransformer
    src_vocab: Vocab
    tgt_vocab: Vocab
    origin: str  # shown to the user, e.g. "built-in, untrained (seed 0)"

    @property
    def config(self) -> TransformerConfig:
        return self.model.config


def builtin_model(seed: int = 0) -> AnatomyModel:
    """The book's §11.7 Transformer, Xavier-initialised from ``seed`` (untrained), with vocabularies of the
    bundled English–French corpus (first 600 pairs, min_freq 2). The global random state is left alone."""
    source = load_source("builtin", BUILTIN_PAIRS)
    data = build_dataset(source.pairs, BUILTIN_STEPS)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Seq2SeqTransformer(TransformerConfig(), len(data.src_vocab), len(data.tgt_vocab))
    model.eval()
    return AnatomyModel(model, data.src_vocab, data.tgt_vocab, f"built-in, untrained (seed {seed})")


def from_record(model: Any, src_vocab: Vocab, tgt_vocab: Vocab, origin: str) -> AnatomyModel:
    """Wrap a model offered elsewhere (the studio's, or a checkpoint the caller opened); a model in training mode
    is copied into eval mode so the caller's is never touched."""
    if model.training:
        model = copy.deepcopy(model).eval()
    return AnatomyModel(model, src_vocab, tgt_vocab, origin)


def words_of(sentence: str, what: str = "sentence") -> list[str]:
    """The words the book's preprocessing makes of ``sentence`` (at most ``MAX_TOKENS − 1``)."""
    words = tokenize(normalize_side(sentence))
    if not words:
        raise AnatomyError(f"type a {what} with at least one word")
    if len(words) + 1 > MAX_TOKENS:
        raise AnatomyError(f"the {what} has {len(words)} words; at most {MAX_TOKENS - 1} fit the heatmaps")
    return words


def unknown_words(words: list[str], vocab: Vocab) -> list[str]:
    """The distinct words of ``words`` that the vocabulary maps to <unk>, in order."""
    return [w for w in dict.fromkeys(words) if w not in vocab]


def source_ids(words: list[str], vocab: Vocab, num_steps: int | None = None) -> tuple[Tensor, list[str]]:
    """Encoder input ``(T,)`` ids of ``words + <eos>`` padded with ``<pad>`` to ``num_steps``, and its tokens."""
    tokens = [*words, EOS]
    steps = num_steps or len(tokens)
    if len(tokens) > steps:
        raise AnatomyError(f"a sentence of {len(tokens)} tokens does not fit {steps} steps")
    tokens += [PAD] * (steps - len(tokens))
    return torch.tensor(vocab[tokens], dtype=torch.int64), tokens


def decoder_ids(words: list[str], vocab: Vocab) -> tuple[Tensor, list[str]]:
    """Teacher-forced decoder input ``(T,)``: ``<bos>`` followed by the target words (``T = len(words) + 1``)."""
    tokens = [BOS, *words]
    return torch.tensor(vocab[tokens], dtype=torch.int64), tokens


def embed_rows(model: Seq2SeqTransformer, ids: Tensor, side: str = "encoder", positions: bool = True) -> Tensor:
    """Embedding × √d (+ the positional encoding P[:T]) of ids ``(B, T)``: the block stack's input ``(B, T, d)``.

    Dropout is off (eval), so this equals what the model's own embedding step computes.
    """
    part = model.encoder if side == "encoder" else model.decoder
    X = part.embedding(ids) * part.scale  # (B, T, d)
    if positions:
        X = X + part.pos_encoding.P[:, :ids.shape[1]]
    return X
