"""Following a run directory (``docs/RUNS.md``) while it is written, or after: the same plain events a §11.7
Trainer yields, read incrementally and cheaply, so the studio can show a CLI or ``torchrun`` run live.

``RunFollower(path).poll()`` never blocks for long (it reads at most ``max_bytes`` of metrics and
``max_snapshots`` snapshot files per call) and never raises for what it finds on disk: damage becomes a
message in :attr:`RunFollower.problems`, a deleted or replaced run one final :class:`ErrorEvent`.
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

from explorer.core.checks import is_number
from explorer.core.training.checkpoint_read import CheckpointError

from explorer.core.training.checkpoint import LoadedModel, load_model
from explorer.core.training.events import (EpochEvent, ErrorEvent, FinishedEvent, ResumedEvent, SettingsEvent,
                                           SnapshotEvent, StartedEvent, StepEvent, TrainingEvent, TranslationsEvent)
from explorer.core.runs.run_dir import (METRICS, RUN_JSON, SNAPSHOTS, RunDirError, checkpoint_path, parse_line,
                                   read_run_json, read_snapshot, snapshot_files)

def _f(record: dict[str, Any], key: str) -> float:
    value = record.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def _i(record: dict[str, Any], key: str) -> int:
    value = record.get(key)
    if not is_number(value):
        raise ValueError(f"{key!r} is missing or not a number")
    return int(value)


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class RunFollower:
    """Reads one run directory incrementally.

    The constructor reads ``run.json`` and raises :class:`RunDirError` (a ``ValueError`` with a message for
    users) for a missing folder, a folder that is not a run, a damaged ``run.json`` or a future format
    version. Then call :meth:`poll` as often as you like (e.g. every 100 ms from a worker): the first call
    returns a :class:`StartedEvent`, later ones what was written since, in order: :class:`StepEvent`,
    :class:`EpochEvent` (+ :class:`TranslationsEvent` with the probe translations and BLEU),
    :class:`SnapshotEvent`, :class:`SettingsEvent`, :class:`FinishedEvent`, :class:`ErrorEvent`,
    :class:`ResumedEvent` (drop what you hold after its step). ``info`` is the latest ``run.json``; ``finished`` is True after a finished line (a
    resume can clear it); ``ended`` is True once the run was deleted or replaced (poll returns nothing more);
    ``caught_up`` is True from the first poll that read everything there was (not cut short by ``max_bytes`` or
    ``max_snapshots``): what the run had written when it was opened has then been returned.
    """

    def __init__(self, path: str | os.PathLike[str], max_bytes: int = 1 << 20, max_snapshots: int = 32) -> None:
        self.path = Path(path)
        self.info = read_run_json(self.path)
        self.run_id: str = self.info["run_id"]
        self.max_bytes, self.max_snapshots = int(max_bytes), int(max_snapshots)
        self.problems: list[str] = []  # damage found so far, oldest first (lines skipped, snapshots unreadable)
        self.finished = False
        self.ended = False
        self.partial_line = False  # the metrics file ends in an unfinished line (being written, or cut by a kill)
        self.last_change = time.monotonic()  # when poll last found something new
        self.caught_up = False
        self._cut = False  # this poll stopped at max_bytes or max_snapshots: more was there
        self._json_sig = _signature(self.path / RUN_JSON)
        self._offset = 0
        self._line_no = 0
        self._metrics_ino: int | None = None
        self._snapshot_step = -1
        self._started = False

    # ------------------------------------------------------------------ polling
    def poll(self) -> list[TrainingEvent]:
        """What was written since the last call (possibly nothing); cheap, bounded, never raises for disk state."""
        if self.ended:
            return []
        events: list[TrainingEvent] = []
        gone = self._check_run_json()
        if gone is not None:
            self.ended = True
            return [gone]
        if not self._started:
            self._started = True
            events.append(self.started_event())
        self._cut = False
        metrics, replaced = self._read_metrics()
        if replaced is not None:
            self.ended = True
            return events + [replaced]
        snapshots = self._read_snapshots()
        taken = 0
        for event in metrics:  # a snapshot goes after the metrics lines of its step, before the run's end
            step = getattr(event, "step", 0)
            while taken < len(snapshots) and (snapshots[taken].step < step or (
                    snapshots[taken].step == step and event.kind in ("finished", "error", "resumed"))):
                events.append(snapshots[taken])
                taken += 1
            events.append(event)
        events.extend(snapshots[taken:])
        if metrics or snapshots:
            self.last_change = time.monotonic()
        self.caught_up = self.caught_up or not self._cut
        return events

    def started_event(self) -> StartedEvent:
        """The run's description as a :class:`StartedEvent` (from ``run.json``)."""
        info = self.info
        probe = info.get("probe") or ["", ""]
        return StartedEvent(device=str(info.get("device", "")), num_pairs=int(info.get("num_pairs", 0)),
                            total_steps=int(info.get("total_steps", 0)), num_batches=int(info.get("num_batches", 0)),
                            num_parameters=int(info.get("num_parameters", 0)), src_vocab=info["src_vocab"],
                            tgt_vocab=info["tgt_vocab"], config=info["config"], probe=(str(probe[0]), str(probe[1])))

    def _check_run_json(self) -> ErrorEvent | None:
        path = self.path / RUN_JSON
        sig = _signature(path)
        if sig is None:
            return ErrorEvent(step=0, reason="run_deleted",
                              message=f"the run in {self.path} was deleted while it was followed")
        if sig == self._json_sig:
            return None
        try:
            info = read_run_json(self.path)
        except RunDirError as exc:
            if not path.exists():
                return ErrorEvent(step=0, reason="run_deleted", message=f"the run in {self.path} was deleted")
            self.problems.append(str(exc))  # e.g. caught mid-replace on a filesystem without atomic rename
            return None
        self._json_sig = sig
        if info["run_id"] != self.run_id:
            return ErrorEvent(step=0, reason="run_replaced", message=(
                f"the run in {self.path} was replaced by another run; open it again to follow the new one"))
        self.info = info  # a resume updates the totals
        return None

    def _read_metrics(self) -> tuple[list[TrainingEvent], ErrorEvent | None]:
        path = self.path / METRICS
        try:
            fh = open(path, "rb")
        except FileNotFoundError:
            return [], None  # not written yet (or not at all: an empty run)
        except OSError as exc:
            self._problem(f"cannot read {METRICS}: {exc.strerror or exc}")
            return [], None
        with fh:
            st = os.fstat(fh.fileno())
            if self._metrics_ino is not None and (st.st_ino != self._metrics_ino or st.st_size < self._offset):
                return [], ErrorEvent(step=0, reason="run_replaced", message=(
                    f"{METRICS} in {self.path} was replaced or shortened; open the run again"))
            self._metrics_ino = st.st_ino
            fh.seek(self._offset)
            data = fh.read(self.max_bytes)
        self._cut = self._cut or len(data) >= self.max_bytes
        end = data.rfind(b"\n")
        self.partial_line = (end + 1 < len(data)) and len(data) < self.max_bytes
        if end < 0:
            return [], None
        self._offset += end + 1  # never past the last newline: a cut line is re-read once it is complete
        out: list[TrainingEvent] = []
        for line in data[:end].split(b"\n"):
            self._line_no += 1
            record = parse_line(line)
            if record is None:
                self._problem(f"{METRICS} line {self._line_no} is damaged and was skipped")
                continue
            try:
                out.extend(self._events_of(record))
            except (ValueError, TypeError) as exc:
                self._problem(f"{METRICS} line {self._line_no} ({record.get('type')}) was skipped: {exc}")
        return out, None

    def _events_of(self, r: dict[str, Any]) -> list[TrainingEvent]:
        kind = r["type"]
        if kind == "step":
            return [StepEvent(step=_i(r, "step"), epoch=_i(r, "epoch"), loss=_f(r, "loss"), book_loss=_f(r, "book_loss"),
                              tokens=_i(r, "tokens"), tokens_per_s=_f(r, "tokens_per_s"), elapsed_s=_f(r, "time"),
                              epoch_fraction=_f(r, "epoch_fraction"), progress=_f(r, "progress"),
                              grad_norm=_f(r, "grad_norm"), lr=_f(r, "lr"))]
        if kind == "epoch":
            epoch, step = _i(r, "epoch"), _i(r, "step")
            out: list[TrainingEvent] = [EpochEvent(
                epoch=epoch, step=step, loss=_f(r, "loss"), book_loss=_f(r, "book_loss"), tokens=_i(r, "tokens"),
                tokens_per_s=_f(r, "tokens_per_s"), elapsed_s=_f(r, "time"), progress=_f(r, "progress"))]
            probes = r.get("probes")
            if isinstance(probes, list) and probes:
                rows = tuple({"src": str(p.get("src", "")), "reference": str(p.get("reference", "")),
                              "translation": str(p.get("translation", "")), "bleu": _f(p, "bleu")}
                             for p in probes if isinstance(p, dict))
                out.append(TranslationsEvent(epoch=epoch, step=step, translations=rows, bleu=_f(r, "bleu")))
            return out
        if kind == "settings":
            changed = r.get("changed")
            return [SettingsEvent(step=_i(r, "step"), epoch=_i(r, "epoch"), lr=_f(r, "lr"),
                                  grad_clip=_f(r, "grad_clip"), dropout=_f(r, "dropout"),
                                  changed=tuple(str(c) for c in changed) if isinstance(changed, list) else (),
                                  elapsed_s=_f(r, "time"))]
        if kind == "finished":
            self.finished = True
            return [FinishedEvent(step=_i(r, "step"), epoch=_i(r, "epoch"), loss=_f(r, "loss"),
                                  book_loss=_f(r, "book_loss"), tokens_per_s=_f(r, "tokens_per_s"),
                                  elapsed_s=_f(r, "time"), stopped=bool(r.get("stopped")),
                                  device=str(r.get("device", "")))]
        if kind == "error":
            return [ErrorEvent(step=_i(r, "step"), message=str(r.get("message", "")),
                               reason=str(r.get("reason", "error")))]
        if kind == "resumed":
            self.finished = False
            self._snapshot_step = min(self._snapshot_step, _i(r, "step"))  # snapshots are taken again from here
            return [ResumedEvent(step=_i(r, "step"), epoch=_i(r, "epoch"), elapsed_s=_f(r, "time"),
                                 num_epochs=_i(r, "num_epochs"), total_steps=_i(r, "total_steps"),
                                 world_size=_i(r, "world_size"))]
        return []  # a kind from a newer writer of the same format version: ignored

    def _read_snapshots(self) -> list[SnapshotEvent]:
        files = [(s, p) for s, p in snapshot_files(self.path / SNAPSHOTS) if s > self._snapshot_step]
        out: list[SnapshotEvent] = []
        self._cut = self._cut or len(files) > self.max_snapshots
        for step, path in files[:self.max_snapshots]:
            self._snapshot_step = step
            try:
                event = read_snapshot(path)
            except RunDirError as exc:
                if path.exists():  # a file thinned away between listing and reading is no problem
                    self._problem(str(exc))
                continue
            out.append(event)
        return out

    def _problem(self, message: str) -> None:
        if len(self.problems) < 1000:  # a badly damaged file must not grow this without bound
            self.problems.append(message)

    # ------------------------------------------------------------------ the latest model
    def latest_checkpoint(self) -> Path | None:
        """``checkpoints/last.safetensors`` if it exists yet."""
        path = checkpoint_path(self.path)
        return path if path.is_file() else None

    def load_latest_model(self, device: str = "cpu") -> LoadedModel | None:
        """The model of the latest checkpoint (None before the first); a file replaced while it was read is read
        again once. Raises :class:`CheckpointError` for a damaged checkpoint."""
        for attempt in range(2):
            path = self.latest_checkpoint()
            if path is None:
                return None
            before = _signature(path)
            try:
                return load_model(path, device=device)
            except CheckpointError:
                if attempt or _signature(path) == before:  # damaged for good, not swapped under us
                    raise
        return None
