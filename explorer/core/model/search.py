"""The one decoding loop (d2l §10.7.6 greedy prediction, §10.8 beam search, plus sampling with temperature, top-k
and top-p) for any model that predicts one token at a time, with each step's cross-attention kept."""
from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor


class Stepper(Protocol):
    """Decoding state for up to ``k`` hypotheses (prefixes) of one or more sources."""

    def step(self, tokens: Tensor, parents: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        """Keep hypotheses ``parents`` (k,) (None: keep all, in order), append ``tokens`` (k,) to them.

        Returns the next-token logits ``(k, V)`` and each hypothesis's attention row of this step
        ``(k, layers, heads, keys)``: cross-attention over the source (``keys`` = Ts), or a decoder-only model's
        self-attention over its prompt and the tokens fed before (one key more at each step); None when the
        model has neither or they were not asked for.
        """
        ...


@dataclass
class Expansions:
    """What a rule chose at one step, in rank order: hypothesis ``parents`` (m,) continued by ``tokens`` (m,),
    the summed log-probabilities ``values`` (m,) of the results, which of them ended (``finished``) and which
    continue (``kept``); the rest were pruned. ``probs`` ``(k, V)`` is a sampler's choosing distribution."""

    parents: Tensor
    tokens: Tensor
    values: Tensor
    finished: Tensor
    kept: Tensor
    probs: Tensor | None = None


@dataclass
class SearchStep:
    """One step as a trace sees it: step ``t``, the logits and log-probabilities ``(k, V)`` of the hypotheses
    that were fed, their attention rows ``(k, L, h, keys)`` (see :meth:`Stepper.step`) or None, and what the rule
    chose."""

    t: int
    logits: Tensor
    log_probs: Tensor
    cross: Tensor | None
    expansions: Expansions


@dataclass
class Found:
    """A finished (``end`` is the end token) or length-stopped hypothesis: ``ids`` without the end token,
    ``score`` = ``log P / length**length_penalty``, ``cross`` the attention rows ``(len(ids) + finished, L, h,
    keys)`` of the steps that produced its tokens (or None; rows over a decoder's own tokens padded with zeros to
    the last one's keys), ``at`` = (step, index among that step's expansions)."""

    ids: list[int]
    end: int | None
    score: float
    cross: Tensor | None
    at: tuple[int, int]

    @property
    def finished(self) -> bool:
        return self.end is not None


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


def _one_each(logp_sum: Tensor, log_probs: Tensor, tokens: Tensor, eos: Tensor,
              probs: Tensor | None = None) -> Expansions:
    """Every hypothesis continued by its own chosen token (greedy and sampling)."""
    values = logp_sum + log_probs.gather(1, tokens[:, None])[:, 0]  # (k,)
    ends = torch.isin(tokens, eos)
    return Expansions(torch.arange(tokens.shape[0], device=tokens.device), tokens, values, ends, ~ends, probs)


class Greedy:
    """The most probable token of every hypothesis."""

    length_penalty = 0.0

    def expand(self, logp_sum: Tensor, log_probs: Tensor, logits: Tensor, eos: Tensor) -> Expansions:
        return _one_each(logp_sum, log_probs, logits.float().argmax(dim=-1), eos)


class Sample:
    """A token drawn from :func:`sampling_probs` for every hypothesis, with its own seeded generator (CPU);
    temperature 0 takes the argmax."""

    length_penalty = 0.0

    def __init__(self, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0) -> None:
        self.temperature, self.top_k, self.top_p = temperature, top_k, top_p
        self.generator = torch.Generator().manual_seed(seed)

    def expand(self, logp_sum: Tensor, log_probs: Tensor, logits: Tensor, eos: Tensor) -> Expansions:
        rows = logits.float().cpu()  # (k, V)
        probs = sampling_probs(rows, self.temperature, self.top_k, self.top_p)
        if self.temperature == 0:
            tokens = rows.argmax(dim=-1)
        else:
            tokens = torch.multinomial(probs, 1, generator=self.generator)[:, 0]
        return _one_each(logp_sum, log_probs, tokens.to(logits.device), eos, probs)


class Beam:
    """Beam search: candidates ranked by ``log P(y) / L**length_penalty`` (L the produced tokens, the end token
    included); of the ``2 × width`` best expansions, an end token ranking among the first ``width`` finishes a
    hypothesis and the first ``width`` others continue. A width of 1 is greedy search."""

    def __init__(self, width: int = 4, length_penalty: float = 0.75) -> None:
        self.width, self.length_penalty = width, float(length_penalty)

    def expand(self, logp_sum: Tensor, log_probs: Tensor, logits: Tensor, eos: Tensor) -> Expansions:
        cand = logp_sum[:, None] + log_probs  # (k, V)
        vocab = cand.shape[1]
        top_v, top_i = cand.reshape(-1).topk(min(2 * self.width, cand.numel()))  # (2k,)
        ends = set(eos.tolist())
        finished: list[bool] = []
        kept: list[bool] = []
        for rank, flat in enumerate(top_i.tolist()):
            ends_here = flat % vocab in ends
            finished.append(ends_here and rank < self.width)  # an ending counts only when it ranks in the beam
            kept.append(not ends_here and sum(kept) < self.width)
        device = cand.device
        return Expansions(top_i // vocab, top_i % vocab, top_v, torch.tensor(finished, device=device),
                          torch.tensor(kept, device=device))


def _with_row(history: Tensor | None, rows: Tensor) -> Tensor:
    """``history`` (k, t, L, h, K) with this step's ``rows`` (k, L, h, K') appended. Rows over a decoder's own
    tokens grow by a key each step: earlier rows get zeros there (a query does not see later tokens)."""
    if history is None:
        return rows[:, None]
    grown = rows.shape[-1] - history.shape[-1]
    if grown > 0:
        history = torch.nn.functional.pad(history, (0, grown))  # (k, t, L, h, K')
    return torch.cat([history, rows[:, None]], dim=1)  # (k, t + 1, L, h, K')


class Rule(Protocol):
    length_penalty: float

    def expand(self, logp_sum: Tensor, log_probs: Tensor, logits: Tensor, eos: Tensor) -> Expansions: ...


@torch.no_grad()
def search(stepper: Stepper, first: Tensor, rule: Rule, limit: int, eos_ids: Collection[int],
           watch: Callable[[SearchStep], None] | None = None) -> list[Found | None]:
    """Decode from the start tokens ``first`` (k0,) (one independent start per source) for at most ``limit`` steps.

    Every step feeds the alive hypotheses' last tokens, lets ``rule`` choose, and hands the step to ``watch``.
    A hypothesis ends with a token of ``eos_ids`` or at the limit. Returns, per start, the best ended or stopped
    hypothesis (the first of equal scores; None when the rule ended none).
    """
    device = first.device
    eos = torch.tensor(sorted(eos_ids), dtype=torch.long, device=device)
    origin = torch.arange(first.shape[0], device=device)  # (k,) the start each hypothesis grew from
    seqs = first.new_zeros((first.shape[0], 0))  # (k, t) produced tokens
    logp_sum = torch.zeros(first.shape[0], device=device)
    history: Tensor | None = None  # (k, t, L, h, Ts)
    best: list[Found | None] = [None] * first.shape[0]

    def offer(rows: Tensor, ends: list[int | None], scores: list[float], at: list[tuple[int, int]]) -> None:
        crossed = None if history is None else history.index_select(0, rows)
        for i, (start, ids) in enumerate(zip(origin[rows].tolist(), seqs[rows].tolist())):
            found = Found(ids, ends[i], scores[i], None if crossed is None else crossed[i], at[i])
            if best[start] is None or found.score > best[start].score:  # type: ignore[union-attr]
                best[start] = found

    y, parents = first, None
    for t in range(limit):
        logits, cross = stepper.step(y, parents)  # (k, V), (k, L, h, keys) | None
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (k, V)
        if cross is not None:
            history = _with_row(history, cross)
        exp = rule.expand(logp_sum, log_probs, logits, eos)
        if watch is not None:
            watch(SearchStep(t, logits, log_probs, cross, exp))
        scale = (t + 1) ** rule.length_penalty
        done = exp.finished.nonzero()[:, 0]
        if done.numel():
            offer(exp.parents[done], exp.tokens[done].tolist(), [v / scale for v in exp.values[done].tolist()],
                  [(t, i) for i in done.tolist()])
        kept = exp.kept.nonzero()[:, 0]
        if not kept.numel():
            break
        parents, y = exp.parents[kept], exp.tokens[kept]
        seqs = torch.cat([seqs.index_select(0, parents), y[:, None]], dim=1)  # (k', t + 1)
        logp_sum, origin = exp.values[kept], origin[parents]
        if history is not None:
            history = history.index_select(0, parents)
        if t == limit - 1:
            offer(torch.arange(len(kept), device=device), [None] * len(kept),
                  [v / scale for v in logp_sum.tolist()], [(t, i) for i in kept.tolist()])
        if len(parents) == len(logits) and bool((parents == torch.arange(len(parents), device=device)).all()):
            parents = None  # every hypothesis continues in place: nothing to reorder
    return best
