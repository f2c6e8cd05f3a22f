"""Writing a run directory (``docs/RUNS.md``) from a §11.7 Trainer's events, as they come.

One writer serves the CLI (rank 0 of a ``torchrun`` job too) and the studio's training process: feed it every
event the trainer yields (:meth:`RunWriter.on_event`); it appends metrics lines, snapshot files and, at the
end of every ``checkpoint_every``-th epoch, an exact-resume checkpoint, then :meth:`close` it.
"""
from __future__ import annotations

import math
import os
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from explorer.core.atomic_file import leftover_temps
from explorer.core.checks import is_whole
from explorer.core.training.checkpoint_read import CheckpointError

from explorer.core.training.checkpoint import save_model, write_checkpoint_bytes
from explorer.core.training.events import TrainingEvent
from explorer.core.runs.run_dir import (CHECKPOINTS, METRICS, MODELS, RUN_FORMAT, RUN_FORMAT_VERSION, SNAPSHOTS,
                                   RunDirError, check_new_run_dir, checkpoint_path, encode_line, model_path,
                                   read_run_json, snapshot_files, write_run_json, write_snapshot)
from explorer.core.runs.snapshot_history import DEFAULT_MAX_BYTES, DEFAULT_MAX_SNAPSHOTS, SnapshotHistory
from explorer.core.training.trainer import Trainer
from explorer.core.training.state import encode_training_checkpoint

PROBE_BLEU_K = 2  # the book's BLEU for its probe sentences (§11.7)
#: With a probe interval, the probes' translations take at most this share of the run's time: a 6-layer model's greedy
#: decoding of the studio's probe (20 steps without an end, ~29 ms) every second cost its training ~3 %.
PROBE_MAX_SHARE = 0.01
#: ... waiting no longer than this many times the interval, and this many seconds (one slow translation, e.g. the
#: first while the machine is busy, does not hold the next one back for a minute).
PROBE_MAX_WAIT_INTERVALS, PROBE_MAX_WAIT_S = 10, 10.0


class RunWriter:
    """Writes one run directory from a trainer's events; build it with :meth:`create` or :meth:`resume`.

    Parameters (both constructors)
    ----------
    trainer : the :class:`Trainer` whose events are fed in (its model is translated at epoch ends and its
        :meth:`Trainer.state` checkpointed).
    probes : ``(source, reference)`` pairs translated at each epoch's end (BLEU with k=2); may be empty.
    checkpoint_every : write ``checkpoints/last.safetensors`` every N epochs (and after the last epoch).
    checkpoint_interval_s : and only once this many seconds have passed since the previous checkpoint (0: no
        wait). The studio uses a few seconds: an epoch of the book's run lasts ~75 ms, and writing ~0.7 MB with
        fsync after each one cost its training process 26 % of its speed while the GUI held the other core.
    probe_interval_s : translate the probes at an epoch's end only once this many seconds have passed since they
        were last translated (0: every epoch); the last epoch is always translated. The studio uses a second: a
        translation of its probe every ~75 ms epoch cost its training process ~5 % of its speed, for a record
        read at replay speed. With an interval, the translations also take at most :data:`PROBE_MAX_SHARE` of the
        time: one that took t seconds is followed no sooner than t / PROBE_MAX_SHARE after it began (at most ten
        intervals or 10 s, whichever is longer).
    keep_checkpoints : also keep ``checkpoints/epoch-XXXX.safetensors`` for each checkpointed epoch.
    keep_models : epochs after which the model alone is saved as ``models/epoch-XXXX.safetensors`` (a quarter of
        a checkpoint's size: no optimiser state), e.g. for a replay to translate with the model as it was then.
    max_snapshots, max_bytes : bounds on the snapshot files kept (thinned as ``SnapshotHistory`` thins).
    """

    def __init__(self, run_dir: Path, trainer: Trainer, info: dict[str, Any], probes: Sequence[tuple[str, str]],
                 checkpoint_every: int, keep_checkpoints: bool, max_snapshots: int, max_bytes: int,
                 checkpoint_interval_s: float = 0.0, keep_models: Sequence[int] = (),
                 probe_interval_s: float = 0.0) -> None:
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be at least 1, got {checkpoint_every}")
        for name, seconds in (("checkpoint_interval_s", checkpoint_interval_s), ("probe_interval_s", probe_interval_s)):
            if not seconds >= 0:
                raise ValueError(f"{name} must be a number of seconds >= 0, got {seconds}")
        self.checkpoint_interval_s = float(checkpoint_interval_s)
        self.probe_interval_s = float(probe_interval_s)
        self._probe_time = -math.inf  # time.monotonic() when the last probe translation began
        self._probe_wait = self.probe_interval_s  # seconds from then until the next may begin
        self.keep_models = frozenset(int(e) for e in keep_models)
        self._checkpoint_time = -math.inf  # time.monotonic() of the last checkpoint
        self.run_dir, self.trainer, self.info = run_dir, trainer, info
        self.probes = [(str(s), str(r)) for s, r in probes]
        self.checkpoint_every, self.keep_checkpoints = checkpoint_every, keep_checkpoints
        self._snapshots = SnapshotHistory(max_snapshots, max_bytes)
        self._snapshot_dir = run_dir / SNAPSHOTS
        self._last_checkpoint_epoch = -1
        self._metrics = None
        self._saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-checkpoint")
        self._saving: Future[None] | None = None
        for folder in (self._snapshot_dir, run_dir / CHECKPOINTS):
            self._io(lambda f=folder: f.mkdir(exist_ok=True), f"create {folder.name}/")
        self._metrics = self._io(lambda: open(run_dir / METRICS, "ab", buffering=0), f"open {METRICS}")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def create(cls, run_dir: str | os.PathLike[str], trainer: Trainer, data: dict[str, Any],
               probes: Sequence[tuple[str, str]] = (), checkpoint_every: int = 1, keep_checkpoints: bool = False,
               world_size: int = 1, max_snapshots: int = DEFAULT_MAX_SNAPSHOTS,
               max_bytes: int = DEFAULT_MAX_BYTES, checkpoint_interval_s: float = 0.0,
               keep_models: Sequence[int] = (), probe_interval_s: float = 0.0) -> RunWriter:
        """Start a new run in ``run_dir`` (created; refused if it is not writable or holds anything) and write
        its ``run.json``. ``data`` describes the data (``spec``, ``name``, ``num_examples``, ``seed``, ...)."""
        from explorer import __version__

        path = check_new_run_dir(run_dir)
        t = trainer
        now = time.time()
        info = {
            "format": RUN_FORMAT, "format_version": RUN_FORMAT_VERSION, "run_id": uuid.uuid4().hex,
            "app_version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(now)),
            "start_time": now, "world_size": int(world_size), "device": str(t.device),
            "config": t.config.to_dict(), "data": dict(data), "num_pairs": len(t.dataset),
            "src_vocab": t.src_vocab.to_dict(), "tgt_vocab": t.tgt_vocab.to_dict(),
            "num_parameters": sum(p.numel() for p in t.model.parameters()), "num_batches": t.num_batches,
            "total_steps": t.total_steps, "probe": list(t.probe_pair), "probes": [list(p) for p in probes],
            "checkpoint_every": int(checkpoint_every), "keep_checkpoints": bool(keep_checkpoints), "resumes": [],
            "checkpoint_interval_s": float(checkpoint_interval_s), "keep_models": sorted({int(e) for e in keep_models}),
            "probe_interval_s": float(probe_interval_s),
        }
        write_run_json(path, info)
        return cls(path, trainer, info, probes, checkpoint_every, keep_checkpoints, max_snapshots, max_bytes,
                   checkpoint_interval_s, keep_models, probe_interval_s)

    @classmethod
    def resume(cls, run_dir: str | os.PathLike[str], trainer: Trainer, world_size: int = 1,
               checkpoint_every: int | None = None, keep_checkpoints: bool | None = None,
               max_snapshots: int = DEFAULT_MAX_SNAPSHOTS, max_bytes: int = DEFAULT_MAX_BYTES) -> RunWriter:
        """Continue the run in ``run_dir`` with ``trainer`` (built from its last checkpoint): a cut last metrics
        line is removed, snapshots after the checkpoint are deleted, a ``resumed`` line is appended and
        ``run.json`` records the new totals."""
        path = Path(run_dir)
        info = read_run_json(path)
        every = int(info.get("checkpoint_every", 1)) if checkpoint_every is None else checkpoint_every
        keep = bool(info.get("keep_checkpoints", False)) if keep_checkpoints is None else keep_checkpoints
        _drop_cut_line(path / METRICS)
        for leftover in leftover_temps(path):  # a killed writer's unfinished saves: no other writer is running
            leftover.unlink(missing_ok=True)
        t = trainer
        now = time.time()
        # the resumed part may hold settings lines: a version-1 reader must not read the run as its constant rate
        info.update(format_version=max(int(info["format_version"]), RUN_FORMAT_VERSION),
                    config=t.config.to_dict(), total_steps=t.total_steps, checkpoint_every=every,
                    keep_checkpoints=keep, world_size=int(world_size))
        info.setdefault("resumes", []).append({"time": now, "step": t.step, "epoch": t.epoch,
                                               "num_epochs": t.config.num_epochs, "world_size": int(world_size)})
        write_run_json(path, info)
        models = [e for e in info.get("keep_models", []) if is_whole(e)]
        writer = cls(path, trainer, info, [tuple(p) for p in info.get("probes", [])], every, keep,
                     max_snapshots, max_bytes, _recorded_seconds(info, "checkpoint_interval_s"), models,
                     _recorded_seconds(info, "probe_interval_s"))
        writer._last_checkpoint_epoch = t.epoch
        writer._checkpoint_time = time.monotonic()  # the checkpoint resumed from counts as the last one
        for step, file in snapshot_files(writer._snapshot_dir):
            if step > t.step:  # taken after the checkpoint: the resumed run takes them again
                writer._io(lambda f=file: f.unlink(missing_ok=True), f"remove {file.name}")
            else:
                writer._keep_snapshot(step, file, file.stat().st_size)
        writer._append({"type": "resumed", "step": t.step, "epoch": t.epoch, "time": t.elapsed_s,
                        "wall": now, "num_epochs": t.config.num_epochs, "total_steps": t.total_steps,
                        "world_size": int(world_size)})
        return writer

    # ------------------------------------------------------------------ events
    def on_event(self, event: TrainingEvent) -> None:
        """Record one trainer event (kinds it does not store are ignored). Raises RunDirError on a write failure."""
        kind = event.kind
        if self._saving is not None and self._saving.done():
            self.wait()  # a failed checkpoint write is reported at the next event
        if kind == "step":
            self._append({"type": "step", "step": event.step, "epoch": event.epoch,
                          "epoch_fraction": event.epoch_fraction, "loss": event.loss, "book_loss": event.book_loss,
                          "tokens": event.tokens, "tokens_per_s": event.tokens_per_s, "time": event.elapsed_s,
                          "wall": time.time(), "progress": event.progress, "grad_norm": event.grad_norm,
                          "lr": event.lr})
        elif kind == "settings":
            self._append({"type": "settings", "step": event.step, "epoch": event.epoch, "lr": event.lr,
                          "grad_clip": event.grad_clip, "dropout": event.dropout, "changed": list(event.changed),
                          "time": event.elapsed_s, "wall": time.time()})
        elif kind == "snapshot":
            path, size = write_snapshot(self._snapshot_dir, event)
            self._keep_snapshot(event.step, path, size)
        elif kind == "epoch":
            last = event.epoch >= self.trainer.config.num_epochs
            record = {"type": "epoch", "epoch": event.epoch, "step": event.step, "loss": event.loss,
                      "book_loss": event.book_loss, "tokens": event.tokens, "tokens_per_s": event.tokens_per_s,
                      "time": event.elapsed_s, "wall": time.time(), "progress": event.progress}
            if last or time.monotonic() - self._probe_time >= self._probe_wait:
                self._probe_time = time.monotonic()
                translations = self._translate_probes()
                if self.probe_interval_s > 0:
                    spent = time.monotonic() - self._probe_time
                    cap = max(PROBE_MAX_WAIT_INTERVALS * self.probe_interval_s, PROBE_MAX_WAIT_S)
                    self._probe_wait = max(self.probe_interval_s, min(spent / PROBE_MAX_SHARE, cap))
                scores = [t["bleu"] for t in translations]
                record.update(probes=translations, bleu=sum(scores) / len(scores) if scores else math.nan)
            self._append(record)
            if event.epoch in self.keep_models:
                self._keep_model(event.epoch)
            due = time.monotonic() - self._checkpoint_time >= self.checkpoint_interval_s
            if (event.epoch % self.checkpoint_every == 0 and due) or last:
                self.checkpoint()
        elif kind == "finished":
            self._append({"type": "finished", "step": event.step, "epoch": event.epoch, "loss": event.loss,
                          "book_loss": event.book_loss, "tokens_per_s": event.tokens_per_s,
                          "time": event.elapsed_s, "wall": time.time(), "stopped": event.stopped,
                          "device": event.device})
        elif kind == "error":
            self._append({"type": "error", "step": event.step, "reason": event.reason, "message": event.message,
                          "wall": time.time()})

    def checkpoint(self) -> Path:
        """Checkpoint now (at an epoch boundary only): the state is copied and encoded here, and the bytes written
        (atomically, with fsync) on a helper thread while training goes on; one write at a time. Returns the path.

        The helper thread runs no torch operation: one that ran a parallel torch operation (cloning Adam's
        moments did) keeps an OpenMP team of its own, and with more OpenMP threads than cores libgomp stops
        spinning at barriers, which made every later training step of a two-thread run ~2x slower
        (``bench/omp_side_thread.py``).
        """
        t = self.trainer
        state = t.state()
        extra = {"run_id": self.info["run_id"], "world_size": self.info.get("world_size", 1)}
        try:
            data = encode_training_checkpoint(state, t.config, t.src_vocab, t.tgt_vocab,
                                              str(self.info.get("data", {}).get("name", "")), str(t.device), extra)
        except CheckpointError as exc:
            raise RunDirError(f"cannot write the checkpoint of epoch {state.epoch}: {exc}") from exc
        self.wait()  # the previous checkpoint is on disk (or its failure is raised) before the next starts
        self._saving = self._saver.submit(self._save, data, state.epoch)
        self._last_checkpoint_epoch = state.epoch
        self._checkpoint_time = time.monotonic()
        return checkpoint_path(self.run_dir)

    def wait(self) -> None:
        """Wait for a checkpoint being written; raise RunDirError if writing it failed."""
        saving, self._saving = self._saving, None
        if saving is not None:
            saving.result()

    def _save(self, data: bytes, epoch: int) -> None:
        """On the helper thread: bytes to files, nothing else."""
        paths = [checkpoint_path(self.run_dir)]
        if self.keep_checkpoints:
            paths.append(checkpoint_path(self.run_dir, epoch))
        for path in paths:
            try:
                write_checkpoint_bytes(path, data)
            except CheckpointError as exc:
                raise RunDirError(f"cannot write the checkpoint of epoch {epoch}: {exc}") from exc

    def close(self) -> None:
        """Finish the checkpoint being written and close the metrics file (idempotent; raises RunDirError if
        that checkpoint failed)."""
        try:
            self.wait()
        finally:
            self._saver.shutdown(wait=True)
            if self._metrics is not None:
                self._metrics.close()
                self._metrics = None

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    def _append(self, record: dict[str, Any]) -> None:
        line = encode_line(record)
        metrics = self._metrics
        if metrics is None:
            raise RunDirError("the run writer is closed")
        # one unbuffered write per line: a follower sees whole lines at once, a kill cuts at most the last one
        self._io(lambda: metrics.write(line), f"append to {METRICS}")

    def _keep_model(self, epoch: int) -> None:
        t, path = self.trainer, model_path(self.run_dir, epoch)
        self._io(lambda: path.parent.mkdir(exist_ok=True), f"create {MODELS}/")
        try:
            save_model(path, t.model, t.config, t.src_vocab, t.tgt_vocab, t.history,
                       str(self.info.get("data", {}).get("name", "")))
        except CheckpointError as exc:
            raise RunDirError(f"cannot write the model of epoch {epoch}: {exc}") from exc

    def _keep_snapshot(self, step: int, path: Path, size: int) -> None:
        before = set(self._snapshots)
        self._snapshots.append(step, path, nbytes=size)
        for dropped in before - set(self._snapshots):  # thinned (or replaced by a retaken step)
            if dropped != path:
                self._io(lambda f=dropped: f.unlink(missing_ok=True), f"remove {dropped.name}")

    def _translate_probes(self) -> list[dict[str, Any]]:
        if not self.probes:
            return []
        from explorer.core.model.decoding import translate_batch
        from explorer.core.model.metrics import bleu

        t = self.trainer
        outputs = translate_batch(t.model, t.src_vocab, t.tgt_vocab, [s for s, _ in self.probes], t.config.num_steps)
        return [{"src": src, "reference": ref, "translation": out.text, "bleu": float(bleu(out.text, ref, PROBE_BLEU_K))}
                for (src, ref), out in zip(self.probes, outputs)]

    def _io(self, action: Any, what: str) -> Any:
        try:
            return action()
        except OSError as exc:
            raise RunDirError(f"cannot {what} in the run directory {self.run_dir}: {exc.strerror or exc}") from exc


def _recorded_seconds(info: dict[str, Any], key: str) -> float:
    """An interval ``run.json`` records under ``key``; 0 where it is missing or not a number of seconds >= 0."""
    value = info.get(key, 0.0)
    return float(value) if isinstance(value, (int, float)) and value >= 0 else 0.0


def _drop_cut_line(path: Path) -> None:
    """Truncate a metrics file after its last newline (a line cut by a kill), so appended lines stay whole."""
    try:
        with open(path, "rb+") as fh:
            size = fh.seek(0, os.SEEK_END)
            keep, chunk = size, 4096
            while keep > 0:  # scan back for the last newline
                start = max(0, keep - chunk)
                fh.seek(start)
                block = fh.read(keep - start)
                at = block.rfind(b"\n")
                if at >= 0:
                    keep = start + at + 1
                    break
                keep = start
            if keep < size:
                fh.truncate(keep)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RunDirError(f"cannot repair {path}: {exc.strerror or exc}") from exc
