"""Training the §11.7 model on several processes (``torchrun``): PyTorch's process group, one device per rank.

The trainer flattens its parameters into one buffer and runs its own Adam, so instead of wrapping the model in
``DistributedDataParallel`` (whose gradient buckets would be re-pointed by the flattening) it does DDP's one
essential step itself: a single ``all_reduce`` of the flat gradient buffer per step, the same collective DDP
runs, with the loss summed beside it. A rank that dies is named by the survivors (see :class:`RankFailure`).
"""
from __future__ import annotations

import datetime
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as tdist
from torch import Tensor

from explorer.core.model.transformer import ConfigError

DEFAULT_TIMEOUT_S = 45.0  # a collective that waits longer than this fails (a hung rank); well under a minute
ROLL_CALL_S = 3.0  # how long survivors wait for each other to answer after a collective failed
LOCAL_CHECK_S = 1.0  # how long a survivor watches its own machine's ranks for one that died, before the roll call
_HOST_BYTES = 64


class RankFailure(Exception):
    """Another rank died or stopped answering; the message names it and is fit for users."""


def share(lo: int, hi: int, rank: int, world: int) -> tuple[int, int]:
    """Rank ``rank``'s contiguous part of the rows ``[lo, hi)`` split as evenly as possible over ``world``."""
    base, extra = divmod(hi - lo, world)
    start = lo + rank * base + min(rank, extra)
    return start, start + base + (1 if rank < extra else 0)


def launched_by_torchrun() -> bool:
    """True when the environment describes a run of more than one process (``torchrun`` sets it)."""
    try:
        return int(os.environ.get("WORLD_SIZE", "1")) > 1
    except ValueError:
        return False


@dataclass(frozen=True)
class Peer:
    """Where a rank runs: its process id and host name (gathered once at start, to name a rank that dies)."""

    rank: int
    pid: int
    host: str


class DistContext:
    """This process's place in a distributed run: ``rank``, ``world_size``, ``local_rank``, ``device``, ``backend``.

    Build it with :func:`init_from_environment`; :meth:`close` ends the process group.
    """

    def __init__(self, rank: int, world_size: int, local_rank: int, device: torch.device, backend: str) -> None:
        self.rank, self.world_size, self.local_rank = rank, world_size, local_rank
        self.device, self.backend = device, backend
        self.peers: list[Peer] = []
        self._roll_calls = 0

    @property
    def is_main(self) -> bool:
        """True on rank 0, the one that prints and writes the run directory."""
        return self.rank == 0

    # ------------------------------------------------------------------ collectives (failures name the rank)
    def broadcast(self, tensor: Tensor, src: int = 0) -> None:
        """Overwrite ``tensor`` on every rank with rank ``src``'s values."""
        try:
            tdist.broadcast(tensor, src)
        except RuntimeError as exc:
            raise RankFailure(self._describe_failure(exc)) from exc

    def all_reduce_step(self, grad: Tensor, loss: Tensor, stop: bool) -> tuple[Tensor, Tensor]:
        """Sum the flat gradient and the batch loss over the ranks, with a vote on stopping.

        Returns ``(loss summed over ranks, number of ranks asked to stop)`` as 0-d tensors on the device.
        """
        small = torch.stack([loss, torch.tensor(1.0 if stop else 0.0, device=loss.device)])  # (2,)
        try:
            tdist.all_reduce(grad)
            tdist.all_reduce(small)
        except RuntimeError as exc:
            raise RankFailure(self._describe_failure(exc)) from exc
        return small[0], small[1]

    def all_ok(self, ok: bool) -> bool:
        """True on every rank when ``ok`` is True on every rank (e.g. each rank's checks before training)."""
        flag = torch.tensor([1 if ok else 0], dtype=torch.int32, device=self.device)
        try:
            tdist.all_reduce(flag, op=tdist.ReduceOp.MIN)
        except RuntimeError as exc:
            raise RankFailure(self._describe_failure(exc)) from exc
        return bool(flag.item())

    def barrier(self) -> None:
        """Wait for every rank."""
        try:
            tdist.barrier()
        except RuntimeError as exc:
            raise RankFailure(self._describe_failure(exc)) from exc

    def close(self, synchronize: bool = False) -> None:
        """End the process group (also after a failure: a broken group must not abort the interpreter's exit).

        ``synchronize`` (after a run every rank finished): meet the others first, so that no rank tears down its
        connections while a peer still uses them — gloo's threads then ended a rank with "terminate called
        without an active exception" now and then (seen in about one test run in four on a loaded machine)."""
        if tdist.is_initialized():
            if synchronize:
                try:
                    tdist.barrier()
                except RuntimeError:
                    pass
            try:
                tdist.destroy_process_group()
            except (RuntimeError, ValueError):
                pass

    # ------------------------------------------------------------------ naming a lost rank
    def _gather_peers(self) -> None:
        host = socket.gethostname().encode("utf-8", "replace")[:_HOST_BYTES]
        mine = torch.zeros(_HOST_BYTES + 1, dtype=torch.int64, device=self.device)  # (pid, host bytes...)
        mine[0] = os.getpid()
        mine[1:1 + len(host)] = torch.tensor(list(host), dtype=torch.int64)
        everyone = [torch.zeros_like(mine) for _ in range(self.world_size)]
        tdist.all_gather(everyone, mine)
        for rank, row in enumerate(everyone):
            values = row.cpu().tolist()
            name = bytes(v for v in values[1:] if v).decode("utf-8", "replace")
            self.peers.append(Peer(rank=rank, pid=int(values[0]), host=name))

    def _describe_failure(self, exc: BaseException) -> str:
        """A message naming the rank(s) that died or stopped answering, as well as can be known from here."""
        me = self.peers[self.rank] if self.peers else None
        local = [p for p in self.peers if me is not None and p.rank != self.rank and p.host == me.host]
        # a killed process closes its sockets before it turns into a zombie: give /proc a moment to say so
        deadline = time.monotonic() + (LOCAL_CHECK_S if local else 0.0)
        while True:
            findings = [text for text in map(_local_finding, local) if text]
            if findings or time.monotonic() >= deadline:
                break
            time.sleep(0.02)
        if not findings:
            findings = self._roll_call()
        what = "; ".join(findings) if findings else f"another rank failed ({' '.join(str(exc).split())[:200]})"
        return f"{what}: rank {self.rank} stops too"

    def _roll_call(self) -> list[str]:
        """Ask every rank to sign in through the rendezvous store; name those that do not within ROLL_CALL_S."""
        try:
            from torch.distributed import distributed_c10d as c10d

            store = c10d._get_default_store()  # the launcher's store (rank 0's without torchrun)
        except (RuntimeError, AttributeError, ImportError):
            return []
        self._roll_calls += 1
        key = f"explorer/roll-call/{self._roll_calls}/"
        try:
            store.set(key + str(self.rank), "1")
            missing = set(range(self.world_size)) - {self.rank}
            deadline = time.monotonic() + ROLL_CALL_S
            while missing and time.monotonic() < deadline:
                missing = {r for r in missing if not store.check([key + str(r)])}
                time.sleep(0.05)
        except RuntimeError:  # the store itself is gone: without torchrun it lived in rank 0
            return ["lost contact with rank 0 (it hosts the rendezvous store)"] if self.rank else []
        return [f"rank {r} did not answer within {ROLL_CALL_S:.0f} s" for r in sorted(missing)]


def _local_finding(peer: Peer) -> str:
    state = process_state(peer.pid)
    if state in ("gone", "zombie"):
        return f"rank {peer.rank} (pid {peer.pid}) has died"
    if state == "stopped":
        return f"rank {peer.rank} (pid {peer.pid}) is stopped (suspended)"
    return ""


def process_state(pid: int) -> str:
    """``running``, ``stopped``, ``zombie`` or ``gone`` for a process on this machine (``unknown`` off Linux)."""
    stat = Path(f"/proc/{pid}/stat")
    if not Path("/proc/self/stat").exists():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return "gone"
        except OSError:
            pass
        return "unknown"
    try:
        text = stat.read_text()
    except OSError:
        return "gone"
    state = text.rsplit(")", 1)[-1].split()[0]  # the field after the (command name)
    return {"Z": "zombie", "X": "gone", "T": "stopped", "t": "stopped"}.get(state, "running")


def _pick_device(name: str, local_rank: int) -> tuple[torch.device, str]:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    kind = torch.device(name).type
    if kind == "cpu":
        return torch.device("cpu"), "gloo"
    if kind != "cuda":
        raise ConfigError(f"distributed training runs on the CPU (gloo) or CUDA GPUs (nccl), not {name}")
    if not torch.cuda.is_available():
        raise ConfigError("CUDA was requested but no CUDA GPU is available: use --device cpu")
    count = torch.cuda.device_count()
    if local_rank >= count:
        raise ConfigError(f"local rank {local_rank} needs its own GPU but this machine has {count}: start at "
                          f"most {count} processes per node (--nproc_per_node)")
    torch.cuda.set_device(local_rank)
    return torch.device("cuda", local_rank), "nccl"


def init_from_environment(device: str = "auto", timeout_s: float = DEFAULT_TIMEOUT_S) -> DistContext | None:
    """Join the process group that ``torchrun`` describes (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT).

    Returns None for a single process. One device per rank: ``cuda:LOCAL_RANK`` with ``nccl``, or the CPU with
    ``gloo``. A collective that waits more than ``timeout_s`` fails, so a hung rank ends the run.
    """
    if not launched_by_torchrun():
        return None
    try:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"WORLD_SIZE is set but RANK/LOCAL_RANK are missing or not numbers ({exc}); "
                          "start distributed runs with torchrun") from exc
    dev, backend = _pick_device(device, local_rank)
    timeout = datetime.timedelta(seconds=timeout_s)
    kwargs = {"device_id": dev} if backend == "nccl" else {}
    tdist.init_process_group(backend, rank=rank, world_size=world, timeout=timeout, **kwargs)
    ctx = DistContext(rank, world, local_rank, dev, backend)
    try:
        ctx._gather_peers()
    except RuntimeError as exc:
        ctx.close()
        raise RankFailure(f"the ranks could not exchange their addresses: {exc}") from exc
    return ctx
