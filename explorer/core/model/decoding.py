"""Translation with the trained Transformer (d2l §10.7.6 greedy ``predict_seq2seq``, §10.8 beam search).

An incremental decoder caches each layer's self-attention keys/values, so a step costs one position; the loop is
:func:`explorer.core.model.search.search`, and the cross-attention of every decoded step is returned for display.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor

from explorer.core.checks import non_negative, positive_int
from explorer.core.choices import GENERATE_METHODS
from explorer.core.data.text import EncodedSentence, encode_sentence
from explorer.core.model.search import Beam, Found, Greedy, search
from explorer.core.model.transformer import Seq2SeqTransformer

#: The methods of :func:`translate`.
METHODS = GENERATE_METHODS


class DecodingError(ValueError):
    """Impossible decoding settings; the message is fit to show to a user."""


@dataclass
class Translation:
    """One decoded sentence.

    ``tokens`` exclude ``<eos>``; ``cross_attention`` is float32 ``(layers, heads, out_len, src_len)`` where
    row i is the step that produced ``row_labels[i]`` (``out_len = len(tokens) + finished``) and the columns
    are ``src_tokens`` (the source words the encoder saw, ending in ``<eos>``). ``score`` is the sum of the
    log-probabilities (greedy) or the length-normalised beam score. ``dropped``: the source words cut to fit
    ``num_steps`` (the encoder never read them).
    """

    tokens: list[str]
    text: str
    cross_attention: np.ndarray | None
    unknown: list[str]
    src_tokens: list[str]
    score: float
    finished: bool
    ids: list[int] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    @property
    def row_labels(self) -> list[str]:
        """Labels of the cross-attention rows: the produced tokens, then ``<eos>`` if it was produced."""
        return [*self.tokens, "<eos>"] if self.finished else list(self.tokens)


class IncrementalDecoder:
    """Decode one position at a time for a batch, caching every layer's self-attention keys/values
    (a :class:`~explorer.core.model.search.Stepper`).

    Parameters
    ----------
    model : the trained model (used as it is; put it in eval mode first).
    src : (B, Ts) source ids; src_valid_len : (B,) lengths.
    need_weights : return each step's cross-attention rows.
    """

    def __init__(self, model: Seq2SeqTransformer, src: Tensor, src_valid_len: Tensor,
                 need_weights: bool = False) -> None:
        self.model = model
        self.need_weights = need_weights
        self.enc_out, self.src_bias, _ = model.encode(src, src_valid_len)  # (B, Ts, d), (B, 1, 1, Ts)
        self.cache: list[Tensor] | None = None
        self.length = 0

    def step(self, tokens: Tensor, parents: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        """Keep rows ``parents`` (None: all), feed ``tokens`` (B,) at the next position -> logits (B, V) and
        cross weights (B, L, h, Ts) | None."""
        if parents is not None:
            self.enc_out = self.enc_out.index_select(0, parents)
            self.src_bias = self.src_bias.index_select(0, parents)
            if self.cache is not None:
                self.cache = [kv.index_select(0, parents) for kv in self.cache]
        if self.length >= self.model.config.max_len:
            raise DecodingError(f"cannot decode beyond the model's max_len ({self.model.config.max_len})")
        logits, self.cache, _, cross = self.model.decoder(
            tokens[:, None], self.enc_out, self.src_bias, None, self.cache, self.need_weights)
        self.length += 1
        weights = torch.stack([c[:, :, 0, :] for c in cross], dim=1) if self.need_weights else None  # (B, L, h, Ts)
        return logits[:, 0], weights


def _device(model: Seq2SeqTransformer) -> torch.device:
    return next(model.parameters()).device


def _check_max_len(model: Seq2SeqTransformer, max_len: Any) -> int:
    positive_int(max_len, "max_len", DecodingError)
    if max_len > model.config.max_len:
        raise DecodingError(f"max_len ({max_len}) exceeds the model's max_len ({model.config.max_len})")
    return max_len


def _encode_all(sentences: Sequence[str], src_vocab: Any, num_steps: int) -> list[EncodedSentence]:
    if len(sentences) == 1:
        return [encode_sentence(sentences[0], src_vocab, num_steps)]
    encoded = []
    for i, sentence in enumerate(sentences):
        try:
            encoded.append(encode_sentence(sentence, src_vocab, num_steps))
        except ValueError as exc:  # name the sentence when there are many
            raise type(exc)(f"sentence {i + 1}: {exc}") from exc
    return encoded


def _make_translation(enc: EncodedSentence, found: Found, tgt_vocab: Any) -> Translation:
    tokens = list(tgt_vocab.to_tokens(found.ids))
    cross = None
    if found.cross is not None:  # (out_len, L, h, Ts) -> (L, h, out_len, src_len)
        cross = found.cross[:, :, :, :enc.valid_len].permute(1, 2, 0, 3).float().cpu().numpy().copy()
    return Translation(tokens=tokens, text=" ".join(tokens), cross_attention=cross, unknown=list(enc.unknown),
                       src_tokens=list(enc.tokens), score=found.score, finished=found.finished, ids=list(found.ids),
                       dropped=list(enc.dropped))


def translate_batch(model: Seq2SeqTransformer, src_vocab: Any, tgt_vocab: Any, sentences: Sequence[str],
                    num_steps: int, max_len: int | None = None, batch_size: int = 1024,
                    need_weights: bool = False) -> list[Translation]:
    """Greedy translation of many sentences at once (batched; fast on the CPU).

    ``max_len`` defaults to ``num_steps`` (the book). Cross-attention is kept only with ``need_weights``.
    Raises ``DatasetError`` (a ``ValueError``) naming the problem for an empty sentence.
    """
    max_len = _check_max_len(model, num_steps if max_len is None else max_len)
    positive_int(batch_size, "batch_size", DecodingError)
    encoded = _encode_all(sentences, src_vocab, num_steps)
    device, was_training = _device(model), model.training
    model.eval()
    results: list[Translation] = []
    try:
        for start in range(0, len(encoded), batch_size):
            chunk = encoded[start:start + batch_size]
            src = torch.stack([e.ids for e in chunk]).to(device)  # (B, Ts)
            valid = torch.tensor([e.valid_len for e in chunk], device=device)  # (B,)
            first = torch.full((len(chunk),), tgt_vocab.bos, dtype=torch.long, device=device)  # (B,)
            found = search(IncrementalDecoder(model, src, valid, need_weights), first, Greedy(), max_len,
                           {tgt_vocab.eos})
            for enc, best in zip(chunk, found):
                assert best is not None  # greedy ends or stops every sentence
                results.append(_make_translation(enc, best, tgt_vocab))
    finally:
        model.train(was_training)
    return results


def beam_search(model: Seq2SeqTransformer, src: Tensor, src_valid_len: Tensor, bos: int, eos: int,
                max_len: int, beam_width: int = 4, length_penalty: float = 0.75) -> Found:
    """Beam search for one sentence (src (1, Ts)) by :class:`~explorer.core.model.search.Beam`; the model must be in
    eval mode. Returns the best hypothesis with its cross weights ``(out_len, L, h, Ts)``."""
    first = torch.tensor([bos], device=src.device)
    best = search(IncrementalDecoder(model, src, src_valid_len, need_weights=True), first,
                  Beam(beam_width, length_penalty), max_len, {eos})[0]
    if best is None:
        raise DecodingError("beam search found no hypothesis (the vocabulary is too small for this beam width)")
    return best


def translate(model: Seq2SeqTransformer, src_vocab: Any, tgt_vocab: Any, sentence: str, num_steps: int,
              method: str = "greedy", beam_width: int = 4, length_penalty: float = 0.75,
              max_len: int | None = None) -> Translation:
    """Translate one sentence (greedy or beam search) with the cross-attention of every decoded step.

    ``max_len`` defaults to ``num_steps`` (the book). Unknown source words map to ``<unk>`` and are listed
    in ``Translation.unknown``; an empty sentence raises ``DatasetError`` (a ``ValueError``).
    """
    if method not in METHODS:
        raise DecodingError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "greedy":
        return translate_batch(model, src_vocab, tgt_vocab, [sentence], num_steps, max_len, need_weights=True)[0]
    positive_int(beam_width, "beam width", DecodingError)
    non_negative(length_penalty, "length penalty", DecodingError)
    max_len = _check_max_len(model, num_steps if max_len is None else max_len)
    enc = encode_sentence(sentence, src_vocab, num_steps)
    device, was_training = _device(model), model.training
    model.eval()
    try:
        src = enc.ids[None].to(device)  # (1, Ts)
        valid = torch.tensor([enc.valid_len], device=device)
        best = beam_search(model, src, valid, tgt_vocab.bos, tgt_vocab.eos, max_len, beam_width,
                           float(length_penalty))
    finally:
        model.train(was_training)
    return _make_translation(enc, best, tgt_vocab)
