"""Beam search as a tree (book §10.8): every hypothesis a node with its parent, token, scores and the
attention row of the step that produced it, so a view can draw how the beams grew and were cut.

The search is the one loop of :mod:`explorer.core.model.search` (the tree only watches it), so the best leaf's
path is what translation's beam search returns; it runs on any
:class:`~explorer.core.inspect.step_model.StepModel` (our checkpoints, Hugging Face encoder–decoders and decoders).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from explorer.core.checks import non_negative, positive_int
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.step_model import StepModel
from explorer.core.model.search import Beam, SearchStep, search

#: ``root``: the start; ``kept``: continues in the beam; ``finished``: ended with the end token inside the beam;
#: ``stopped``: kept when the length limit was reached (a candidate too); ``pruned``: among the 2k best
#: expansions but not kept.
STATUSES = ("root", "kept", "finished", "stopped", "pruned")


@dataclass
class BeamNode:
    """One hypothesis. ``log_prob`` sums its tokens' log-probabilities; ``score`` = ``log_prob / depth**α``
    (α the length penalty; the root's is 0). ``rank`` is the token's rank in its parent's distribution (0 =
    most probable). ``cross_attention`` ``(layers, heads, source tokens)`` is the row of the step that produced
    the token (None for the root or a model without cross-attention); a decoder-only model's ``self_attention``
    ``(layers, heads, prompt tokens + depth - 1)`` is over the prompt and the tokens of the path before it
    (:meth:`BeamTree.key_tokens`). ``next_*`` hold the most probable next tokens of a node that was expanded."""

    id: int
    parent: int | None
    depth: int
    token_id: int
    token: str
    token_log_prob: float
    log_prob: float
    score: float
    status: str
    rank: int = 0
    cross_attention: np.ndarray | None = None
    self_attention: np.ndarray | None = None
    next_ids: list[int] = field(default_factory=list)
    next_tokens: list[str] = field(default_factory=list)
    next_probs: list[float] = field(default_factory=list)

    @property
    def attention(self) -> np.ndarray | None:
        """The attention row of the step that produced this node (cross or self), ``(layers, heads, keys)``."""
        return self.cross_attention if self.cross_attention is not None else self.self_attention

    def to_dict(self) -> dict[str, object]:
        """JSON-able (the attention rows left out)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("cross_attention", "self_attention")}


@dataclass
class BeamTree:
    """All nodes (``nodes[i].id == i``, parents before children), the best candidate ``best`` and the steps'
    alive beams ``beams[t]`` (node ids kept after step t + 1). ``attends`` is what the nodes' attention rows
    cover: ``"cross"`` (the source) or ``"decoder"`` (the prompt and the path before the node)."""

    source_tokens: list[str]
    beam_width: int
    length_penalty: float
    nodes: list[BeamNode]
    best: int
    beams: list[list[int]]
    attends: str = "cross"

    def path(self, node: int) -> list[int]:
        """Node ids from the root's first child down to ``node``."""
        out: list[int] = []
        current: int | None = node
        while current is not None and self.nodes[current].parent is not None:
            out.append(current)
            current = self.nodes[current].parent
        return out[::-1]

    def key_tokens(self, node: int) -> list[str]:
        """The labels of ``node``'s attention row: the source, or the prompt and the path's tokens before it."""
        before = [self.nodes[i].token for i in self.path(node)[:-1]] if self.attends == "decoder" else []
        return list(self.source_tokens) + before

    def children(self, node: int) -> list[int]:
        return [n.id for n in self.nodes if n.parent == node]

    def best_ids(self) -> list[int]:
        """The best hypothesis's token ids, without its end token (as ``beam_search`` returns them)."""
        ids = [self.nodes[i].token_id for i in self.path(self.best)]
        return ids[:-1] if self.nodes[self.best].status == "finished" else ids

    def to_dict(self) -> dict[str, object]:
        return {"source_tokens": self.source_tokens, "beam_width": self.beam_width,
                "length_penalty": self.length_penalty, "best": self.best, "beams": self.beams,
                "nodes": [n.to_dict() for n in self.nodes]}


def check_beam(beam_width: object, length_penalty: object) -> None:
    """Raise :class:`ModelError` unless the width is a whole number ≥ 1 and the penalty a number ≥ 0."""
    positive_int(beam_width, "beam width", ModelError)
    non_negative(length_penalty, "length penalty", ModelError)


def beam_tree(sm: StepModel, source: str, beam_width: int = 4, length_penalty: float = 0.75,
              max_new_tokens: int | None = None, top: int = 5) -> BeamTree:
    """Beam search of ``source`` (:class:`~explorer.core.model.search.Beam`) recording every expansion (see
    :class:`BeamTree`): at the length limit the kept beams are candidates too. ``top`` next tokens are kept per
    expanded node.
    """
    check_beam(beam_width, length_penalty)
    limit = sm.max_new_tokens(source) if max_new_tokens is None else max_new_tokens
    positive_int(limit, "max_new_tokens", ModelError)
    stepper = sm.begin(source)
    first = int(stepper.first[0])
    tree = BeamTree(list(stepper.source_tokens), beam_width, float(length_penalty),
                    [BeamNode(0, None, 0, first, sm.tokens([first])[0], 0.0, 0.0, 0.0, "root")], 0, [],
                    stepper.attends)
    alive = [0]
    made: dict[tuple[int, int], int] = {}  # (step, expansion) -> node id

    def watch(step: SearchStep) -> None:
        nonlocal alive
        _note_next(sm, tree.nodes, alive, step.log_probs, top)
        exp = step.expansions
        kept: list[int] = []
        for i, (parent, token, value, ended, keep) in enumerate(zip(
                exp.parents.tolist(), exp.tokens.tolist(), exp.values.tolist(), exp.finished.tolist(),
                exp.kept.tolist())):
            status = "finished" if ended else ("stopped" if step.t == limit - 1 else "kept") if keep else "pruned"
            row = step.log_probs[parent]
            seen = None if step.cross is None else step.cross[parent].detach().cpu().float().numpy().copy()
            node = BeamNode(len(tree.nodes), alive[parent], step.t + 1, token, sm.tokens([token])[0],
                            float(row[token]), value, value / (step.t + 1) ** length_penalty, status,
                            int((row > row[token]).sum()), seen if stepper.attends == "cross" else None,
                            seen if stepper.attends == "decoder" else None)
            tree.nodes.append(node)
            made[(step.t, i)] = node.id
            if keep:
                kept.append(node.id)
        if kept:
            alive = kept
            tree.beams.append(list(kept))

    best = search(stepper, stepper.first, Beam(beam_width, length_penalty), limit, sm.eos_ids, watch)[0]
    if best is None:
        raise ModelError("beam search found no hypothesis (the vocabulary is too small for this beam width)")
    tree.best = made[best.at]
    return tree


def _note_next(sm: StepModel, nodes: list[BeamNode], alive: list[int], log_probs: torch.Tensor, top: int) -> None:
    """Record each alive node's ``top`` most probable next tokens."""
    values, ids = log_probs.topk(min(max(1, top), log_probs.shape[-1]), dim=-1)  # (k, top)
    for row, nid in enumerate(alive):
        id_list = [int(i) for i in ids[row].tolist()]
        nodes[nid].next_ids = id_list
        nodes[nid].next_tokens = sm.tokens(id_list)
        nodes[nid].next_probs = values[row].exp().tolist()
