"""The training process's side of :class:`~explorer.core.runs.process.TrainingProcess` (book §11.7): load the data,
train on this process's main thread, write the run directory and stream every event back, then the final weights."""
from __future__ import annotations

import contextlib
import multiprocessing.connection as mp_connection
import os
import signal
import traceback

import torch

from explorer.core.data.readers import DatasetError
from explorer.core.data.sources import load_source
from explorer.core.data.text import build_dataset
from explorer.core.model.transformer import ConfigError
from explorer.core.runs.child_pipes import STREAM_END, EventSender, RemoteControl
from explorer.core.runs.run_dir import RunDirError, check_new_run_dir, describe_data
from explorer.core.runs.thread_tuner import ThreadTuner, available_cores
from explorer.core.runs.training_job import TrainingJob
from explorer.core.runs.writer import RunWriter
from explorer.core.training.config import TrainingConfig
from explorer.core.training.events import ErrorEvent, StartedEvent
from explorer.core.training.trainer import Trainer, _is_oom


def error_event(exc: BaseException, step: int) -> ErrorEvent:
    """An ErrorEvent fit for users; unexpected failures also print their traceback to stderr (bug reports)."""
    if isinstance(exc, DatasetError):
        return ErrorEvent(step=step, message=str(exc), reason="data")
    if isinstance(exc, ConfigError):
        return ErrorEvent(step=step, message=str(exc), reason="config")
    if isinstance(exc, RunDirError):
        return ErrorEvent(step=step, message=str(exc), reason="run_dir")
    if isinstance(exc, MemoryError) or (isinstance(exc, RuntimeError) and _is_oom(exc)):
        return ErrorEvent(step=step, reason="out_of_memory", message=(
            "out of memory while preparing or training: try fewer examples, a smaller batch or a smaller model"))
    traceback.print_exc()
    return ErrorEvent(step=step, reason="error", message=f"training failed: {type(exc).__name__}: {exc}")


def child_main(job: TrainingJob, events: mp_connection.Connection, control: mp_connection.Connection) -> None:
    """The child's main thread: load the data, train, send every event, then the final weights."""
    # Ctrl-C in the terminal reaches the whole process group; the parent decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if job.nice > 0 and hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(int(job.nice))
    remote = RemoteControl(control)
    trainer: Trainer | None = None
    writer: RunWriter | None = None
    if job.num_threads:
        torch.set_num_threads(max(1, int(job.num_threads)))
    cores = available_cores()
    tuner = ThreadTuner([max(1, cores - 1), cores], torch.set_num_threads, start=min(torch.get_num_threads(), cores)) \
        if job.tune_threads else None

    sender = EventSender(events)  # a GUI slow to read never stops the training loop
    send = sender.send  # BrokenPipeError once the parent has gone: ends the child below

    try:
        try:
            config = TrainingConfig.from_dict(job.config)
            source = load_source(job.data_spec, job.num_examples, seed=job.data_seed)
            dataset = build_dataset(source.pairs, config.num_steps, config.min_freq, skipped=source.skipped)
            probe = (str(job.probe[0]), str(job.probe[1])) if job.probe is not None else dataset.pairs[0]
            if job.run_dir is not None:
                check_new_run_dir(job.run_dir)  # refused before the model is built
            trainer = Trainer(config, dataset, probe=probe)
            if job.run_dir is not None:
                data = describe_data(source, job.data_spec, job.num_examples, job.data_seed)
                writer = RunWriter.create(job.run_dir, trainer, data, probes=[probe],
                                          checkpoint_interval_s=job.checkpoint_interval_s,
                                          probe_interval_s=job.probe_interval_s)
            remote.attach(trainer)
            send(StartedEvent(
                device=str(trainer.device), num_pairs=len(dataset), total_steps=trainer.total_steps,
                num_batches=trainer.num_batches, num_parameters=sum(p.numel() for p in trainer.model.parameters()),
                src_vocab=trainer.src_vocab.to_dict(), tgt_vocab=trainer.tgt_vocab.to_dict(),
                config=trainer.config.to_dict(), probe=probe))
            for event in trainer:
                if writer is not None:
                    writer.on_event(event)  # on disk first: a follower never sees less than the studio did
                send(event)
                if tuner is not None and event.kind == "step":  # between steps: the trainer waits for us
                    tuner.on_step(event.elapsed_s, event.tokens)
            if writer is not None:
                writer, closing = None, writer
                closing.close()  # the last checkpoint is on disk before the final weights are sent
        except (BrokenPipeError, ConnectionResetError):
            raise
        except Exception as exc:
            send(error_event(exc, trainer.step if trainer is not None else 0))
        if trainer is not None:  # the weights however the run ended (finished, stopped, NaN, OOM, failure)
            try:
                final = trainer.model_state_event("final")
            except Exception as exc:
                send(error_event(exc, trainer.step))
            else:
                send(final)
        send(STREAM_END)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the parent has gone: nobody is listening
    finally:
        if writer is not None:
            with contextlib.suppress(Exception):  # already failing: keep what is on disk
                writer.close()
        sender.close()  # everything handed over is written (or the parent has gone) before the pipe closes
        events.close()
