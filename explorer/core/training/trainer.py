"""Training the book's Transformer (d2l §11.7, trained as in §10.7's ``train_seq2seq``) as an iterator of events.

Adam, gradient clipping by global norm, teacher forcing, masked cross-entropy; thread-safe pause/stop flags
checked between steps; attention snapshots of a probe pair every few steps; a copy of the weights on each pause.
It can start from a saved :class:`TrainerState` (exact resume) and train as one rank of a distributed run.
"""
from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from explorer.core.training.allocator import retain_freed_memory
from explorer.core.training.distributed import RankFailure, share as _share
from explorer.core.training.devices import check_model_fits, resolve_device
from explorer.core.training.events import (
    EpochEvent, ErrorEvent, FinishedEvent, ModelStateEvent, SnapshotEvent, StepEvent, TrainingEvent)
from explorer.core.training.live_settings import LiveSettings
from explorer.core.training.optim import adam, adam_moments, flatten_parameters, load_adam_moments
from explorer.core.training.probe import ProbeInput, encode_probe, forward_probe
from explorer.core.training.config import TrainingConfig, TrainingHistory
from explorer.core.training.schedule import make_scheduler, needs_scheduler
from explorer.core.training.state import TrainerState, dropout_seed
from explorer.core.model.loss import masked_cross_entropy
from explorer.core.model.transformer import ConfigError, Seq2SeqTransformer

if TYPE_CHECKING:
    from explorer.core.training.distributed import DistContext  # torch.distributed is imported only for a distributed run

__all__ = ["Trainer", "clip_grad_norm", "model_state"]

_PAUSE_POLL_S = 0.05
#: The book's ``grad_clipping`` (scale every gradient by ``max_norm / norm`` when the global norm exceeds it),
#: PyTorch's version (it divides by ``norm + 1e-6``); returns the norm before clipping, without a host sync.
#: Looked up at each step, so a test can wrap it.
clip_grad_norm = torch.nn.utils.clip_grad_norm_


def model_state(model: torch.nn.Module) -> dict[str, np.ndarray]:
    """A CPU numpy copy of ``model.state_dict()``: fresh arrays that share nothing with the model.

    While training, parameters are views of one flat buffer (``flatten_parameters``) that the next step
    overwrites in place, so the arrays must be copies.
    """
    return {name: value.detach().cpu().numpy().copy() for name, value in model.state_dict().items()}


def _is_oom(exc: BaseException) -> bool:
    oom = getattr(torch, "OutOfMemoryError", None)
    return (oom is not None and isinstance(exc, oom)) or "out of memory" in str(exc).lower()


BatchPlan = tuple[int, int, int, int, int, int]  # (lo, hi, ts, tt, start, stop): see batch_plans


def batch_plans(perm: np.ndarray, src_len: np.ndarray, tgt_len: np.ndarray, tgt: np.ndarray, batch_size: int,
                rank: int = 0, world: int = 1) -> tuple[list[BatchPlan], np.ndarray, np.ndarray]:
    """This rank's batches of one epoch, planned on the host so the step itself never reads a device value.

    Per batch ``(lo, hi, ts, tt, start, stop)``: its rows ``lo:hi`` of the permuted data; ``ts``/``tt`` the longest
    source and target among those rows, to which the batch is trimmed (every row is padding past them, and a
    padded position changes neither the loss nor any gradient: its keys are masked and its label ignored);
    ``start:stop`` its slice of ``positions``/``labels``: the row-major flat indices into the trimmed
    ``(hi - lo, tt)`` decoder grid of the target tokens, and their ids. Only those positions are scored.

    Parameters
    ----------
    perm : (N,) the epoch's order; src_len, tgt_len : (N,) valid lengths; tgt : (N, T) target ids.
    """
    n = len(perm)
    plans, positions, labels = [], [], []
    start = 0
    for lo in range(0, n, batch_size):
        hi = min(lo + batch_size, n)
        if world > 1:
            lo, hi = _share(lo, hi, rank, world)
        if hi == lo:  # fewer rows than ranks: this rank sits the batch out
            plans.append((lo, hi, 0, 0, start, start))
            continue
        rows = perm[lo:hi]
        lengths = tgt_len[rows]
        tt = int(lengths.max())
        valid = np.arange(tt)[None, :] < lengths[:, None]  # (B, tt)
        positions.append(np.flatnonzero(valid))
        labels.append(tgt[rows, :tt][valid])
        stop = start + len(positions[-1])
        plans.append((lo, hi, int(src_len[rows].max()), tt, start, stop))
        start = stop
    if not positions:
        return plans, np.zeros(0, np.int64), np.zeros(0, np.int64)
    return plans, np.concatenate(positions).astype(np.int64), np.concatenate(labels).astype(np.int64)


class Trainer:
    """Train a :class:`Seq2SeqTransformer` on an ``NMTDataset``; iterate the trainer to run it (once).

    Parameters
    ----------
    config : :class:`TrainingConfig` (validated here).
    dataset : an ``explorer.core.data.text.NMTDataset`` built with ``config.num_steps``.
    probe : the pair to snapshot: a ``(source, target)`` sentence pair, an index into the dataset, or None
        (the first pair).
    model : continue training this model instead of building a fresh one.
    resume : start from this saved state (an epoch boundary of a run with the same data and batch size):
        weights, Adam's moments, the shuffling generator, the history and the clock continue from it.
    dist : train as one rank of a distributed run (``distributed.DistContext``): every rank takes its share
        of the same global batches, gradients and losses are summed across ranks (one all-reduce of the flat
        gradient buffer per step), and the events report the global batch. ``None``: a single process.

    ``pause() resume() stop() request_step()`` may be called from any thread; they take effect between
    steps. On entering a pause (a pause was requested, or a requested single step has been taken) the
    iterator yields one :class:`ModelStateEvent` (``reason="paused"``) before it blocks: a consistent copy of
    the weights, taken when no optimiser step can be in flight. ``history`` holds the losses so far;
    ``model`` the model being trained. :meth:`state` is what an exact resume needs, at an epoch boundary.
    :meth:`change_settings` (any thread) changes the learning rate, clip and dropout before the next step
    (``live_settings.py``); the rate follows ``config.lr_schedule`` (``schedule.py``, torch's ``LambdaLR``), none for
    the book's constant rate.
    """

    def __init__(self, config: TrainingConfig, dataset: Any, probe: tuple[str, str] | int | None = None,
                 model: Seq2SeqTransformer | None = None, *, resume: TrainerState | None = None,
                 dist: DistContext | None = None) -> None:
        self.config = config.validate()
        if len(dataset) == 0:
            raise ConfigError("the dataset is empty: there is nothing to train on")
        if dataset.tgt.shape[1] != config.num_steps or dataset.src.shape[1] != config.num_steps:
            raise ConfigError(f"the dataset was built with {dataset.tgt.shape[1]} steps but num_steps is "
                              f"{config.num_steps}: rebuild it with the same num_steps")
        self.dataset = dataset
        self.dist = dist
        self.device = dist.device if dist is not None else resolve_device(config.device)
        self.src_vocab, self.tgt_vocab = dataset.src_vocab, dataset.tgt_vocab
        if model is None:  # refuse a model that cannot fit before allocating it (or meeting the OOM killer)
            check_model_fits(config.model, len(self.src_vocab), len(self.tgt_vocab), self.device)
        torch.manual_seed(config.seed)
        self.model = model if model is not None else Seq2SeqTransformer(
            config.model, len(self.src_vocab), len(self.tgt_vocab))
        self.history = TrainingHistory()
        self.step = 0
        self.epoch = 0
        self.num_batches = math.ceil(len(dataset) / config.batch_size)
        self.total_steps = self.num_batches * config.num_epochs
        self._resume = resume
        self._elapsed_s, self._tokens = 0.0, 0  # active seconds and tokens at the last epoch boundary
        # what change_settings may change, as in force now; a cosine schedule spans the steps planned at Start
        self._live = LiveSettings(config.lr, config.grad_clip, config.model.dropout, self.total_steps)
        if resume is not None:
            self._start_from(resume)
        self.model.to(self.device)
        self._optimizer: torch.optim.Adam | None = None
        self._flat: Tensor | None = None  # the flat parameter buffer Adam updates (optim.flatten_parameters)
        self._shuffle: torch.Generator | None = None
        self._probe = self._make_probe(probe)
        self._stop = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._step_once = threading.Event()
        self._started = False

    def _start_from(self, state: TrainerState) -> None:
        if state.step != state.epoch * self.num_batches:
            raise ConfigError(f"the saved state is at step {state.step} after {state.epoch} epoch(s), but this data "
                              f"and batch size make {self.num_batches} steps per epoch: resume with the run's "
                              f"data and batch size")
        if state.epoch > self.config.num_epochs:
            raise ConfigError(f"the run has already trained {state.epoch} epochs; ask for more than that "
                              f"(num_epochs is {self.config.num_epochs})")
        try:
            self.model.load_state_dict(state.model, strict=True)
        except RuntimeError as exc:
            raise ConfigError(f"the saved weights do not fit this model: {exc}") from exc
        self.history = TrainingHistory.from_dict(state.history.to_dict())
        self.step, self.epoch = state.step, state.epoch
        self._elapsed_s, self._tokens = float(state.elapsed_s), int(state.tokens)
        if state.settings is not None:  # changed while the run trained: they go on as they were
            self._live.restore(state.settings, self.model)

    @property
    def elapsed_s(self) -> float:
        """Active training seconds (pauses excluded) at the last epoch boundary, a resumed run's included."""
        return self._elapsed_s

    def state(self) -> TrainerState:
        """What an exact resume needs (CPU copies); only at an epoch boundary: before the run, after an
        :class:`EpochEvent` has been yielded, or after the last epoch. Raises RuntimeError elsewhere."""
        if self.step != self.epoch * self.num_batches:
            raise RuntimeError("a trainer's state can only be taken at an epoch boundary")
        weights = {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}
        if self._optimizer is not None and self._flat is not None and self._shuffle is not None:
            m, v, adam_steps = adam_moments(self._optimizer, self._flat)
            m, v = m.detach().to("cpu", copy=True), v.detach().to("cpu", copy=True)
            rng = self._shuffle.get_state()
        elif self._resume is not None:
            r = self._resume
            m, v, adam_steps, rng = r.exp_avg.clone(), r.exp_avg_sq.clone(), r.adam_steps, r.shuffle_rng.clone()
        else:
            size = sum(p.numel() for p in self.model.parameters() if p.requires_grad)
            m, v, adam_steps = torch.zeros(size), torch.zeros(size), 0
            rng = torch.Generator().manual_seed(self.config.seed).get_state()
        return TrainerState(step=self.step, epoch=self.epoch, model=weights, exp_avg=m, exp_avg_sq=v,
                            adam_steps=adam_steps, shuffle_rng=rng,
                            history=TrainingHistory.from_dict(self.history.to_dict()),
                            elapsed_s=self._elapsed_s, tokens=self._tokens, settings=dict(self._live.values))

    # ------------------------------------------------------------------ settings changed while training
    @property
    def settings(self) -> dict[str, float]:
        """The live settings in force: ``lr`` (the base rate the schedule scales), ``grad_clip``, ``dropout``."""
        return self._live.in_force

    def change_settings(self, **values: float) -> None:
        """Change ``lr`` (the base rate: the next step's rate is ``lr × schedule factor``), ``grad_clip`` and/or
        ``dropout`` from any thread; they apply before the next step, which a :class:`SettingsEvent` announces.
        Raises ``ConfigError`` (changing nothing) for a bad value: lr ≤ 0 or NaN, a negative clip, dropout ≥ 1."""
        self._live.request(values)

    # ------------------------------------------------------------------ control (any thread)
    def pause(self) -> None:
        """Block before the next step until :meth:`resume`, :meth:`request_step` or :meth:`stop`."""
        self._running.clear()

    def resume(self) -> None:
        """Continue after :meth:`pause`."""
        self._running.set()

    def request_step(self) -> None:
        """Run exactly one more batch, then stay paused."""
        self._running.clear()
        self._step_once.set()

    def stop(self) -> None:
        """End the run before the next step (a :class:`FinishedEvent` with ``stopped=True`` follows)."""
        self._stop.set()
        self._running.set()

    @property
    def paused(self) -> bool:
        """True while a pause is requested."""
        return not self._running.is_set()

    def _pause_pending(self) -> bool:
        """True when :meth:`_wait_while_paused` would block now (entering a pause, not passing through one)."""
        return not (self._running.is_set() or self._stop.is_set() or self._step_once.is_set())

    def _wait_while_paused(self) -> float:
        """Block while paused; returns the seconds spent waiting. A requested single step passes once."""
        if self._running.is_set() or self._stop.is_set():
            return 0.0
        start = time.perf_counter()
        while not self._running.is_set() and not self._stop.is_set():
            if self._step_once.is_set():
                self._step_once.clear()
                break
            self._running.wait(_PAUSE_POLL_S)
        return time.perf_counter() - start

    # ------------------------------------------------------------------ probe and snapshots
    def _make_probe(self, probe: tuple[str, str] | int | None) -> ProbeInput:
        if probe is None or isinstance(probe, int):
            index = 0 if probe is None else probe
            if not 0 <= index < len(self.dataset.pairs):
                raise ConfigError(f"probe index {index} is outside the dataset (0..{len(self.dataset.pairs) - 1})")
            probe = self.dataset.pairs[index]
        src_sentence, tgt_sentence = probe
        self.probe_pair = (str(src_sentence), str(tgt_sentence))
        return encode_probe(self.src_vocab, self.tgt_vocab, src_sentence, tgt_sentence, self.config.num_steps,
                            self.device)

    def snapshot(self) -> SnapshotEvent:
        """One eval-mode forward pass of the probe with ``need_weights=True``; numpy copies, cropped."""
        return forward_probe(self.model, self._probe, step=self.step, epoch=self.epoch)

    def model_state_event(self, reason: str) -> ModelStateEvent:
        """The weights now, as a :class:`ModelStateEvent`; call it between steps (or after the run)."""
        epoch = -(-self.step // self.num_batches)  # the epoch of the last step taken, as its StepEvent said
        return ModelStateEvent(step=self.step, epoch=epoch, state=model_state(self.model), reason=reason)

    # ------------------------------------------------------------------ the run
    def __iter__(self) -> Iterator[TrainingEvent]:
        if self._started:
            raise RuntimeError("a Trainer runs once; build a new one to train again")
        self._started = True
        retain_freed_memory()  # this process trains: what a step frees stays in the heap for the next (allocator.py)
        return self._run()

    def _device_tensors(self) -> tuple[Tensor, Tensor, Tensor]:
        """Source ids, source lengths and decoder inputs (``<bos>`` + Y[:, :-1]) on the device, built once."""
        ds, dev = self.dataset, self.device
        tgt = ds.tgt.long()
        bos = torch.full((tgt.shape[0], 1), self.tgt_vocab.bos, dtype=torch.long)
        dec_input = torch.cat([bos, tgt[:, :-1]], dim=1)  # (N, T) teacher forcing
        return ds.src.long().to(dev), ds.src_valid_len.long().to(dev), dec_input.to(dev)

    def _run(self) -> Iterator[TrainingEvent]:
        cfg, model, dev, dist, live = self.config, self.model, self.device, self.dist, self._live
        src_all, src_len_all, dec_all = self._device_tensors()
        ds = self.dataset
        src_len_np, tgt_len_np = ds.src_valid_len.numpy().astype(np.int64), ds.tgt_valid_len.numpy().astype(np.int64)
        tgt_np = ds.tgt.numpy()
        n, bs, steps = len(self.dataset), cfg.batch_size, cfg.num_steps
        rank, world = (dist.rank, dist.world_size) if dist is not None else (0, 1)
        params = [p for p in model.parameters() if p.requires_grad]
        flat = flatten_parameters(params)  # one buffer: Adam and the norm are a few kernels, not a few per tensor
        optimizer = adam(flat, live.values["lr"])
        shuffle = torch.Generator().manual_seed(cfg.seed)
        start_epoch = 0
        if self._resume is not None:
            r, self._resume = self._resume, None
            load_adam_moments(optimizer, flat, r.exp_avg.to(dev), r.exp_avg_sq.to(dev), r.adam_steps)
            shuffle.set_state(r.shuffle_rng)
            start_epoch = r.epoch
        self._optimizer, self._flat, self._shuffle = optimizer, flat, shuffle
        scheduler = None  # the book's constant rate runs no scheduler at all
        if needs_scheduler(cfg.lr_schedule, cfg.warmup_steps):
            scheduler = make_scheduler(optimizer, cfg.lr_schedule, cfg.warmup_steps,
                                       int(live.values["schedule_steps"]), live.values["lr"], self.step)
        clip = live.values["grad_clip"]
        # Mixed precision: bfloat16 autocast (no loss scaling needed) on CUDA GPUs that support it.
        use_amp = cfg.amp and dev.type == "cuda" and torch.cuda.is_bf16_supported()
        model.train()
        t0 = time.perf_counter() - self._elapsed_s  # a resumed run's clock and token count continue
        paused_s = 0.0
        run_tokens = self._tokens
        epoch_loss = math.nan
        try:
            if dist is not None:  # every rank starts from rank 0's weights (same seed or not)
                dist.broadcast(flat)
            if cfg.snapshot_every:
                yield self.snapshot()
            for epoch in range(start_epoch, cfg.num_epochs):
                self.epoch = epoch + 1
                # dropout stream of this epoch: an exact resume needs no generator state (training_state.py)
                torch.manual_seed(dropout_seed(cfg.seed, rank, epoch))
                perm = torch.randperm(n, generator=shuffle)
                perm_dev = perm.to(dev)
                src_e, len_e = src_all[perm_dev], src_len_all[perm_dev]  # (N, T), (N,)
                dec_e = dec_all[perm_dev]  # (N, T)
                batch_tokens = np.add.reduceat(tgt_len_np[perm.numpy()], np.arange(0, n, bs)).tolist()
                plans, rows_np, labels_np = batch_plans(perm.numpy(), src_len_np, tgt_len_np, tgt_np, bs, rank, world)
                rows_e, labels_e = torch.from_numpy(rows_np).to(dev), torch.from_numpy(labels_np).to(dev)  # (M,) each
                ep_loss_sum, ep_tokens, ep_t0, ep_paused = 0.0, 0, time.perf_counter(), 0.0
                for b in range(self.num_batches):
                    if not self._running.is_set():  # the one check the hot path pays for pausing
                        pause_t0 = time.perf_counter()  # the pause includes the consumer's time with the weights
                        if self._pause_pending():  # entering a pause: hand out the weights before blocking
                            yield self.model_state_event("paused")
                        self._wait_while_paused()
                        waited = time.perf_counter() - pause_t0
                        paused_s += waited
                        ep_paused += waited
                    if self._stop.is_set() and dist is None:  # ranks stop together, after a vote (below)
                        yield self._finished(t0, paused_s, run_tokens, epoch_loss, stopped=True)
                        return
                    if live.pending is not None:  # changed from another thread: in force from this step
                        yield live.apply(model, optimizer, scheduler, self.step + 1, self.epoch,
                                         time.perf_counter() - t0 - paused_s)
                        clip = live.values["grad_clip"]
                    lo, hi, ts, tt, start, stop = plans[b]  # this rank's rows of the global batch, trimmed
                    tokens = int(batch_tokens[b])  # the global batch's target tokens
                    flat.grad.zero_()
                    if hi > lo:
                        with torch.autocast(dev.type, dtype=torch.bfloat16) if use_amp else contextlib.nullcontext():
                            # (B, ts), (B,), (B, tt) -> logits (M, V) of the target tokens only
                            logits, _ = model(src_e[lo:hi, :ts], len_e[lo:hi], dec_e[lo:hi, :tt],
                                              rows=rows_e[start:stop])
                            loss_sum = masked_cross_entropy(logits, labels_e[start:stop])
                        # normalised by the global batch, so the ranks' gradients add up to the global one
                        objective = loss_sum / (steps if cfg.objective == "book" else tokens)
                        objective.backward()
                    else:  # a last batch with fewer rows than ranks: this rank only joins the sums
                        loss_sum = torch.zeros((), device=dev)
                    loss_t = loss_sum.detach().float()
                    if dist is not None:
                        loss_t, votes = dist.all_reduce_step(flat.grad, loss_t, self._stop.is_set())
                    if clip > 0:
                        norm = clip_grad_norm([flat], clip, foreach=True)
                    else:
                        norm = torch.linalg.vector_norm(flat.grad)
                    loss_value, norm_value = torch.stack([loss_t, norm.float()]).tolist()
                    if dist is not None and votes.item() > 0:  # some rank was asked to stop: all stop here
                        yield self._finished(t0, paused_s, run_tokens, epoch_loss, stopped=True)
                        return
                    self.step += 1
                    lr = optimizer.param_groups[0]["lr"]  # this step's rate (a float: no device sync)
                    if not math.isfinite(loss_value) or not math.isfinite(norm_value):
                        what = "loss" if not math.isfinite(loss_value) else "gradient"
                        yield ErrorEvent(step=self.step, reason="nonfinite", message=(
                            f"the {what} became {loss_value if what == 'loss' else norm_value} at step "
                            f"{self.step} (epoch {self.epoch}); training stopped and the model keeps the "
                            f"weights of step {self.step - 1}. Try a smaller learning rate (now {lr:g})."))
                        return
                    optimizer.step()
                    if scheduler is not None:
                        scheduler.step()  # the rate of the next step
                    per_token = loss_value / max(tokens, 1)
                    ep_loss_sum += loss_value
                    ep_tokens += tokens
                    run_tokens += tokens
                    self.history.step_loss.append(per_token)
                    active = time.perf_counter() - t0 - paused_s
                    yield StepEvent(step=self.step, epoch=self.epoch, loss=per_token, book_loss=per_token / steps,
                                    tokens=tokens, tokens_per_s=run_tokens / max(active, 1e-9),
                                    elapsed_s=active, epoch_fraction=epoch + (b + 1) / self.num_batches,
                                    progress=self.step / self.total_steps, grad_norm=norm_value, lr=lr)
                    if cfg.snapshot_every and self.step % cfg.snapshot_every == 0:
                        yield self.snapshot()
                epoch_loss = ep_loss_sum / max(ep_tokens, 1)
                ep_s = max(time.perf_counter() - ep_t0 - ep_paused, 1e-9)
                self.history.epoch_loss.append(epoch_loss)
                self.history.epoch_tokens_per_s.append(ep_tokens / ep_s)
                self._elapsed_s, self._tokens = time.perf_counter() - t0 - paused_s, run_tokens
                yield EpochEvent(epoch=self.epoch, step=self.step, loss=epoch_loss, book_loss=epoch_loss / steps,
                                 tokens=ep_tokens, tokens_per_s=ep_tokens / ep_s, elapsed_s=self._elapsed_s,
                                 progress=self.step / self.total_steps)
            if cfg.snapshot_every and self.step % cfg.snapshot_every:
                yield self.snapshot()
            yield self._finished(t0, paused_s, run_tokens, epoch_loss, stopped=False)
        except RankFailure as exc:
            yield ErrorEvent(step=self.step, reason="rank_failed", message=str(exc))
        except RuntimeError as exc:
            if not _is_oom(exc):
                raise
            if dev.type == "cuda":
                torch.cuda.empty_cache()
            yield ErrorEvent(step=self.step, reason="out_of_memory", message=(
                f"out of memory on {dev} at step {self.step + 1}: try a smaller batch size (now {cfg.batch_size})"
                f" or a smaller model, or train on the CPU"))

    def _finished(self, t0: float, paused_s: float, tokens: int, loss: float, stopped: bool) -> FinishedEvent:
        active = max(time.perf_counter() - t0 - paused_s, 1e-9)
        return FinishedEvent(step=self.step, epoch=self.epoch, loss=loss, book_loss=loss / self.config.num_steps,
                             tokens_per_s=tokens / active, elapsed_s=active, stopped=stopped, device=str(self.device))
