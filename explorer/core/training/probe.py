"""The probe pair's attention (book §11.7): encode a fixed sentence pair once and read every head's attention
maps from one eval-mode, teacher-forced forward pass, cropped to the valid tokens. Used by the trainer's
snapshots and by the studio for an opened model."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from explorer.core.training.events import SnapshotEvent
from explorer.core.data.text import encode_sentence


@dataclass
class ProbeInput:
    """The encoded probe pair: ids on the model's device plus the token labels of the maps' axes."""

    src: Tensor  # (1, T) source ids, padded
    src_valid_len: Tensor  # (1,)
    dec_input: Tensor  # (1, T) <bos> + target ids[:-1] (teacher forcing)
    src_tokens: list[str]  # source words + <eos>, truncated to T
    tgt_tokens: list[str]  # target words + <eos>, truncated to T
    tgt_input_tokens: list[str]  # <bos>, y1, …: the decoder's queries


def encode_probe(src_vocab: Any, tgt_vocab: Any, src_sentence: str, tgt_sentence: str, num_steps: int,
                 device: torch.device | str = "cpu") -> ProbeInput:
    """Encode a probe pair for :func:`forward_probe`.

    Raises ``DatasetError`` (a ``ValueError``) for an empty sentence or an impossible ``num_steps``.
    """
    src = encode_sentence(src_sentence, src_vocab, num_steps)
    tgt = encode_sentence(tgt_sentence, tgt_vocab, num_steps)
    dec_input = torch.cat([torch.tensor([tgt_vocab.bos]), tgt.ids[:-1]])  # (T,)
    return ProbeInput(src=src.ids[None].to(device),  # (1, T)
                      src_valid_len=torch.tensor([src.valid_len], device=device),
                      dec_input=dec_input[None].to(device),  # (1, T)
                      src_tokens=list(src.tokens), tgt_tokens=list(tgt.tokens),
                      tgt_input_tokens=["<bos>", *tgt.tokens[:-1]])


def forward_probe(model: torch.nn.Module, probe: Any, step: int = 0, epoch: int = 0) -> SnapshotEvent:
    """Every head's attention for an encoded ``probe`` (a :class:`ProbeInput` or anything with its fields).

    One eval-mode forward pass without gradients (the model's train/eval mode is restored afterwards).
    Returns a :class:`SnapshotEvent` whose ``maps`` are float32 numpy copies: ``encoder``
    (L, h, Ts, Ts), ``decoder`` (L, h, Tt, Tt), ``cross`` (L, h, Tt, Ts), with Ts, Tt the valid
    source and target tokens (``<eos>`` included).
    """
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            _, maps = model(probe.src, probe.src_valid_len, probe.dec_input, need_weights=True)
    finally:
        model.train(was_training)
    if maps is None:
        raise RuntimeError("the model returned no attention maps although need_weights=True")
    arrays = maps.cropped_numpy(0, len(probe.src_tokens), len(probe.tgt_tokens))
    return SnapshotEvent(step=step, epoch=epoch, maps=arrays, src_tokens=list(probe.src_tokens),
                         tgt_tokens=list(probe.tgt_tokens), tgt_input_tokens=list(probe.tgt_input_tokens))


def probe_attention(model: torch.nn.Module, src_vocab: Any, tgt_vocab: Any, src_sentence: str,
                    tgt_sentence: str, num_steps: int, device: torch.device | str | None = None,
                    step: int = 0, epoch: int = 0) -> SnapshotEvent:
    """Encode a probe pair and return its attention maps (see :func:`forward_probe`).

    ``device`` defaults to the device of the model's parameters. Raises ``DatasetError`` (a
    ``ValueError``) for an empty sentence.
    """
    if device is None:
        device = next(model.parameters()).device
    probe = encode_probe(src_vocab, tgt_vocab, src_sentence, tgt_sentence, num_steps, device)
    return forward_probe(model, probe, step=step, epoch=epoch)
