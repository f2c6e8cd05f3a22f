"""Reading attention weights out of a Hugging Face model as each layer computes them (forward hooks), and
replaying one attention module from its recorded inputs, so one head of a long text opens without a whole
forward pass. The maps of book §11.7, at real sizes."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from explorer.core.inspect.hf.folder import HFModelError, hf_session

Sink = Callable[[str, int, torch.Tensor], None]  # (kind, layer, weights (h, q, k))
#: The recorded inputs of a long text are kept only up to this size (T5's position bias alone is h × T × T).
REPLAY_BUDGET = 512 * 2**20


class Done(Exception):
    """Raised by a sink that has what it needs, to skip the rest of the forward pass."""


def weights_of(module: Any, output: Any) -> torch.Tensor:
    """The ``(B, h, q, k)`` weights an eager attention module returns last."""
    weights = output[-1] if isinstance(output, tuple) else None
    if not isinstance(weights, torch.Tensor) or weights.dim() != 4:
        raise HFModelError(f"{type(module).__name__} returned no attention weights (eager attention is needed)")
    return weights


@dataclass
class Replay:
    """The inputs every attention module received in one forward pass, to run any one of them again."""

    key: Any
    calls: dict[tuple[str, int], tuple[Any, tuple[Any, ...], dict[str, Any]]] = field(default_factory=dict)

    def nbytes(self) -> int:
        """Bytes of the distinct tensors held (modules share masks and biases; each counts once)."""
        seen: dict[int, int] = {}
        for _, args, kwargs in self.calls.values():
            for value in (*args, *kwargs.values()):
                if isinstance(value, torch.Tensor):
                    storage = value.untyped_storage()
                    seen[storage.data_ptr()] = storage.nbytes()
        return sum(seen.values())

    @torch.no_grad()
    def weights(self, kind: str, layer: int) -> torch.Tensor:
        """Run the module of ``(kind, layer)`` again on its recorded inputs -> weights ``(h, q, k)``."""
        module, args, kwargs = self.calls[(kind, layer)]
        with hf_session():
            return weights_of(module, module(*args, **kwargs))[0]


def run_taps(taps: list[tuple[Any, str, int]], forward: Callable[[], Any], sink: Sink,
             replay: Replay | None = None) -> None:
    """Call ``forward()`` with a hook on every tapped module; ``sink`` receives each layer's weights as it
    is computed (it may raise :class:`Done` to stop early). With ``replay``, record every tapped call."""
    def after(kind: str, layer: int) -> Callable[..., None]:
        def hook(module: Any, args: Any, output: Any) -> None:
            sink(kind, layer, weights_of(module, output)[0].detach())  # (h, q, k)
        return hook

    def before(kind: str, layer: int) -> Callable[..., None]:
        def hook(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            assert replay is not None
            replay.calls[(kind, layer)] = (module, args, dict(kwargs))
        return hook

    handles = [module.register_forward_hook(after(kind, layer)) for module, kind, layer in taps]
    if replay is not None:
        handles += [module.register_forward_pre_hook(before(kind, layer), with_kwargs=True)
                    for module, kind, layer in taps]
    try:
        with hf_session(), torch.no_grad():
            forward()
    except Done:
        pass
    finally:
        for handle in handles:
            handle.remove()
