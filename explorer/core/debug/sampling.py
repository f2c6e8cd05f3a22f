"""Output probabilities and decoding choices (book §10.7.6 greedy prediction, §10.8 beam search, plus
sampling with temperature, top-k and top-p): every step's top next tokens with their probabilities, and
which token was chosen and why, as plain data. Sampling is seeded with its own ``torch.Generator``."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from explorer.core.checks import is_number, is_whole, non_negative, positive_int
from explorer.core.choices import DECODING_METHODS
from explorer.core.debug.beam_tree import BeamTree, beam_tree, check_beam
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.step_model import StepModel
from explorer.core.model.search import Sample, SearchStep, search


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
        if self.method not in DECODING_METHODS:
            raise ModelError(f"the decoding method must be one of {', '.join(DECODING_METHODS)}, got {self.method!r}")
        non_negative(self.temperature, "temperature", ModelError)
        if not is_whole(self.top_k) or self.top_k < 0:
            raise ModelError(f"top-k must be a whole number ≥ 0 (0 = no limit), got {self.top_k!r}")
        if not is_number(self.top_p) or not 0 < self.top_p <= 1:
            raise ModelError(f"top-p must be a number in (0, 1], got {self.top_p!r}")
        if not is_whole(self.seed) or not 0 <= self.seed < 2**63:
            raise ModelError(f"the seed must be a whole number ≥ 0, got {self.seed!r}")
        check_beam(self.beam_width, self.length_penalty)
        return self


@dataclass
class DecodeStep:
    """One produced token and the distribution it came from.

    ``top_*``: the model's most probable next tokens (temperature 1, descending); ``top_choice_probs``: the
    same tokens' probability under the rule that chose (temperature / top-k / top-p; greedy and beam put 1 on
    the chosen token); ``support``: how many tokens that rule could have chosen. ``chosen_rank`` is 0 for the
    argmax. ``cross_attention``: this step's cross-attention row ``(layers, heads, source tokens)`` or None;
    ``self_attention``: a decoder-only model's row ``(layers, heads, prompt tokens + index)`` over the prompt and
    the tokens produced before this one (:meth:`DecodeTrace.key_tokens`), or None.
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
    self_attention: np.ndarray | None = None

    @property
    def attention(self) -> np.ndarray | None:
        """The attention row this step has (cross or self), ``(layers, heads, keys)``."""
        return self.cross_attention if self.cross_attention is not None else self.self_attention

    def to_dict(self) -> dict[str, object]:
        """JSON-able (the attention rows left out)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("cross_attention", "self_attention")}


@dataclass
class DecodeTrace:
    """A decoded output step by step: ``ids``/``tokens`` as produced (the end token included when produced),
    ``text`` readable, ``log_prob`` the sum of the chosen tokens' log-probabilities under the model. ``attends``
    is what the steps' attention rows cover: ``"cross"`` (the source) or ``"decoder"`` (prompt and output)."""

    choice: DecodeChoice
    source_tokens: list[str]
    attends: str = "cross"
    steps: list[DecodeStep] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    text: str = ""
    finished: bool = False
    log_prob: float = 0.0

    def key_tokens(self, index: int) -> list[str]:
        """The labels of step ``index``'s attention row: the source, or the prompt and the tokens before it."""
        return list(self.source_tokens) + (self.tokens[:index] if self.attends == "decoder" else [])

    def to_dict(self) -> dict[str, object]:
        return {"choice": self.choice.__dict__, "source_tokens": self.source_tokens, "ids": self.ids,
                "tokens": self.tokens, "text": self.text, "finished": self.finished, "log_prob": self.log_prob,
                "steps": [s.to_dict() for s in self.steps]}


def make_step(sm: StepModel, index: int, logits: Tensor, choice_probs: Tensor, chosen: int, top: int,
              rows: Tensor | None, attends: str = "cross") -> DecodeStep:
    """A :class:`DecodeStep` from one hypothesis's logits ``(V,)``, the choosing rule's probabilities ``(V,)`` and
    its attention rows ``(L, h, keys)`` (cross-attention, or ``attends == "decoder"``: self-attention)."""
    row = None if rows is None else rows.detach().cpu().float().numpy().copy()
    log_probs = torch.log_softmax(logits.float(), dim=-1)  # (V,)
    probs = log_probs.exp()
    values, ids = probs.topk(min(max(1, top), probs.shape[-1]))
    id_list = [int(i) for i in ids.tolist()]
    return DecodeStep(index=index, top_ids=id_list, top_tokens=sm.tokens(id_list), top_probs=values.tolist(),
                      top_choice_probs=choice_probs[ids].tolist(), chosen_id=chosen,
                      chosen_token=sm.tokens([chosen])[0], chosen_prob=float(probs[chosen]),
                      chosen_rank=int((probs > probs[chosen]).sum()),
                      chosen_log_prob=float(log_probs[chosen]), support=int((choice_probs > 0).sum()),
                      cross_attention=row if attends == "cross" else None,
                      self_attention=row if attends == "decoder" else None)


def decode_steps(sm: StepModel, source: str, choice: DecodeChoice | None = None, top: int = 5,
                 max_new_tokens: int | None = None) -> DecodeTrace:
    """Decode ``source`` with ``choice``, recording each step's ``top`` next tokens (see :class:`DecodeStep`).

    Greedy and sampling run :class:`~explorer.core.model.search.Sample` (temperature 0 for greedy); beam search
    runs :func:`~explorer.core.debug.beam_tree.beam_tree` and reports the steps along its best hypothesis. The
    same seed gives the same sample. Raises :class:`ModelError` for bad settings (and the model's
    ``ValueError`` for unusable text).
    """
    choice = (choice or DecodeChoice()).validate()
    positive_int(top, "top", ModelError)
    limit = sm.max_new_tokens(source) if max_new_tokens is None else max_new_tokens
    positive_int(limit, "max_new_tokens", ModelError)
    if choice.method == "beam":
        tree = beam_tree(sm, source, choice.beam_width, choice.length_penalty, limit, top=top)
        return _best_path(tree, sm, choice)
    stepper = sm.begin(source)
    trace = DecodeTrace(choice=choice, source_tokens=list(stepper.source_tokens), attends=stepper.attends)
    temperature = 0.0 if choice.method == "greedy" else choice.temperature

    def watch(step: SearchStep) -> None:
        exp = step.expansions
        assert exp.probs is not None
        made = make_step(sm, step.t, step.logits[0].float().cpu(), exp.probs[0], int(exp.tokens[0]), top,
                         None if step.cross is None else step.cross[0], stepper.attends)
        trace.steps.append(made)
        trace.log_prob += made.chosen_log_prob

    rule = Sample(temperature, choice.top_k, choice.top_p, choice.seed)
    best = search(stepper, stepper.first, rule, limit, sm.eos_ids, watch)[0]
    assert best is not None  # one hypothesis, ended or stopped
    trace.finished = best.finished
    trace.ids = [*best.ids, best.end] if best.end is not None else list(best.ids)
    trace.tokens = sm.tokens(trace.ids)
    trace.text = sm.text(trace.ids)
    return trace


def _best_path(tree: BeamTree, sm: StepModel, choice: DecodeChoice) -> DecodeTrace:
    """The best hypothesis of a beam tree as a :class:`DecodeTrace`: each step's top tokens are its parent's."""
    trace = DecodeTrace(choice=choice, source_tokens=list(tree.source_tokens), attends=tree.attends)
    for index, nid in enumerate(tree.path(tree.best)):
        node, parent = tree.nodes[nid], tree.nodes[tree.nodes[nid].parent or 0]
        trace.steps.append(DecodeStep(
            index=index, top_ids=parent.next_ids, top_tokens=parent.next_tokens, top_probs=parent.next_probs,
            top_choice_probs=[1.0 if i == node.token_id else 0.0 for i in parent.next_ids],
            chosen_id=node.token_id, chosen_token=node.token, chosen_prob=float(np.exp(node.token_log_prob)),
            chosen_rank=node.rank, chosen_log_prob=node.token_log_prob, support=1,
            cross_attention=node.cross_attention, self_attention=node.self_attention))
        trace.ids.append(node.token_id)
        trace.log_prob = node.log_prob
    trace.finished = tree.nodes[tree.best].status == "finished"
    trace.tokens = sm.tokens(trace.ids)
    trace.text = sm.text(trace.ids)
    return trace
