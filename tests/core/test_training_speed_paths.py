"""The trainer's shortcuts change no number: a batch trimmed to its longest sentences and scored only at its
target tokens gives the full padded batch's loss and gradients."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from explorer.core.data.text import build_dataset
from explorer.core.training.trainer import batch_plans
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

pytestmark = pytest.mark.usefixtures("one_torch_thread")

WORDS = "a b c d e f g h".split()


def _dataset(n: int = 24, num_steps: int = 10):
    rng = np.random.default_rng(3)
    pairs = []
    for _ in range(n):
        words = list(rng.choice(WORDS, size=int(rng.integers(1, 5))))  # ≤ 5 tokens of 10: much padding
        pairs.append((" ".join(words), " ".join(reversed(words))))
    return build_dataset(pairs, num_steps, min_freq=1)


def _loss_and_grads(model: Seq2SeqTransformer, src, src_len, dec, **kw) -> tuple[torch.Tensor, list[torch.Tensor]]:
    labels = kw.pop("labels")
    model.zero_grad()
    logits, _ = model(src, src_len, dec, **kw)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), reduction="sum")
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in model.parameters()]


@pytest.mark.parametrize("norm_first", [False, True])
def test_trimmed_batch_scored_at_its_tokens_equals_the_padded_batch(norm_first: bool) -> None:
    ds = _dataset()
    torch.manual_seed(0)
    model = Seq2SeqTransformer(TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32, dropout=0.0,
                                                 norm_first=norm_first), len(ds.src_vocab), len(ds.tgt_vocab))
    perm = np.random.default_rng(1).permutation(len(ds))
    plans, rows, labels = batch_plans(perm, ds.src_valid_len.numpy(), ds.tgt_valid_len.numpy(), ds.tgt.numpy(), 16)
    assert len(plans) == 2
    bos = torch.full((len(ds), 1), ds.tgt_vocab.bos)
    dec_all = torch.cat([bos, ds.tgt[:, :-1]], dim=1)  # (N, T)
    for lo, hi, ts, tt, start, stop in plans:
        idx = torch.from_numpy(perm[lo:hi])
        src, src_len, dec, tgt = ds.src[idx], ds.src_valid_len[idx], dec_all[idx], ds.tgt[idx]
        assert ts == int(src_len.max()) < 10 and tt == int(ds.tgt_valid_len[idx].max()) < 10
        padded = tgt.masked_fill(torch.arange(10)[None, :] >= ds.tgt_valid_len[idx][:, None], -100)
        full_loss, full_grads = _loss_and_grads(model, src, src_len, dec, labels=padded)
        lab = torch.from_numpy(labels[start:stop])
        assert stop - start == int(ds.tgt_valid_len[idx].sum())
        torch.testing.assert_close(lab, tgt[padded != -100])  # the same tokens, row-major
        trim_loss, trim_grads = _loss_and_grads(model, src[:, :ts], src_len, dec[:, :tt], labels=lab,
                                                rows=torch.from_numpy(rows[start:stop]))
        torch.testing.assert_close(trim_loss, full_loss, rtol=1e-5, atol=1e-5)
        for (name, _), a, b in zip(model.named_parameters(), trim_grads, full_grads):
            # equal up to float32 summation order (other row counts, other blocking): relative to the largest entry
            torch.testing.assert_close(a, b, rtol=0, atol=1e-5 * float(b.abs().max()) + 1e-8, msg=name)


def test_batch_plans_share_every_batch_over_ranks() -> None:
    ds = _dataset(n=21)
    perm = np.arange(21)
    args = (perm, ds.src_valid_len.numpy(), ds.tgt_valid_len.numpy(), ds.tgt.numpy(), 8)
    whole, _, whole_labels = batch_plans(*args)
    parts = [batch_plans(*args, rank=r, world=3) for r in range(3)]
    for b, (lo, hi, _, _, _, _) in enumerate(whole):  # the ranks' rows tile the global batch
        shares = sorted((p[0][b][0], p[0][b][1]) for p in parts)
        assert shares[0][0] == lo and shares[-1][1] == hi
        assert all(a[1] == c[0] for a, c in zip(shares, shares[1:]))
    assert sum(len(p[2]) for p in parts) == len(whole_labels) == int(ds.tgt_valid_len.sum())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("amp", [False, True])
def test_cuda_run_trims_scores_and_resumes(amp: bool) -> None:
    """The CUDA path: fused Adam on the device, the host-planned batches, bf16 autocast, an exact resume."""
    from explorer.core.training.trainer import Trainer
    from explorer.core.training.config import TrainingConfig

    ds = _dataset()
    config = TrainingConfig(model=TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32),
                            batch_size=8, num_steps=10, num_epochs=2, snapshot_every=0, device="cuda", amp=amp)
    whole = Trainer(config, ds)
    losses = [e.loss for e in whole if e.kind == "epoch"]
    assert all(np.isfinite(losses)) and whole._optimizer.param_groups[0]["fused"]
    first = Trainer(TrainingConfig(**{**config.__dict__, "num_epochs": 1}), ds)
    list(first)
    resumed = Trainer(config, ds, resume=first.state())
    again = [e.loss for e in resumed if e.kind == "epoch"]
    np.testing.assert_allclose(again, losses[1:], rtol=1e-4)
