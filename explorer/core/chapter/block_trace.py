"""The tensors entering and leaving every box of the Transformer's encoder and decoder blocks (d2l §11.7.2–11.7.4)
for one typed sentence pair: the model's own sublayers called in the order its blocks call them.

One eval-mode pass (no dropout) of batch 1; the last stage of the decoder equals the model's own forward pass
(tested), so what is shown is what the model computes. Arrays are float32 numpy copies, rows = tokens.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from explorer.core.chapter.anatomy_model import (AnatomyModel, decoder_ids, embed_rows, source_ids, unknown_words,
                                         words_of)
from explorer.core.model.transformer import DecoderBlock, EncoderBlock

KINDS = ("input", "attention", "masked_attention", "cross_attention", "addnorm", "norm", "add", "ffn")


def _np(t: Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float32).numpy().copy()


@dataclass(frozen=True)
class TensorView:
    """One tensor of a stage: ``values`` ``(T, d)`` of batch item 0, row labels ``tokens``, full ``shape``."""

    name: str
    values: np.ndarray
    tokens: list[str]
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Stage:
    """One box of a block: its ``kind`` (one of `KINDS`), title, the tensors entering and the one leaving."""

    side: str  # "encoder" or "decoder"
    layer: int  # 0-based block index
    kind: str
    title: str
    inputs: tuple[TensorView, ...]
    output: TensorView
    weights: np.ndarray | None = None  # attention boxes: (heads, queries, keys)


@dataclass
class BlockTrace:
    """Every stage of every block: ``stages[(side, layer)]`` in the order data flows; plus the tokens and the
    final tensors (``encoder_output (Ts, d)``, ``logits (Tt, V)``) for checks."""

    src_tokens: list[str]
    dec_tokens: list[str]
    num_layers: int
    norm_first: bool
    stages: dict[tuple[str, int], list[Stage]] = field(default_factory=dict)
    encoder_output: np.ndarray | None = None
    logits: np.ndarray | None = None
    unknown: list[str] = field(default_factory=list)  # words read as <unk>


def _view(name: str, t: Tensor, tokens: list[str]) -> TensorView:
    return TensorView(name, _np(t[0]), list(tokens), tuple(t.shape))


class _Recorder:
    """Collects the stages of one block as they are computed."""

    def __init__(self, side: str, layer: int) -> None:
        self.side, self.layer, self.stages = side, layer, []  # type: ignore[var-annotated]

    def add(self, kind: str, title: str, inputs: list[tuple[str, Tensor, list[str]]], out: Tensor,
            tokens: list[str], weights: Tensor | None = None) -> Tensor:
        self.stages.append(Stage(self.side, self.layer, kind, title, tuple(_view(*i) for i in inputs),
                                 _view("output", out, tokens), None if weights is None else _np(weights[0])))
        return out


def _sublayer(rec: _Recorder, norm_first: bool, addnorm, X: Tensor, tokens: list[str], kind: str, title: str,
              run, extra: list[tuple[str, Tensor, list[str]]] | None = None) -> Tensor:
    """One residual sublayer as the block computes it: Post-LN ``LN(X + f(X))`` or Pre-LN ``X + f(LN(X))``."""
    H = X
    if norm_first:
        H = rec.add("norm", "layer norm", [("X", X, tokens)], addnorm.ln(X), tokens)
    Y, weights = run(H)
    name = "X" if kind in ("attention", "masked_attention") else "queries"
    inputs = [(name if kind.endswith("attention") else "X", H, tokens), *(extra or [])]
    rec.add(kind, title, inputs, Y, tokens, weights)
    if norm_first:
        return rec.add("add", "add (residual)", [("X", X, tokens), ("sublayer(X)", Y, tokens)],
                       addnorm.residual(X, Y), tokens)
    return rec.add("addnorm", "add & norm", [("X", X, tokens), ("sublayer(X)", Y, tokens)],
                   addnorm(X, Y), tokens)


def _encoder_block(block: EncoderBlock, rec: _Recorder, X: Tensor, bias: Tensor, tokens: list[str]) -> Tensor:
    def attend(H: Tensor) -> tuple[Tensor, Tensor | None]:
        return block.attention(H, H, H, need_weights=True, attn_bias=bias)

    Y = _sublayer(rec, block.norm_first, block.addnorm1, X, tokens, "attention", "multi-head self-attention", attend)
    return _sublayer(rec, block.norm_first, block.addnorm2, Y, tokens, "ffn", "position-wise FFN",
                     lambda H: (block.ffn(H), None))


def _decoder_block(block: DecoderBlock, rec: _Recorder, X: Tensor, enc: Tensor, self_bias: Tensor,
                   cross_bias: Tensor, tokens: list[str], src_tokens: list[str]) -> Tensor:
    def attend_self(H: Tensor) -> tuple[Tensor, Tensor | None]:
        return block.attention1(H, H, H, need_weights=True, attn_bias=self_bias)

    def attend_source(H: Tensor) -> tuple[Tensor, Tensor | None]:
        return block.attention2(H, enc, enc, need_weights=True, attn_bias=cross_bias)

    nf = block.norm_first
    Y = _sublayer(rec, nf, block.addnorm1, X, tokens, "masked_attention", "masked multi-head self-attention",
                  attend_self)
    Z = _sublayer(rec, nf, block.addnorm2, Y, tokens, "cross_attention", "encoder–decoder attention",
                  attend_source, extra=[("encoder output", enc, src_tokens)])
    return _sublayer(rec, nf, block.addnorm3, Z, tokens, "ffn", "position-wise FFN", lambda H: (block.ffn(H), None))


def trace_blocks(m: AnatomyModel, source: str, target: str) -> BlockTrace:
    """Run ``source`` (encoder) and ``<bos> + target`` (decoder, teacher forcing) through every block.

    Raises `AnatomyError` for an empty or too long sentence. Unknown words are read as ``<unk>`` (noted).
    """
    model = m.model
    src_words, tgt_words = words_of(source, "source sentence"), words_of(target, "target sentence")
    src, src_tokens = source_ids(src_words, m.src_vocab)
    dec, dec_tokens = decoder_ids(tgt_words, m.tgt_vocab)
    src, dec = src[None], dec[None]  # (1, Ts), (1, Tt)
    trace = BlockTrace(src_tokens, dec_tokens, model.config.num_layers, model.config.norm_first)
    trace.unknown = unknown_words(src_words, m.src_vocab) + unknown_words(tgt_words, m.tgt_vocab)
    with torch.no_grad():
        cross_bias = model.source_bias(torch.tensor([src.shape[1]]), src.shape[1])  # (1, 1, 1, Ts)
        X = src
        for i, block in enumerate(model.encoder.blocks):
            rec = _Recorder("encoder", i)
            X = _block_input(rec, model, X, src_tokens)
            X = _encoder_block(block, rec, X, cross_bias, src_tokens)
            trace.stages[("encoder", i)] = rec.stages
        if model.encoder.final_norm is not None:
            X = model.encoder.final_norm(X)
        enc = X
        trace.encoder_output = _np(enc[0])
        self_bias = model.causal_bias(dec.shape[1], dec.device)  # (1, 1, Tt, Tt)
        X = dec
        for i, block in enumerate(model.decoder.blocks):
            rec = _Recorder("decoder", i)
            X = _block_input(rec, model, X, dec_tokens)
            X = _decoder_block(block, rec, X, enc, self_bias, cross_bias, dec_tokens, src_tokens)
            trace.stages[("decoder", i)] = rec.stages
        if model.decoder.final_norm is not None:
            X = model.decoder.final_norm(X)
        trace.logits = _np(model.decoder.dense(X)[0])
    return trace


def _block_input(rec: _Recorder, model, X: Tensor, tokens: list[str]) -> Tensor:
    """The block's input box. Block 0 gets ids ``(1, T)`` and shows embedding × √d plus the positional
    encoding; a later block gets the previous block's output ``(1, T, d)`` as it is."""
    if rec.layer:
        return rec.add("input", "block input", [(f"block {rec.layer} output", X, tokens)], X, tokens)
    part = model.encoder if rec.side == "encoder" else model.decoder
    E = embed_rows(model, X, rec.side, positions=False)  # (1, T, d)
    P = part.pos_encoding.P[:, :X.shape[1]]  # (1, T, d)
    return rec.add("input", "embedding × √d + positional encoding",
                   [("embedding × √d", E, tokens), ("positions P", P, tokens)], E + P, tokens)
