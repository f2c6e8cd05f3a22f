"""Output probabilities and decoding choices (book §10.7.6 greedy prediction, §10.8 beam search, plus
sampling with temperature, top-k and top-p): every step's top next tokens with their probabilities, and
which token was chosen and why, as plain data. Sampling is seeded with its own ``torch.Generator``."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.step_model import StepModel

METHODS = ("greedy", "sample", "beam")


@dataclass(frozen=True)
class DecodeChoice:
    """How the next token is chosen.

    ``greedy``: the most probable token. ``sample``: drawn from ``softmax(logits / temperature)`` restricted to
    the ``top_k`` most probable tokens (0 = all) and then to the smallest set whose probability reaches
    ``top_p`` (1 = all), renormalised; ``temperature`` 0 is greedy. ``beam``: beam search of ``beam_width``
    with ``length_penalty`` (see :mod:`explorer.core.debug.beam_tree`). ``seed`` seeds the sampler's generator.
    """

    method: str = "greedy"
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    beam_width: int = 4
    length_penalty: float = 0.75

    def validate(self) -> DecodeChoice:
        """Return self, or raise :class:`ModelError` with a message fit for users."""
        if self.method not in METHODS:
            raise ModelError(f"the decoding method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if not _number(self.temperature) or self.temperature < 0:
            raise ModelError(f"temperature must be a number ≥ 0, got {self.temperature!r}")
        if not _whole(self.top_k) or self.top_k < 0:
            raise ModelError(f"top-k must be a whole number ≥ 0 (0 = no limit), got {self.top_k!r}")
        if not _number(self.top_p) or not 0 < self.top_p <= 1:
            raise ModelError(f"top-p must be a number in (0, 1], got {self.top_p!r}")
        if not _whole(self.seed) or not 0 <= self.seed < 2**63:
            raise ModelError(f"the seed must be a whole number ≥ 0, got {self.seed!r}")
        if not _whole(self.beam_width) or self.beam_width < 1:
            raise ModelError(f"beam width must be a whole number of at least 1, got {self.beam_width!r}")
        if not _number(self.length_penalty) or self.length_penalty < 0:
            raise ModelError(f"length penalty must be a number ≥ 0, got {self.length_penalty!r}")
        return self


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _whole(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def sampling_probs(logits: Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0) -> Tensor:
    """The distribution a sampler draws from, ``(..., V)`` logits -> ``(..., V)`` probabilities.

    Temperature first (0: all mass on the argmax, the first one on a tie), then top-k (the k most probable
    tokens), then top-p (the most probable tokens, in order, until their probability reaches ``top_p``; at
    least one), renormalised. Tokens outside the support have probability exactly 0.
    """
    logits = logits.float()
    if temperature == 0:
        return torch.zeros_like(logits).scatter_(-1, logits.argmax(-1, keepdim=True), 1.0)
    probs = torch.softmax(logits / temperature, dim=-1)
    vocab = probs.shape[-1]
    if 0 < top_k < vocab:
        order = probs.argsort(dim=-1, descending=True, stable=True)  # ties: exactly k, lower ids first
        keep = torch.zeros_like(probs, dtype=torch.bool).scatter_(-1, order[..., :top_k], True)
        probs = torch.where(keep, probs, 0.0)
    if top_p < 1:
        sorted_p, order = probs.sort(dim=-1, descending=True, stable=True)  # (..., V)
        before = sorted_p.cumsum(-1) - sorted_p  # mass of the more probable tokens
        keep_sorted = before < top_p * sorted_p.sum(-1, keepdim=True)
        keep_sorted[..., 0] = True
        keep = torch.zeros_like(keep_sorted).scatter_(-1, order, keep_sorted)
        probs = torch.where(keep, probs, 0.0)
    return probs / probs.sum(-1, keepdim=True)


@dataclass
class DecodeStep:
    """One produced token and the distribution it came from.

    ``top_*``: the model's most probable next tokens (temperature 1, descending); ``top_choice_probs``: the
    same tokens' probability under the rule that chose (temperature / top-k / top-p; greedy and beam put 1 on
    the chosen token); ``support``: how many tokens that rule could have chosen. ``chosen_rank`` is 0 for the
    argmax. ``cross_attention``: this step's row ``(layers, heads, source tokens)`` or None.
    """

    index: int
    top_ids: list[int]
    top_tokens: list[str]
    top_probs: list[float]
    top_choice_probs: list[float]
    chosen_id: int
    chosen_token: str
    chosen_prob: float
    chosen_rank: int
    chosen_log_prob: float
    support: int
    cross_attention: np.ndarray | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-able (the cross-attention row left out)."""
        return {k: v for k, v in self.__dict__.items() if k != "cross_attention"}


@dataclass
class DecodeTrace:
    """A decoded output step by step: ``ids``/``tokens`` as produced (the end token included when produced),
    ``text`` readable, ``log_prob`` the sum of the chosen tokens' log-probabilities under the model."""

    choice: DecodeChoice
    source_tokens: list[str]
    steps: list[DecodeStep] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    text: str = ""
    finished: bool = False
    log_prob: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {"choice": self.choice.__dict__, "source_tokens": self.source_tokens, "ids": self.ids,
                "tokens": self.tokens, "text": self.text, "finished": self.finished, "log_prob": self.log_prob,
                "steps": [s.to_dict() for s in self.steps]}


def make_step(sm: StepModel, index: int, logits: Tensor, choice_probs: Tensor, chosen: int, top: int,
              cross: Tensor | None) -> DecodeStep:
    """A :class:`DecodeStep` from one hypothesis's logits ``(V,)`` and the choosing rule's probabilities ``(V,)``."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)  # (V,)
    probs = log_probs.exp()
    values, ids = probs.topk(min(max(1, top), probs.shape[-1]))
    id_list = [int(i) for i in ids.tolist()]
    return DecodeStep(index=index, top_ids=id_list, top_tokens=sm.tokens(id_list), top_probs=values.tolist(),
                      top_choice_probs=choice_probs[ids].tolist(), chosen_id=chosen,
                      chosen_token=sm.tokens([chosen])[0], chosen_prob=float(probs[chosen]),
                      chosen_rank=int((probs > probs[chosen]).sum()),
                      chosen_log_prob=float(log_probs[chosen]), support=int((choice_probs > 0).sum()),
                      cross_attention=None if cross is None else cross.detach().cpu().float().numpy().copy())


@torch.no_grad()
def decode_steps(sm: StepModel, source: str, choice: DecodeChoice | None = None, top: int = 5,
                 max_new_tokens: int | None = None) -> DecodeTrace:
    """Decode ``source`` with ``choice``, recording each step's ``top`` next tokens (see :class:`DecodeStep`).

    Greedy and sampling run here; beam search runs :func:`~explorer.core.debug.beam_tree.beam_tree` and reports the
    steps along its best hypothesis. The same seed gives the same sample. Raises :class:`ModelError` for bad
    settings (and the model's ``ValueError`` for unusable text).
    """
    choice = (choice or DecodeChoice()).validate()
    if not _whole(top) or top < 1:
        raise ModelError(f"top must be a whole number of at least 1, got {top!r}")
    limit = sm.max_new_tokens(source) if max_new_tokens is None else max_new_tokens
    if not _whole(limit) or limit < 1:
        raise ModelError(f"max_new_tokens must be a whole number of at least 1, got {limit!r}")
    if choice.method == "beam":
        from explorer.core.debug.beam_tree import beam_tree

        return beam_tree(sm, source, choice.beam_width, choice.length_penalty, limit, top=top).best_trace(sm, choice)
    stepper = sm.begin(source)
    trace = DecodeTrace(choice=choice, source_tokens=list(stepper.source_tokens))
    generator = torch.Generator().manual_seed(choice.seed)
    temperature = 0.0 if choice.method == "greedy" else choice.temperature
    y = stepper.first
    for index in range(limit):
        logits, cross = stepper.step(y)
        row = logits[0].float().cpu()  # (V,)
        probs = sampling_probs(row, temperature, choice.top_k, choice.top_p)
        chosen = int(row.argmax()) if temperature == 0 else int(torch.multinomial(probs, 1, generator=generator))
        step = make_step(sm, index, row, probs, chosen, top, None if cross is None else cross[0])
        trace.steps.append(step)
        trace.log_prob += step.chosen_log_prob
        trace.ids.append(chosen)
        if chosen in sm.eos_ids:
            trace.finished = True
            break
        y = torch.tensor([chosen], device=y.device)
    trace.tokens = sm.tokens(trace.ids)
    trace.text = sm.text(trace.ids)
    return trace
