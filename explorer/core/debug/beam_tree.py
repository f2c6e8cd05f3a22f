"""Beam search as a tree (book §10.8): every hypothesis a node with its parent, token, scores and the
cross-attention row of the step that produced it, so a view can draw how the beams grew and were cut.

The search is :func:`explorer.core.model.decoding.beam_search`'s, step for step (same ranking, length penalty and
end rule), so the best leaf's path is that function's output; it runs on any
:class:`~explorer.core.inspect.step_model.StepModel` (our checkpoints, Hugging Face encoder–decoders).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from explorer.core.inspect.interface import ModelError
from explorer.core.debug.sampling import DecodeChoice, DecodeStep, DecodeTrace
from explorer.core.inspect.step_model import StepModel

#: ``root``: the start; ``kept``: continues in the beam; ``finished``: ended with the end token inside the beam;
#: ``stopped``: kept when the length limit was reached (a candidate too); ``pruned``: among the 2k best
#: expansions but not kept.
STATUSES = ("root", "kept", "finished", "stopped", "pruned")


@dataclass
class BeamNode:
    """One hypothesis. ``log_prob`` sums its tokens' log-probabilities; ``score`` = ``log_prob / depth**α``
    (α the length penalty; the root's is 0). ``rank`` is the token's rank in its parent's distribution (0 =
    most probable). ``cross_attention`` ``(layers, heads, source tokens)`` is the row of the step that produced
    the token (None for the root or a model without cross-attention). ``next_*`` hold the most probable next
    tokens of a node that was expanded."""

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
    next_ids: list[int] = field(default_factory=list)
    next_tokens: list[str] = field(default_factory=list)
    next_probs: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """JSON-able (the cross-attention row left out)."""
        return {k: v for k, v in self.__dict__.items() if k != "cross_attention"}


@dataclass
class BeamTree:
    """All nodes (``nodes[i].id == i``, parents before children), the best candidate ``best`` and the steps'
    alive beams ``beams[t]`` (node ids kept after step t + 1)."""

    source_tokens: list[str]
    beam_width: int
    length_penalty: float
    nodes: list[BeamNode]
    best: int
    beams: list[list[int]]

    def path(self, node: int) -> list[int]:
        """Node ids from the root's first child down to ``node``."""
        out: list[int] = []
        current: int | None = node
        while current is not None and self.nodes[current].parent is not None:
            out.append(current)
            current = self.nodes[current].parent
        return out[::-1]

    def children(self, node: int) -> list[int]:
        return [n.id for n in self.nodes if n.parent == node]

    def best_ids(self) -> list[int]:
        """The best hypothesis's token ids, without its end token (as ``beam_search`` returns them)."""
        ids = [self.nodes[i].token_id for i in self.path(self.best)]
        return ids[:-1] if self.nodes[self.best].status == "finished" else ids

    def best_trace(self, sm: StepModel, choice: DecodeChoice) -> DecodeTrace:
        """The best hypothesis as a :class:`DecodeTrace`: each step's top tokens are its parent's."""
        trace = DecodeTrace(choice=choice, source_tokens=list(self.source_tokens))
        for index, nid in enumerate(self.path(self.best)):
            node, parent = self.nodes[nid], self.nodes[self.nodes[nid].parent or 0]
            trace.steps.append(DecodeStep(
                index=index, top_ids=parent.next_ids, top_tokens=parent.next_tokens, top_probs=parent.next_probs,
                top_choice_probs=[1.0 if i == node.token_id else 0.0 for i in parent.next_ids],
                chosen_id=node.token_id, chosen_token=node.token, chosen_prob=float(np.exp(node.token_log_prob)),
                chosen_rank=node.rank, chosen_log_prob=node.token_log_prob, support=1,
                cross_attention=node.cross_attention))
            trace.ids.append(node.token_id)
            trace.log_prob = node.log_prob
        trace.finished = self.nodes[self.best].status == "finished"
        trace.tokens = sm.tokens(trace.ids)
        trace.text = sm.text(trace.ids)
        return trace

    def to_dict(self) -> dict[str, object]:
        return {"source_tokens": self.source_tokens, "beam_width": self.beam_width,
                "length_penalty": self.length_penalty, "best": self.best, "beams": self.beams,
                "nodes": [n.to_dict() for n in self.nodes]}


@torch.no_grad()
def beam_tree(sm: StepModel, source: str, beam_width: int = 4, length_penalty: float = 0.75,
              max_new_tokens: int | None = None, top: int = 5) -> BeamTree:
    """Beam search of ``source`` recording every expansion (see :class:`BeamTree`).

    As ``decoding.beam_search``: candidates are ranked by ``log P(y) / L**length_penalty``; a hypothesis ends
    when the end token ranks among the ``beam_width`` best of the ``2 × beam_width`` expansions; at the length
    limit the kept beams are candidates too. ``top`` next tokens are kept per expanded node.
    """
    DecodeChoice(method="beam", beam_width=beam_width, length_penalty=length_penalty).validate()
    limit = sm.max_new_tokens(source) if max_new_tokens is None else max_new_tokens
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ModelError(f"max_new_tokens must be a whole number of at least 1, got {limit!r}")
    stepper = sm.begin(source)
    first = int(stepper.first[0])
    nodes = [BeamNode(0, None, 0, first, sm.tokens([first])[0], 0.0, 0.0, 0.0, "root")]
    alive = [0]
    beams: list[list[int]] = []
    candidates: list[tuple[float, int]] = []
    y, parents_t = stepper.first, None
    logp_sum = torch.zeros(1, device=y.device)
    for t in range(limit):
        logits, cross = stepper.step(y, parents_t)  # (k, V), (k, L, h, Ts) | None
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (k, V)
        _note_next(sm, nodes, alive, log_probs, top)
        cand = logp_sum[:, None] + log_probs  # (k, V)
        vocab = cand.shape[1]
        top_v, top_i = cand.reshape(-1).topk(min(2 * beam_width, cand.numel()))  # (2k,)
        keep: list[int] = []
        parents: list[int] = []
        kept_nodes: list[int] = []
        for rank, (value, flat) in enumerate(zip(top_v.tolist(), top_i.tolist())):
            parent, token = divmod(flat, vocab)
            ends = token in sm.eos_ids
            status = ("finished" if rank < beam_width else "pruned") if ends else \
                ("kept" if len(keep) < beam_width else "pruned")
            row = log_probs[parent]
            node = BeamNode(len(nodes), alive[parent], t + 1, token, sm.tokens([token])[0], float(row[token]), value,
                            value / (t + 1) ** length_penalty, status, int((row > row[token]).sum()),
                            None if cross is None else cross[parent].detach().cpu().float().numpy().copy())
            nodes.append(node)
            if status == "finished":
                candidates.append((node.score, node.id))
            elif status == "kept":
                keep.append(flat)
                parents.append(parent)
                kept_nodes.append(node.id)
        if not keep:
            break
        parents_t = torch.tensor(parents, device=y.device)
        y = torch.tensor([flat % vocab for flat in keep], device=y.device)
        logp_sum = cand.reshape(-1)[torch.tensor(keep, device=y.device)]
        alive = kept_nodes
        beams.append(list(kept_nodes))
        if t == limit - 1:
            for i, nid in enumerate(kept_nodes):
                nodes[nid].status = "stopped"
                nodes[nid].score = logp_sum[i].item() / (t + 1) ** length_penalty
                candidates.append((nodes[nid].score, nid))
    if not candidates:
        raise ModelError("beam search found no hypothesis (the vocabulary is too small for this beam width)")
    best = max(candidates, key=lambda item: item[0])[1]  # the first of equal scores, as beam_search
    return BeamTree(list(stepper.source_tokens), beam_width, float(length_penalty), nodes, best, beams)


def _note_next(sm: StepModel, nodes: list[BeamNode], alive: list[int], log_probs: torch.Tensor, top: int) -> None:
    """Record each alive node's ``top`` most probable next tokens."""
    values, ids = log_probs.topk(min(max(1, top), log_probs.shape[-1]), dim=-1)  # (k, top)
    for row, nid in enumerate(alive):
        id_list = [int(i) for i in ids[row].tolist()]
        nodes[nid].next_ids = id_list
        nodes[nid].next_tokens = sm.tokens(id_list)
        nodes[nid].next_probs = values[row].exp().tolist()
