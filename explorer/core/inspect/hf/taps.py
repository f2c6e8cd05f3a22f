"""Reading attention weights out of any Hugging Face model as each layer computes them (forward hooks), and
replaying one attention module from its recorded inputs, so one head of a long text opens without a whole
forward pass. The maps of book §11.7, at real sizes.

No list of architectures: the attention modules are found from the model itself, by one small forward pass
that asks transformers for its attention outputs and finds the module call that returned each of them.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from explorer.core.inspect.hf.folder import HFModelError, hf_session

Sink = Callable[[str, int, torch.Tensor], None]  # (kind, layer, weights (h, q, k))
#: The recorded inputs of a long text are kept only up to this size (T5's position bias alone is h × T × T).
REPLAY_BUDGET = 512 * 2**20
#: The output fields transformers fills with ``output_attentions=True``, and the kind each one holds.
OUTPUT_KINDS = (("encoder_attentions", "encoder"), ("decoder_attentions", "decoder"),
                ("cross_attentions", "cross"), ("attentions", None))
#: Probe lengths: source and decoder inputs of different lengths, so no two kinds share a shape.
PROBE_SOURCE, PROBE_TARGET = 7, 5


class Done(Exception):
    """Raised by a sink that has what it needs, to skip the rest of the forward pass."""


@dataclass
class Tap:
    """One attention module: where its weights sit in what it returns, and ``(kind, layer)`` of each of its calls
    in one forward pass (a module shared by every layer, as ALBERT's, is called once per layer)."""

    module: torch.nn.Module
    index: int
    calls: list[tuple[str, int] | None]


@dataclass
class Structure:
    """What the probe found: the taps, whether the self-attention is causal, heads and layers per kind, and
    whether the modules return their weights only when the model is asked for ``output_attentions``."""

    taps: list[Tap]
    causal: bool
    heads: dict[str, int]
    layers: dict[str, int]
    ask: bool = False


_FOUND: weakref.WeakKeyDictionary[torch.nn.Module, Structure] = weakref.WeakKeyDictionary()
_INDEX: weakref.WeakKeyDictionary[torch.nn.Module, int] = weakref.WeakKeyDictionary()


def weights_of(module: Any, output: Any) -> torch.Tensor:
    """The ``(B, h, q, k)`` weights an eager attention module returns (at the place the probe found)."""
    weights = output[_INDEX.get(module, -1)] if isinstance(output, tuple) else None
    if not isinstance(weights, torch.Tensor) or weights.dim() != 4:
        raise HFModelError(f"{type(module).__name__} returned no attention weights (eager attention is needed)")
    return weights


def _probe_inputs(model: Any, device: torch.device) -> dict[str, Any]:
    vocab = int(getattr(model.config, "vocab_size", 0) or 0) or 8
    ids = (torch.arange(PROBE_SOURCE, device=device) % vocab)[None]  # (1, Ts)
    kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    if getattr(model.config, "is_encoder_decoder", False):
        kwargs["decoder_input_ids"] = (torch.arange(PROBE_TARGET, device=device) % vocab)[None]  # (1, Tt)
    return kwargs


def structure(model: Any) -> Structure:
    """The attention structure of ``model`` (found once per model by a probe pass, then cached)."""
    found = _FOUND.get(model)
    if found is None:
        found = _probe(model)
        _FOUND[model] = found
    return found


@torch.no_grad()
def _probe(model: Any) -> Structure:
    returned: list[tuple[torch.nn.Module, int, int, torch.Tensor]] = []  # (module, call, index, tensor) in order
    counts: dict[int, int] = {}

    def record(module: Any, args: Any, output: Any) -> None:
        call = counts.get(id(module), 0)
        counts[id(module)] = call + 1
        if isinstance(output, tuple):
            for index, value in enumerate(output):
                if isinstance(value, torch.Tensor) and value.dim() == 4:
                    returned.append((module, call, index, value))

    handles = [m.register_forward_hook(record) for m in model.modules() if m is not model]
    try:
        with hf_session():
            out = model(**_probe_inputs(model, next(model.parameters()).device), output_attentions=True,
                        use_cache=False, return_dict=True)
    except Exception as exc:  # a model that cannot run the probe cannot be inspected
        raise HFModelError(f"{type(model).__name__} could not run a test input ({exc})") from exc
    finally:
        for handle in handles:
            handle.remove()
    encoder_decoder = bool(getattr(model.config, "is_encoder_decoder", False))
    per_kind: dict[str, list[torch.Tensor]] = {}
    for name, kind in OUTPUT_KINDS:
        values = getattr(out, name, None)
        if values:
            per_kind.setdefault(kind or ("encoder" if encoder_decoder else "self"), list(values))
    if not per_kind:
        raise HFModelError(f"{type(model).__name__} returns no attention weights, so it has no maps to show")
    causal = False
    if "self" in per_kind:  # one stack of self-attention: causal (a decoder) when no query sees a later key
        causal = all(bool((w[..., 0, 1:] == 0).all()) for w in per_kind["self"] if w.shape[-1] > 1)
        per_kind["decoder" if causal else "encoder"] = per_kind.pop("self")
    taps: dict[int, Tap] = {}
    for kind, values in per_kind.items():
        for layer, weights in enumerate(values):
            module, call, index = _who_returned(weights, returned, type(model).__name__)
            tap = taps.setdefault(id(module), Tap(module, index, []))
            tap.calls.extend([None] * (call + 1 - len(tap.calls)))
            tap.calls[call] = (kind, layer)
    for tap in taps.values():
        _INDEX[tap.module] = tap.index
    heads = {kind: int(values[0].shape[1]) for kind, values in per_kind.items()}
    layers = {kind: len(values) for kind, values in per_kind.items()}
    found = Structure(list(taps.values()), causal, heads, layers)
    found.ask = not _returned_unasked(model, found.taps)
    return found


def _returned_unasked(model: Any, taps: list[Tap]) -> bool:
    """Whether every tapped module returns its weights without ``output_attentions`` (most do in eager mode;
    some, as DeBERTa's, return None in their place). Asking keeps every layer's maps until the pass ends."""
    missing: list[str] = []

    def check(module: Any, args: Any, output: Any) -> None:
        value = output[_INDEX[module]] if isinstance(output, tuple) else None
        if not (isinstance(value, torch.Tensor) and value.dim() == 4):
            missing.append(type(module).__name__)

    handles = [tap.module.register_forward_hook(check) for tap in taps]
    try:
        with hf_session():
            model(**_probe_inputs(model, next(model.parameters()).device), use_cache=False)
    finally:
        for handle in handles:
            handle.remove()
    return not missing


def _who_returned(weights: torch.Tensor, returned: list[tuple[torch.nn.Module, int, int, torch.Tensor]],
                  name: str) -> tuple[torch.nn.Module, int, int]:
    """The innermost module call that returned ``weights`` (hooks run innermost first): the same tensor, else
    an equal one (a model that copies its weights on the way out)."""
    for module, call, index, value in returned:
        if value is weights:
            return module, call, index
    for module, call, index, value in returned:
        if value.shape == weights.shape and torch.equal(value, weights):
            return module, call, index
    raise HFModelError(f"{name}: no module of the model computes the attention weights it returns")


def find_taps(model: Any) -> list[tuple[Any, str, int]]:
    """``(module, kind, layer)`` of every attention call of ``model``, in call order (a shared module repeats)."""
    return [(tap.module, *call) for tap in structure(model).taps for call in tap.calls if call is not None]


def kv_heads(module: Any, heads: int, config: Any) -> int:
    """Key/value heads an attention module shares among its ``heads`` query heads (``heads`` when none are shared).

    The module that computes them is asked first: a config may hold settings its model ignores (Falcon's
    ``multi_query`` under ``new_decoder_architecture``, its ``num_kv_heads`` under ``multi_query``)."""
    groups = getattr(module, "num_key_value_groups", None)
    if _divides(groups, heads):
        return heads // groups
    for source, name in ((module, "num_key_value_heads"), (module, "num_kv_heads"), (config, "num_key_value_heads")):
        kv = getattr(source, name, None)
        if _divides(kv, heads):
            return kv
    for source in (module, config):
        multi_query = getattr(source, "multi_query", None)
        if isinstance(multi_query, bool):
            return 1 if multi_query else heads
    return heads


def _divides(count: Any, heads: int) -> bool:
    return isinstance(count, int) and 0 < count <= heads and heads % count == 0


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


def run_taps(taps: list[Tap], forward: Callable[[], Any], sink: Sink, replay: Replay | None = None,
             masks: Callable[[str, int, Any], None] | None = None, drop: bool = False) -> None:
    """Call ``forward()`` with a hook on every tapped module; ``sink`` receives each layer's weights as it
    is computed (it may raise :class:`Done` to stop early). With ``replay``, record every tapped call; with
    ``masks``, hand it each call's keyword arguments (where the attention mask is). With ``drop`` (a model
    asked for ``output_attentions``, which would keep every layer's maps to the end of the pass), each module
    passes on an empty tensor in place of the weights the sink has seen."""
    counts = {id(tap.module): 0 for tap in taps}

    def which(tap: Tap, advance: bool) -> tuple[str, int] | None:
        call = counts[id(tap.module)]
        if advance:
            counts[id(tap.module)] = call + 1
        return tap.calls[call] if call < len(tap.calls) else None

    def after(tap: Tap) -> Callable[..., None]:
        def hook(module: Any, args: Any, output: Any) -> None:
            found = which(tap, advance=True)
            if found is None:
                return None
            weights = weights_of(module, output)
            sink(*found, weights[0].detach())  # (h, q, k)
            if not drop:
                return None
            index = _INDEX.get(module, -1) % len(output)
            return (*output[:index], weights.new_empty((*weights.shape[:2], 0, 0)), *output[index + 1:])
        return hook

    def before(tap: Tap) -> Callable[..., None]:
        def hook(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            found = which(tap, advance=False)
            if found is None:
                return
            if replay is not None:
                replay.calls[found] = (module, args, dict(kwargs))
            if masks is not None:
                masks(*found, kwargs)
        return hook

    handles = [tap.module.register_forward_hook(after(tap)) for tap in taps]
    if replay is not None or masks is not None:
        handles += [tap.module.register_forward_pre_hook(before(tap), with_kwargs=True) for tap in taps]
    try:
        with hf_session(), torch.no_grad():
            forward()
    except Done:
        pass
    finally:
        for handle in handles:
            handle.remove()
