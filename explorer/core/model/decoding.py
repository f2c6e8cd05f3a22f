"""Prediction with the trained Transformer (d2l §10.7.6 greedy ``predict_seq2seq``, §10.8 beam search).

An incremental decoder caches each layer's self-attention keys/values, so a step costs one position; the
cross-attention of every decoded step is returned for display.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor

from explorer.core.data.text import EncodedSentence, encode_sentence
from explorer.core.model.transformer import Seq2SeqTransformer

METHODS = ("greedy", "beam")


class DecodingError(ValueError):
    """Impossible decoding settings; the message is fit to show to a user."""


@dataclass
class Translation:
    """One decoded sentence.

    ``tokens`` exclude ``<eos>``; ``cross_attention`` is float32 ``(layers, heads, out_len, src_len)`` where
    row i is the step that produced ``row_labels[i]`` (``out_len = len(tokens) + finished``) and the columns
    are ``src_tokens`` (the source words the encoder saw, ending in ``<eos>``). ``score`` is the sum of the
    log-probabilities (greedy) or the length-normalised beam score.
    """

    tokens: list[str]
    text: str
    cross_attention: np.ndarray | None
    unknown: list[str]
    src_tokens: list[str]
    score: float
    finished: bool
    ids: list[int] = field(default_factory=list)

    @property
    def row_labels(self) -> list[str]:
        """Labels of the cross-attention rows: the produced tokens, then ``<eos>`` if it was produced."""
        return [*self.tokens, "<eos>"] if self.finished else list(self.tokens)


class IncrementalDecoder:
    """Decode one position at a time for a batch, caching every layer's self-attention keys/values.

    Parameters
    ----------
    model : the trained model (used as it is; put it in eval mode first).
    src : (B, Ts) source ids; src_valid_len : (B,) lengths.
    """

    def __init__(self, model: Seq2SeqTransformer, src: Tensor, src_valid_len: Tensor) -> None:
        self.model = model
        self.enc_out, self.src_bias, _ = model.encode(src, src_valid_len)  # (B, Ts, d), (B, 1, 1, Ts)
        self.cache: list[Tensor] | None = None
        self.length = 0

    def step(self, tokens: Tensor, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        """Feed ``tokens`` (B,) at the next position -> logits (B, V) and cross weights (B, L, h, Ts) | None."""
        if self.length >= self.model.config.max_len:
            raise DecodingError(f"cannot decode beyond the model's max_len ({self.model.config.max_len})")
        logits, self.cache, _, cross = self.model.decoder(
            tokens[:, None], self.enc_out, self.src_bias, None, self.cache, need_weights)
        self.length += 1
        weights = torch.stack([c[:, :, 0, :] for c in cross], dim=1) if need_weights else None  # (B, L, h, Ts)
        return logits[:, 0], weights

    def reorder(self, index: Tensor) -> None:
        """Keep batch rows ``index`` (B',) in that order (for beam search)."""
        self.enc_out = self.enc_out.index_select(0, index)
        self.src_bias = self.src_bias.index_select(0, index)
        if self.cache is not None:
            self.cache = [kv.index_select(0, index) for kv in self.cache]


def _device(model: Seq2SeqTransformer) -> torch.device:
    return next(model.parameters()).device


def _check_max_len(model: Seq2SeqTransformer, max_len: Any) -> int:
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise DecodingError(f"max_len must be a whole number of at least 1, got {max_len!r}")
    if max_len > model.config.max_len:
        raise DecodingError(f"max_len ({max_len}) exceeds the model's max_len ({model.config.max_len})")
    return max_len


@torch.no_grad()
def greedy_decode(model: Seq2SeqTransformer, src: Tensor, src_valid_len: Tensor, bos: int, eos: int,
                  max_len: int, need_weights: bool = False) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor | None]:
    """Greedy decoding of a batch (the model must be in eval mode).

    Returns
    -------
    ids (B, S) long (S ≤ max_len steps; entries after ``<eos>`` are meaningless), lengths (B,) counting
    the produced tokens before ``<eos>``, finished (B,) bool, log-prob scores (B,), and cross weights
    (B, S, L, h, Ts) or None.
    """
    batch = src.shape[0]
    decoder = IncrementalDecoder(model, src, src_valid_len)
    y = torch.full((batch,), bos, dtype=torch.long, device=src.device)
    done = torch.zeros(batch, dtype=torch.bool, device=src.device)
    lengths = torch.zeros(batch, dtype=torch.long, device=src.device)
    scores = torch.zeros(batch, device=src.device)
    outputs: list[Tensor] = []
    rows: list[Tensor] = []
    for _ in range(max_len):
        logits, cross = decoder.step(y, need_weights)
        logp = torch.log_softmax(logits.float(), dim=-1)  # (B, V)
        y = logits.argmax(dim=-1)  # (B,)
        scores += torch.where(done, 0.0, logp.gather(1, y[:, None])[:, 0])
        outputs.append(y)
        if cross is not None:
            rows.append(cross)
        lengths += (~done & (y != eos)).long()
        done |= y == eos
        if bool(done.all()):
            break
    ids = torch.stack(outputs, dim=1)  # (B, S)
    weights = torch.stack(rows, dim=1) if rows else None  # (B, S, L, h, Ts)
    return ids, lengths, done, scores, weights


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


def _make_translation(enc: EncodedSentence, ids: list[int], finished: bool, score: float,
                      cross: np.ndarray | None, tgt_vocab: Any) -> Translation:
    tokens = list(tgt_vocab.to_tokens(ids))
    return Translation(tokens=tokens, text=" ".join(tokens), cross_attention=cross, unknown=list(enc.unknown),
                       src_tokens=list(enc.tokens), score=score, finished=finished, ids=list(ids))


def translate_batch(model: Seq2SeqTransformer, src_vocab: Any, tgt_vocab: Any, sentences: Sequence[str],
                    num_steps: int, max_len: int | None = None, batch_size: int = 1024,
                    need_weights: bool = False) -> list[Translation]:
    """Greedy translation of many sentences at once (batched; fast on the CPU).

    ``max_len`` defaults to ``num_steps`` (the book). Cross-attention is kept only with ``need_weights``.
    Raises ``DatasetError`` (a ``ValueError``) naming the problem for an empty sentence.
    """
    max_len = _check_max_len(model, num_steps if max_len is None else max_len)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise DecodingError(f"batch_size must be a whole number of at least 1, got {batch_size!r}")
    encoded = _encode_all(sentences, src_vocab, num_steps)
    device, was_training = _device(model), model.training
    model.eval()
    results: list[Translation] = []
    try:
        for start in range(0, len(encoded), batch_size):
            chunk = encoded[start:start + batch_size]
            src = torch.stack([e.ids for e in chunk]).to(device)  # (B, Ts)
            valid = torch.tensor([e.valid_len for e in chunk], device=device)  # (B,)
            ids, lengths, done, scores, cross = greedy_decode(model, src, valid, tgt_vocab.bos, tgt_vocab.eos,
                                                              max_len, need_weights)
            ids_l, len_l, done_l, sc_l = ids.tolist(), lengths.tolist(), done.tolist(), scores.tolist()
            cross_np = cross.float().cpu().numpy() if cross is not None else None
            for i, enc in enumerate(chunk):
                n, fin = len_l[i], done_l[i]
                rows = None
                if cross_np is not None:
                    # (S, L, h, Ts) -> (L, h, out_len, src_len)
                    rows = cross_np[i, :n + fin, :, :, :enc.valid_len].transpose(1, 2, 0, 3).copy()
                results.append(_make_translation(enc, ids_l[i][:n], fin, sc_l[i], rows, tgt_vocab))
    finally:
        model.train(was_training)
    return results


@torch.no_grad()
def beam_search(model: Seq2SeqTransformer, src: Tensor, src_valid_len: Tensor, bos: int, eos: int,
                max_len: int, beam_width: int = 4, length_penalty: float = 0.75
                ) -> tuple[list[int], bool, float, Tensor]:
    """Beam search for one sentence (src (1, Ts)); the model must be in eval mode.

    Candidates are ranked by ``log P(y) / L**length_penalty`` with L the number of produced tokens
    (``<eos>`` included), as in d2l §10.8. A hypothesis ends when ``<eos>`` ranks among the top
    ``beam_width`` expansions, so a width of 1 is greedy search. Returns the best ids (without
    ``<eos>``), whether it ended in ``<eos>``, its score, and its cross weights (out_len, L, h, Ts).
    """
    decoder = IncrementalDecoder(model, src, src_valid_len)
    y = torch.tensor([bos], device=src.device)
    logp_sum = torch.zeros(1, device=src.device)
    seqs: list[list[int]] = [[]]
    history: Tensor | None = None  # (k, t, L, h, Ts)
    done: list[tuple[float, list[int], bool, Tensor]] = []
    for t in range(max_len):
        logits, cross = decoder.step(y, need_weights=True)
        assert cross is not None
        history = cross[:, None] if history is None else torch.cat([history, cross[:, None]], dim=1)
        cand = logp_sum[:, None] + torch.log_softmax(logits.float(), dim=-1)  # (k, V)
        vocab = cand.shape[1]
        top_v, top_i = cand.reshape(-1).topk(min(2 * beam_width, cand.numel()))  # (2k,)
        keep: list[int] = []
        parents: list[int] = []
        for rank, (value, flat) in enumerate(zip(top_v.tolist(), top_i.tolist())):
            parent, token = divmod(flat, vocab)
            if token == eos:
                if rank < beam_width:  # an ending counts only when it ranks among the beam
                        done.append((value / (t + 1) ** length_penalty, seqs[parent], True, history[parent]))
            elif len(keep) < beam_width:
                keep.append(flat)
                parents.append(parent)
        if not keep:
            break
        index = torch.tensor(parents, device=src.device)
        tokens = [flat % vocab for flat in keep]
        seqs = [seqs[p] + [tok] for p, tok in zip(parents, tokens)]
        logp_sum = cand.reshape(-1)[torch.tensor(keep, device=src.device)]
        y = torch.tensor(tokens, device=src.device)
        history = history.index_select(0, index)
        decoder.reorder(index)
        if t == max_len - 1:
            for i, seq in enumerate(seqs):
                done.append((logp_sum[i].item() / len(seq) ** length_penalty, seq, False, history[i]))
    score, ids, finished, rows = max(done, key=lambda item: item[0])
    return ids, finished, score, rows


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
    if isinstance(beam_width, bool) or not isinstance(beam_width, int) or beam_width < 1:
        raise DecodingError(f"beam width must be a whole number of at least 1, got {beam_width!r}")
    if not isinstance(length_penalty, (int, float)) or not math.isfinite(length_penalty) or length_penalty < 0:
        raise DecodingError(f"length penalty must be a number ≥ 0, got {length_penalty!r}")
    max_len = _check_max_len(model, num_steps if max_len is None else max_len)
    enc = encode_sentence(sentence, src_vocab, num_steps)
    device, was_training = _device(model), model.training
    model.eval()
    try:
        src = enc.ids[None].to(device)  # (1, Ts)
        valid = torch.tensor([enc.valid_len], device=device)
        ids, finished, score, rows = beam_search(model, src, valid, tgt_vocab.bos, tgt_vocab.eos, max_len,
                                                 beam_width, float(length_penalty))
    finally:
        model.train(was_training)
    # (out_len, L, h, Ts) -> (L, h, out_len, src_len)
    cross = rows[:, :, :, :enc.valid_len].permute(1, 2, 0, 3).float().cpu().numpy().copy()
    return _make_translation(enc, ids, finished, score, cross, tgt_vocab)
