#!/usr/bin/env python3
"""Every hand-written training kernel against its stock PyTorch counterpart, in one run.

One trainer per variant (same data, same seed, same initial weights), advanced a few steps at a time in
turn, so all variants share the machine's noise (rounds of ~0.1 s each); the order rotates every round, and
each variant keeps its own dropout stream (so its losses are those of an uninterrupted run). A variant is the code as it
is with one piece swapped for its counterpart (stock or hand-written, whichever the code does not use), the
swap applied while that variant's steps run:

  attention core  our autograd core (all heads in one product)  vs F.scaled_dot_product_attention
  dropout         16-bit keep_mask / dropout                    vs F.dropout (and its bernoulli mask)
  Adam            our flat-buffer Adam (retired, kept below)   vs torch.optim.Adam(fused=True) / (foreach=True)
  clip            our foreach clip (retired, kept below)       vs torch.nn.utils.clip_grad_norm_(foreach=True)
  cross-entropy   our one-softmax loss (retired, kept below)   vs F.cross_entropy(reduction="sum")

Prints tokens/s per variant (median over rounds), the per-round ratio to the baseline (median, quartiles) and
the verdict (a hand-written piece is kept only where it wins by ≥ 5 %). The last line is JSON.

Usage: python bench/kernel_ablation.py [--data TSV | --big] [--num-examples 600] [--rounds 30] [--steps 10]
                                       [--threads 2] [--seed 0]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import Tensor  # noqa: E402

from explorer.core.model import attention, loss as loss_module, transformer  # noqa: E402
from explorer.core.training import trainer as training  # noqa: E402
from explorer.core.model.attention import MultiHeadAttention  # noqa: E402

KEEP_THRESHOLD = 0.05  # a hand-written piece stays only if it beats the stock one by this much
_ORIGINAL_MHA_FORWARD = MultiHeadAttention.forward


# ----------------------------------------------------------------------------- stock counterparts
def stock_dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    """``F.dropout`` behind our ``dropout(x, p, training)`` signature."""
    return F.dropout(x, p, training)


def stock_keep_mask(shape: tuple[int, ...] | torch.Size, p: float, dtype: torch.dtype = torch.float32,
                    device: torch.device | str | None = None) -> Tensor:
    """The multipliers ``F.dropout`` draws on the CPU: ``bernoulli_(1 - p) / (1 - p)``."""
    return torch.empty(shape, dtype=dtype, device=device).bernoulli_(1.0 - p).div_(1.0 - p)


def sdpa_forward(self: MultiHeadAttention, queries: Tensor, keys: Tensor, values: Tensor,
                 valid_lens: Tensor | None = None, need_weights: bool = True,
                 attn_bias: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention with ``F.scaled_dot_product_attention`` whenever no weights are asked for."""
    if need_weights or attn_bias is None:
        return _ORIGINAL_MHA_FORWARD(self, queries, keys, values, valid_lens, need_weights, attn_bias)
    q, k, v = self._project(queries, keys, values)  # each (B, T, h*d)
    batch, steps, _ = q.shape
    q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)  # each (B, h, T, d)
    context = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias.to(q.dtype),
                                             dropout_p=self.dropout.p if self.training else 0.0)  # (B, h, Q, d)
    return self.W_o(context.transpose(1, 2).reshape(batch, steps, self.num_hiddens)), None  # (B, Q, h*d)


def torch_adam(**options: Any) -> Callable[[Tensor, float], torch.optim.Adam]:
    """``torch.optim.Adam`` with ``options`` behind the trainer's ``adam(flat, lr)``."""
    return lambda flat, lr: torch.optim.Adam([flat], lr=lr, **options)


# ----------------------------------------------------------------------------- retired hand-written pieces
# The code uses PyTorch's Adam and clipping since this table showed ours did not win; the hand-written
# versions live on here only so the table can be measured again.
class RetiredAdam:
    """The flat-buffer Adam the trainer had: ``torch.optim.Adam(foreach=True)``'s arithmetic, a Python step count."""

    def __init__(self, params: list[Tensor], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params, self.lr, self.betas, self.eps = list(params), float(lr), betas, float(eps)
        self.exp_avg = [torch.zeros_like(p) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]
        self.steps = 0
        self.param_groups = [{"params": self.params, "lr": self.lr}]  # the trainer reads each step's rate here
        self.state: dict[Tensor, dict[str, Any]] = {}

    @torch.no_grad()
    def step(self) -> None:
        grads = [p.grad for p in self.params]
        beta1, beta2 = self.betas
        self.steps += 1
        torch._foreach_lerp_(self.exp_avg, grads, 1 - beta1)
        torch._foreach_mul_(self.exp_avg_sq, beta2)
        torch._foreach_addcmul_(self.exp_avg_sq, grads, grads, 1 - beta2)
        step_size = -self.param_groups[0]["lr"] / (1 - beta1 ** float(self.steps))
        denom = torch._foreach_sqrt(self.exp_avg_sq)
        torch._foreach_div_(denom, (1 - beta2 ** float(self.steps)) ** 0.5)
        torch._foreach_add_(denom, self.eps)
        torch._foreach_addcdiv_(self.params, self.exp_avg, denom, step_size)


def retired_clip(params: list[Tensor], max_norm: float, foreach: bool | None = None) -> Tensor:
    """The trainer's former clip: the book's rule with ``foreach`` kernels, behind ``clip_grad_norm_``'s call."""
    grads = [p.grad for p in params]
    norm = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    torch._foreach_mul_(grads, torch.clamp(max_norm / norm, max=1.0))
    return norm


class _RetiredCrossEntropy(torch.autograd.Function):
    """Summed cross-entropy keeping ``softmax - onehot`` from the forward (one exp per logit instead of two,
    no zero-filled gradient); the backward only scales it."""

    @staticmethod
    def forward(ctx: Any, logits: Tensor, labels: Tensor) -> Tensor:
        log_probs = torch.log_softmax(logits, dim=-1)  # (M, V)
        loss = F.nll_loss(log_probs, labels, reduction="sum")
        grad = log_probs.exp_()  # (M, V) softmax, in place
        minus_one = torch.full((), -1.0, dtype=grad.dtype)
        grad.scatter_add_(1, labels[:, None], minus_one.expand(labels.shape[0], 1))  # softmax - onehot
        ctx.save_for_backward(grad)
        return loss

    @staticmethod
    def backward(ctx: Any, grad_loss: Tensor) -> tuple[Tensor, None]:
        (grad,) = ctx.saved_tensors
        return grad * grad_loss, None


_STOCK_CROSS_ENTROPY = F.cross_entropy


def retired_cross_entropy(logits: Tensor, labels: Tensor, reduction: str = "mean", **_: Any) -> Tensor:
    """Stands in for ``F.cross_entropy(..., reduction="sum")`` as the trainer calls it."""
    if reduction != "sum" or not logits.requires_grad:
        return _STOCK_CROSS_ENTROPY(logits, labels, reduction=reduction)
    return _RetiredCrossEntropy.apply(logits, labels)


# ----------------------------------------------------------------------------- variants
Patch = tuple[Any, str, Any]  # (owner, attribute, replacement)
#: What the code uses now for each piece: our hand-written one or PyTorch's.
CODE = {"attention core": "hand-written", "dropout": "hand-written", "Adam": "stock", "clip": "stock",
        "cross-entropy": "stock"}


@dataclass
class Variant:
    name: str
    piece: str  # the piece it swaps ("" for the code as it is)
    kind: str = ""  # what it swaps in: "stock" or "hand-written"
    patches: list[Patch] = field(default_factory=list)


def variants() -> list[Variant]:
    dropout = [(transformer, "dropout", stock_dropout), (attention, "dropout", stock_dropout),
               (attention, "keep_mask", stock_keep_mask)]
    sdpa = [(MultiHeadAttention, "forward", sdpa_forward)]
    loss = [(loss_module.F, "cross_entropy", retired_cross_entropy)]  # where masked_cross_entropy finds it
    return [Variant("the code: our attention core + dropout, stock Adam + clip", ""),
            Variant("attention core -> F.scaled_dot_product_attention", "attention core", "stock", sdpa),
            Variant("dropout -> F.dropout", "dropout", "stock", dropout),
            Variant("Adam -> our flat-buffer Adam (retired)", "Adam", "hand-written",
                    [(training, "adam", lambda flat, lr: RetiredAdam([flat], lr))]),
            Variant("Adam -> torch.optim.Adam(foreach=True)", "Adam", "stock",
                    [(training, "adam", torch_adam(foreach=True))]),
            Variant("clip -> our foreach clip (retired)", "clip", "hand-written",
                    [(training, "clip_grad_norm", retired_clip)]),
            Variant("cross-entropy -> our one-softmax loss (retired)", "cross-entropy", "hand-written", loss),
            Variant("all stock: SDPA, F.dropout, Adam fused, clip_grad_norm_, F.cross_entropy", "all", "stock",
                    sdpa + dropout)]


@contextlib.contextmanager
def patched(patches: list[Patch]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


def load_pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    from explorer.core.data.readers import read_pairs

    if not args.big:
        return read_pairs(args.data, num_examples=args.num_examples + 1).pairs  # the reference's i <= n
    import big_corpus

    with tempfile.TemporaryDirectory() as tmp:
        path = big_corpus.write(Path(tmp) / "big.tsv", big_corpus.build_for_vocab(args.num_examples + 1, 3500))
        return read_pairs(path).pairs


class Run:
    """One variant's trainer, advanced a slice of steps at a time with its own global RNG state (dropout):
    interleaving variants step by step then leaves each one's random stream as if it ran alone."""

    def __init__(self, events: Iterator[Any]) -> None:
        self.events = events
        self.rng = torch.get_rng_state()
        self.loss = float("nan")

    def advance(self, steps: int) -> tuple[float, int]:
        """Run ``steps`` optimiser steps; returns (wall seconds, target tokens)."""
        torch.set_rng_state(self.rng)
        done = tokens = 0
        t0 = time.perf_counter()
        for event in self.events:
            if event.kind == "step":
                done += 1
                tokens += event.tokens
                self.loss = event.loss
                if done == steps:
                    break
            elif event.kind in ("error", "finished"):
                raise SystemExit(f"a variant stopped early: {event}")
        seconds = time.perf_counter() - t0
        self.rng = torch.get_rng_state()
        return seconds, tokens


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "resources" / "eng_fra.tsv")
    ap.add_argument("--big", action="store_true", help="the recombined 18k-pair corpus (bench/big_corpus.py)")
    ap.add_argument("--num-examples", type=int, default=None, help="default 600 (18000 with --big)")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--steps", type=int, default=10, help="optimiser steps per variant and round")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.num_examples is None:
        args.num_examples = 18000 if args.big else 600
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    torch.set_num_threads(args.threads)
    from explorer.core.data.text import build_dataset
    from explorer.core.training.trainer import Trainer
    from explorer.core.training.config import TrainingConfig

    pairs = load_pairs(args)
    dataset = build_dataset(pairs, 10, min_freq=2)
    batches = -(-len(dataset) // 64)
    config = TrainingConfig(num_epochs=-(-(args.rounds + 1) * args.steps // batches), seed=args.seed,
                            snapshot_every=0, device="cpu")
    print(f"{len(dataset)} pairs, vocab {len(dataset.src_vocab)}/{len(dataset.tgt_vocab)}, {args.rounds} rounds of "
          f"{args.steps} steps per variant, {args.threads} thread(s), torch {torch.__version__}", flush=True)
    vs = variants()
    runs = []
    for v in vs:
        with patched(v.patches):
            torch.manual_seed(args.seed)
            run = Run(iter(Trainer(config, dataset)))
            run.advance(args.steps)  # warm-up, not timed (first calls, allocator, one-time imports)
        runs.append(run)
    speed: list[list[float]] = [[] for _ in vs]  # tokens/s per round
    for r in range(args.rounds):
        order = list(range(len(vs)))
        order = order[r % len(vs):] + order[:r % len(vs)]  # rotate: no variant always runs first
        for i in order:
            with patched(vs[i].patches):
                seconds, tokens = runs[i].advance(args.steps)
            speed[i].append(tokens / seconds)
    rows = []
    print(f"\n{'variant':70s} {'tokens/s':>9s} {'vs code':>8s} {'IQR of the ratio':>17s}  loss")
    for v, tps, run in zip(vs, speed, runs):
        ratios = [t / b for t, b in zip(tps, speed[0])]  # same batches in the same round; > 1: faster than the code
        q1, med, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratios[0],) * 3
        rows.append({"variant": v.name, "piece": v.piece, "tokens_per_s": round(statistics.median(tps)),
                     "ratio": round(med, 3), "ratio_q1": round(q1, 3), "ratio_q3": round(q3, 3),
                     "loss": round(run.loss, 4)})
        print(f"{v.name:70s} {statistics.median(tps):9,.0f} {med:7.3f}x {q1:8.3f}–{q3:.3f}  {run.loss:.4f}")
    verdict = {}
    for piece, used in CODE.items():
        ratio = {"hand-written": [], "stock": []}  # speed relative to the code as it is
        ratio[used].append(1.0)
        for row, v in zip(rows, vs):
            if v.piece == piece:
                ratio[v.kind].append(row["ratio"])
        win = max(ratio["hand-written"]) / max(ratio["stock"]) - 1.0  # the hand-written piece over the best stock one
        keep = win >= KEEP_THRESHOLD
        verdict[piece] = {"handwritten_wins_by": round(win, 3), "keep_handwritten": keep, "code_uses": used}
        print(f"{piece:15s}: the hand-written piece wins by {win:+.1%} -> "
              f"{'keep it' if keep else 'use the stock one'} (the code uses the {used} one)")
    print(json.dumps({"pairs": len(dataset), "tgt_vocab": len(dataset.tgt_vocab), "threads": args.threads,
                      "rounds": args.rounds, "rows": rows, "verdict": verdict}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
