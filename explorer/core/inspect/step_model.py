"""A model seen one next-token distribution at a time (book §10.7.6 prediction, §10.8 beam search): what
sampling, beam trees and head ablation need, for our checkpoints here and Hugging Face models in
``hf/steps.py``. ``explorer.core.inspect.opening.step_model`` picks the adapter for an opened model."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from explorer.core.data.readers import normalize_side
from explorer.core.data.text import build_dataset, encode_sentence, tokenize
from explorer.core.inspect.checkpoint_model import CheckpointModel
from explorer.core.inspect.interface import ModelError
from explorer.core.model.decoding import IncrementalDecoder, translate_batch
from explorer.core.model.loss import masked_cross_entropy
from explorer.core.model.search import Greedy, Stepper, search


class SourceStepper(Stepper, ABC):
    """A :class:`~explorer.core.model.search.Stepper` for one source: ``first`` is the token to feed at the
    first step ``(1,)``; logits come as float32. ``attends`` says what each step's attention rows are:
    ``"cross"``, over the source (``source_tokens`` label the columns), or ``"decoder"``, a decoder-only model's
    self-attention over the prompt (``source_tokens``) and the tokens produced before the step."""

    first: Tensor
    source_tokens: list[str]
    attends: str = "cross"

    @abstractmethod
    def step(self, tokens: Tensor, parents: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        """See :meth:`explorer.core.model.search.Stepper.step`."""


@dataclass
class LossSum:
    """Teacher-forced cross-entropy summed over ``tokens`` target tokens (``mean`` = per-token loss)."""

    total: float
    tokens: int

    @property
    def mean(self) -> float:
        return self.total / self.tokens if self.tokens else float("nan")


class StepModel(ABC):
    """Next-token distributions of an opened model, plus its batch operations for evaluation."""

    name: str
    eos_ids: frozenset[int]

    @abstractmethod
    def begin(self, source: str) -> SourceStepper:
        """Encode ``source`` and return a fresh :class:`SourceStepper` (one hypothesis)."""

    @abstractmethod
    def max_new_tokens(self, source: str) -> int:
        """How many tokens decoding may produce for ``source`` by default (its end token included)."""

    @abstractmethod
    def tokens(self, ids: Sequence[int]) -> list[str]:
        """Token labels of ids."""

    @abstractmethod
    def text(self, ids: Sequence[int]) -> str:
        """Readable text of produced ids (special tokens left out)."""

    def words(self, text: str) -> list[str]:
        """A text as the tokens BLEU compares (whitespace words)."""
        return text.split()

    @abstractmethod
    def loss(self, pairs: Sequence[tuple[str, str]]) -> LossSum:
        """Teacher-forced cross-entropy of every target token (its end token included) given its source."""

    def translate(self, sources: Sequence[str]) -> list[str]:
        """Greedy output text of every source (one :class:`SourceStepper` each unless a subclass batches)."""
        texts = []
        for source in sources:
            stepper = self.begin(source)
            best = search(stepper, stepper.first, Greedy(), self.max_new_tokens(source), self.eos_ids)[0]
            assert best is not None  # greedy ends or stops every hypothesis
            texts.append(self.text(best.ids if best.end is None else [*best.ids, best.end]))
        return texts


class CheckpointSteps(StepModel):
    """Our saved Transformer: an :class:`IncrementalDecoder` per source, batched greedy evaluation.

    Sentences are cut to the training ``num_steps`` as in the CLI's ``translate``; decoding stops after
    ``num_steps`` tokens (the book) unless asked for more.
    """

    def __init__(self, model: CheckpointModel) -> None:
        self.loaded = model.loaded
        self.net = model.loaded.model
        self.name = model.name
        self.num_steps = model.num_steps
        self.eos_ids = frozenset({self.loaded.tgt_vocab.eos})

    def _device(self) -> torch.device:
        return next(self.net.parameters()).device

    def begin(self, source: str) -> SourceStepper:
        enc = encode_sentence(source, self.loaded.src_vocab, self.num_steps)
        device = self._device()
        return _OurStepper(self.net, enc.ids[None].to(device), torch.tensor([enc.valid_len], device=device),
                           self.loaded.tgt_vocab.bos, list(enc.tokens))

    def max_new_tokens(self, source: str) -> int:
        return min(self.num_steps, self.net.config.max_len)

    def tokens(self, ids: Sequence[int]) -> list[str]:
        return [str(t) for t in self.loaded.tgt_vocab.to_tokens(list(ids))]

    def text(self, ids: Sequence[int]) -> str:
        return " ".join(t for i, t in zip(ids, self.tokens(ids)) if i not in self.eos_ids)

    def words(self, text: str) -> list[str]:
        return tokenize(normalize_side(text))

    @torch.no_grad()
    def loss(self, pairs: Sequence[tuple[str, str]], batch_size: int = 256) -> LossSum:
        ds = build_dataset(pairs, self.num_steps, src_vocab=self.loaded.src_vocab, tgt_vocab=self.loaded.tgt_vocab)
        device, was_training = self._device(), self.net.training
        total, count = 0.0, 0
        self.net.eval()
        try:
            for lo in range(0, len(ds), batch_size):
                tgt, tgt_len = ds.tgt[lo:lo + batch_size], ds.tgt_valid_len[lo:lo + batch_size]
                bos = torch.full((tgt.shape[0], 1), self.loaded.tgt_vocab.bos, dtype=torch.long)
                dec_input = torch.cat([bos, tgt[:, :-1]], dim=1)  # (B, T) teacher forcing
                logits, _ = self.net(ds.src[lo:lo + batch_size].to(device),
                                     ds.src_valid_len[lo:lo + batch_size].to(device), dec_input.to(device))
                total += float(masked_cross_entropy(logits, tgt.to(device), tgt_len.to(device)))
                count += int(tgt_len.sum())
        finally:
            self.net.train(was_training)
        return LossSum(total, count)

    def translate(self, sources: Sequence[str]) -> list[str]:
        outs = translate_batch(self.net, self.loaded.src_vocab, self.loaded.tgt_vocab, list(sources), self.num_steps)
        return [t.text for t in outs]


class _OurStepper(SourceStepper):
    def __init__(self, net: torch.nn.Module, src: Tensor, valid: Tensor, bos: int, source_tokens: list[str]) -> None:
        if net.training:
            raise ModelError("put the model in eval mode before decoding step by step")
        self.decoder = IncrementalDecoder(net, src, valid, need_weights=True)  # type: ignore[arg-type]
        self.first = torch.tensor([bos], device=src.device)
        self.source_tokens = source_tokens
        self.valid = int(valid[0])

    @torch.no_grad()
    def step(self, tokens: Tensor, parents: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        logits, cross = self.decoder.step(tokens, parents)  # (k, V), (k, L, h, Ts)
        assert cross is not None
        return logits.float(), cross[..., :self.valid]
