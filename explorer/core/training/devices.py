"""Choosing the training device (CUDA, then Apple MPS, then the CPU) and refusing models that cannot fit on it."""
from __future__ import annotations

import os

import torch

from explorer.core.checks import spelled_out
from explorer.core.choices import DEVICE_CHOICES
from explorer.core.model.transformer import ConfigError, TransformerConfig, estimate_parameters

#: Bytes per parameter while training with Adam in float32: weights, gradients and two moment buffers.
TRAIN_BYTES_PER_PARAM = 16


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
        raise ConfigError(f"unknown device {name!r}: use {spelled_out(DEVICE_CHOICES)}") from exc
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
        raise ConfigError(f"unsupported device {name!r}: use {spelled_out(DEVICE_CHOICES)}")
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
