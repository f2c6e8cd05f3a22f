"""Training the book's Transformer (d2l §11.7, trained as in §10.7's ``train_seq2seq``) as an iterator of events.

Adam, gradient clipping by global norm, teacher forcing, masked cross-entropy; thread-safe pause/stop flags
checked between steps; attention snapshots of a probe pair every few steps; a copy of the weights on each pause.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from explorer.core.optim import Adam, clip_grad_norm, flatten_parameters
from explorer.core.probe import ProbeInput, encode_probe, forward_probe
from explorer.core.events import (
    EpochEvent, ErrorEvent, FinishedEvent, ModelStateEvent, SnapshotEvent, StepEvent, TrainingEvent)
from explorer.core.transformer import (ConfigError, Seq2SeqTransformer, TransformerConfig, _check_int,
                                      checked_mapping, estimate_parameters)

OBJECTIVES = ("book", "token_mean")
IGNORE = -100  # label of padded target positions (skipped by the cross-entropy)
_PAUSE_POLL_S = 0.05
MAX_SEED = 2**32 - 1  # as the CLI; torch.manual_seed overflows past 2**64 - 1 (and seed + 1 is used)
#: Bytes per parameter while training with Adam in float32: weights, gradients and two moment buffers.
TRAIN_BYTES_PER_PARAM = 16


def _check_number(name: str, value: Any, low: float, high: float = math.inf, low_open: bool = True) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    if value < low or (low_open and value == low) or value > high:
        bound = f"greater than {low}" if low_open else f"at least {low}"
        raise ConfigError(f"{name} must be {bound}" + (f" and at most {high}" if high < math.inf else "")
                          + f", got {value}")


@dataclass
class TrainingConfig:
    """Everything a training run needs besides the data (defaults: the book's §11.7 settings).

    ``objective="book"`` minimises what the book's loss sums: each sequence's masked token losses averaged
    over ``num_steps``, summed over the batch (clipping sees that scale); ``"token_mean"`` minimises the
    mean per-token cross-entropy. ``grad_clip=0`` disables clipping; ``snapshot_every=0`` disables snapshots.
    ``amp`` turns on bfloat16 autocast on CUDA GPUs that support it (it is ignored elsewhere).
    """

    model: TransformerConfig = field(default_factory=TransformerConfig)
    batch_size: int = 64
    num_steps: int = 10
    lr: float = 0.005
    num_epochs: int = 200
    grad_clip: float = 1.0
    seed: int = 0
    device: str = "auto"
    snapshot_every: int = 50
    min_freq: int = 2
    amp: bool = False
    objective: str = "book"

    def validate(self) -> TrainingConfig:
        """Raise :class:`ConfigError` naming the first bad setting; return ``self`` when all is well."""
        if not isinstance(self.model, TransformerConfig):
            raise ConfigError("model must be a TransformerConfig")
        self.model.validate()
        _check_int("batch_size", self.batch_size, 1)
        _check_int("num_steps", self.num_steps, 2)
        if self.num_steps > self.model.max_len:
            raise ConfigError(f"num_steps ({self.num_steps}) exceeds the model's max_len ({self.model.max_len})")
        _check_number("lr", self.lr, 0.0, 10.0)
        _check_int("num_epochs", self.num_epochs, 1)
        _check_number("grad_clip", self.grad_clip, 0.0, low_open=False)
        _check_int("seed", self.seed, 0)
        if self.seed > MAX_SEED:
            raise ConfigError(f"seed must be at most {MAX_SEED}, got {self.seed}")
        _check_int("snapshot_every", self.snapshot_every, 0)
        _check_int("min_freq", self.min_freq, 0)
        if not isinstance(self.amp, bool):
            raise ConfigError(f"amp must be true or false, got {self.amp!r}")
        if self.objective not in OBJECTIVES:
            raise ConfigError(f"objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}")
        if not isinstance(self.device, str) or not re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", self.device):
            raise ConfigError(f"device must be auto, cpu, cuda, cuda:N or mps, got {self.device!r}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict, the model config nested under ``model``."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingConfig:
        """Build and validate from :meth:`to_dict` output; unknown keys are an error."""
        values = checked_mapping(cls, data, "training")
        model = values.pop("model", None)
        for name in ("lr", "grad_clip"):
            if isinstance(values.get(name), int) and not isinstance(values.get(name), bool):
                values[name] = float(values[name])
        config = cls(model=TransformerConfig.from_dict(model) if model is not None else TransformerConfig(),
                     **values)
        return config.validate()


@dataclass
class TrainingHistory:
    """Losses kept for checkpoints and plots: per step and per epoch (true per-token cross-entropy)."""

    step_loss: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    epoch_tokens_per_s: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[float]]:
        """Plain JSON-able dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingHistory:
        """Inverse of :meth:`to_dict` (missing lists are empty)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: [float(x) for x in v] for k, v in (data or {}).items() if k in names})


def resolve_device(name: str = "auto") -> torch.device:
    """``auto`` picks CUDA, then Apple MPS, then the CPU; a named device must be available."""
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError) as exc:
        raise ConfigError(f"unknown device {name!r}: use auto, cpu, cuda or mps") from exc
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError("CUDA was requested but no CUDA GPU is available: use --device cpu or auto")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ConfigError(f"there is no {name}: {torch.cuda.device_count()} CUDA device(s) found")
    elif device.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise ConfigError("Apple MPS was requested but is not available: use --device cpu or auto")
    elif device.type != "cpu":
        raise ConfigError(f"unsupported device {name!r}: use auto, cpu, cuda or mps")
    return device


def free_memory(device: torch.device) -> int | None:
    """Bytes free for training on ``device`` (CUDA: the driver's figure; CPU: available RAM), None if unknown."""
    try:
        if device.type == "cuda":
            return int(torch.cuda.mem_get_info(device)[0])
        if device.type == "cpu":
            with open("/proc/meminfo", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
            return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, RuntimeError, AttributeError):
        pass
    return None


def check_model_fits(config: TransformerConfig, src_vocab_size: int, tgt_vocab_size: int,
                     device: torch.device) -> int:
    """Raise :class:`ConfigError` when training this model needs more memory than ``device`` has free.

    Counted from the configuration (nothing is allocated); returns the number of parameters.
    """
    params, buffer_bytes = estimate_parameters(config, src_vocab_size, tgt_vocab_size)
    need = params * TRAIN_BYTES_PER_PARAM + buffer_bytes
    free = free_memory(device)
    if free is not None and need > max(free, 256 * 2**20):
        tables = (f" ({buffer_bytes / 2**30:,.1f} GB of it for positional tables of max_len {config.max_len})"
                  if buffer_bytes > need / 2 else "")
        raise ConfigError(f"this model has {params:,} parameters and needs about {need / 2**30:,.1f} GB to train"
                          f"{tables}, but {device} has {free / 2**30:,.1f} GB free: choose a smaller model")
    return params


def model_state(model: torch.nn.Module) -> dict[str, np.ndarray]:
    """A CPU numpy copy of ``model.state_dict()``: fresh arrays that share nothing with the model.

    While training, parameters are views of one flat buffer (``flatten_parameters``) that the next step
    overwrites in place, so the arrays must be copies.
    """
    return {name: value.detach().cpu().numpy().copy() for name, value in model.state_dict().items()}


def _is_oom(exc: BaseException) -> bool:
    oom = getattr(torch, "OutOfMemoryError", None)
    return (oom is not None and isinstance(exc, oom)) or "out of memory" in str(exc).lower()


class Trainer:
    """Train a :class:`Seq2SeqTransformer` on an ``NMTDataset``; iterate the trainer to run it (once).

    Parameters
    ----------
    config : :class:`TrainingConfig` (validated here).
    dataset : an ``explorer.core.text.NMTDataset`` built with ``config.num_steps``.
    probe : the pair to snapshot: a ``(source, target)`` sentence pair, an index into the dataset, or None
        (the first pair).
    model : continue training this model instead of building a fresh one.

    ``pause() resume() stop() request_step()`` may be called from any thread; they take effect between
    steps. On entering a pause (a pause was requested, or a requested single step has been taken) the
    iterator yields one :class:`ModelStateEvent` (``reason="paused"``) before it blocks: a consistent copy of
    the weights, taken when no optimiser step can be in flight. ``history`` holds the losses so far;
    ``model`` the model being trained.
    """

    def __init__(self, config: TrainingConfig, dataset: Any, probe: tuple[str, str] | int | None = None,
                 model: Seq2SeqTransformer | None = None) -> None:
        self.config = config.validate()
        if len(dataset) == 0:
            raise ConfigError("the dataset is empty: there is nothing to train on")
        if dataset.tgt.shape[1] != config.num_steps or dataset.src.shape[1] != config.num_steps:
            raise ConfigError(f"the dataset was built with {dataset.tgt.shape[1]} steps but num_steps is "
                              f"{config.num_steps}: rebuild it with the same num_steps")
        self.dataset = dataset
        self.device = resolve_device(config.device)
        self.src_vocab, self.tgt_vocab = dataset.src_vocab, dataset.tgt_vocab
        if model is None:  # refuse a model that cannot fit before allocating it (or meeting the OOM killer)
            check_model_fits(config.model, len(self.src_vocab), len(self.tgt_vocab), self.device)
        torch.manual_seed(config.seed)
        self.model = model if model is not None else Seq2SeqTransformer(
            config.model, len(self.src_vocab), len(self.tgt_vocab))
        self.model.to(self.device)
        self.history = TrainingHistory()
        self.step = 0
        self.epoch = 0
        self.num_batches = math.ceil(len(dataset) / config.batch_size)
        self.total_steps = self.num_batches * config.num_epochs
        self._probe = self._make_probe(probe)
        self._stop = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._step_once = threading.Event()
        self._started = False

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
        return self._run()

    def _device_tensors(self) -> tuple[Tensor, Tensor, Tensor, Tensor, np.ndarray]:
        """Source ids, source lengths, decoder inputs (``<bos>`` + Y[:, :-1]) and labels (padding =
        IGNORE) on the device, built once; plus the target lengths as numpy for token counts."""
        ds, dev = self.dataset, self.device
        tgt, tgt_len = ds.tgt.long(), ds.tgt_valid_len.long()
        bos = torch.full((tgt.shape[0], 1), self.tgt_vocab.bos, dtype=torch.long)
        dec_input = torch.cat([bos, tgt[:, :-1]], dim=1)  # (N, T) teacher forcing
        positions = torch.arange(tgt.shape[1])[None, :]  # (1, T)
        labels = tgt.masked_fill(positions >= tgt_len[:, None], IGNORE)  # (N, T)
        return (ds.src.long().to(dev), ds.src_valid_len.long().to(dev), dec_input.to(dev), labels.to(dev),
                tgt_len.numpy().astype(np.int64))

    def _run(self) -> Iterator[TrainingEvent]:
        cfg, model, dev = self.config, self.model, self.device
        src_all, src_len_all, dec_all, lab_all, tgt_len_np = self._device_tensors()
        n, bs, steps = len(self.dataset), cfg.batch_size, cfg.num_steps
        params = [p for p in model.parameters() if p.requires_grad]
        flat = flatten_parameters(params)  # one buffer: Adam and the norm are a few kernels, not a few per tensor
        optimizer = Adam([flat], lr=cfg.lr)
        # Mixed precision: bfloat16 autocast (no loss scaling needed) on CUDA GPUs that support it.
        use_amp = cfg.amp and dev.type == "cuda" and torch.cuda.is_bf16_supported()
        shuffle = torch.Generator().manual_seed(cfg.seed)
        torch.manual_seed(cfg.seed + 1)  # dropout stream, independent of what ran since __init__
        model.train()
        t0 = time.perf_counter()
        paused_s = 0.0
        run_tokens = 0
        epoch_loss = math.nan
        try:
            if cfg.snapshot_every:
                yield self.snapshot()
            for epoch in range(cfg.num_epochs):
                self.epoch = epoch + 1
                perm = torch.randperm(n, generator=shuffle)
                perm_dev = perm.to(dev)
                src_e, len_e = src_all[perm_dev], src_len_all[perm_dev]  # (N, T), (N,)
                dec_e, lab_e = dec_all[perm_dev], lab_all[perm_dev]  # (N, T), (N, T)
                batch_tokens = np.add.reduceat(tgt_len_np[perm.numpy()], np.arange(0, n, bs)).tolist()
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
                    if self._stop.is_set():
                        yield self._finished(t0, paused_s, run_tokens, epoch_loss, stopped=True)
                        return
                    sl = slice(b * bs, (b + 1) * bs)
                    tokens = int(batch_tokens[b])
                    with torch.autocast(dev.type, dtype=torch.bfloat16) if use_amp else contextlib.nullcontext():
                        logits, _ = model(src_e[sl], len_e[sl], dec_e[sl])
                        loss_sum = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(),
                                                   lab_e[sl].reshape(-1), ignore_index=IGNORE,
                                                   reduction="sum")
                    objective = loss_sum / (steps if cfg.objective == "book" else tokens)
                    flat.grad.zero_()
                    objective.backward()
                    grads = [flat.grad]
                    if cfg.grad_clip > 0:
                        norm = clip_grad_norm(grads, cfg.grad_clip)
                    else:
                        norm = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
                    loss_value, norm_value = torch.stack([loss_sum.detach().float(), norm.float()]).tolist()
                    self.step += 1
                    if not math.isfinite(loss_value) or not math.isfinite(norm_value):
                        what = "loss" if not math.isfinite(loss_value) else "gradient"
                        yield ErrorEvent(step=self.step, reason="nonfinite", message=(
                            f"the {what} became {loss_value if what == 'loss' else norm_value} at step "
                            f"{self.step} (epoch {self.epoch}); training stopped and the model keeps the "
                            f"weights of step {self.step - 1}. Try a smaller learning rate (now {cfg.lr})."))
                        return
                    optimizer.step()
                    per_token = loss_value / max(tokens, 1)
                    ep_loss_sum += loss_value
                    ep_tokens += tokens
                    run_tokens += tokens
                    self.history.step_loss.append(per_token)
                    active = time.perf_counter() - t0 - paused_s
                    yield StepEvent(step=self.step, epoch=self.epoch, loss=per_token, book_loss=per_token / steps,
                                    tokens=tokens, tokens_per_s=run_tokens / max(active, 1e-9),
                                    elapsed_s=active, epoch_fraction=epoch + (b + 1) / self.num_batches,
                                    progress=self.step / self.total_steps, grad_norm=norm_value)
                    if cfg.snapshot_every and self.step % cfg.snapshot_every == 0:
                        yield self.snapshot()
                epoch_loss = ep_loss_sum / max(ep_tokens, 1)
                ep_s = max(time.perf_counter() - ep_t0 - ep_paused, 1e-9)
                self.history.epoch_loss.append(epoch_loss)
                self.history.epoch_tokens_per_s.append(ep_tokens / ep_s)
                yield EpochEvent(epoch=self.epoch, step=self.step, loss=epoch_loss, book_loss=epoch_loss / steps,
                                 tokens=ep_tokens, tokens_per_s=ep_tokens / ep_s,
                                 elapsed_s=time.perf_counter() - t0 - paused_s,
                                 progress=self.step / self.total_steps)
            if cfg.snapshot_every and self.step % cfg.snapshot_every:
                yield self.snapshot()
            yield self._finished(t0, paused_s, run_tokens, epoch_loss, stopped=False)
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
