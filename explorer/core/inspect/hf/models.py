"""Any Hugging Face model that returns attention (encoder-only, decoder-only, encoder–decoder) from a local folder
behind the :class:`~explorer.core.inspect.interface.InspectableModel` interface (book §11.7's maps, at real sizes).

Maps are read by forward hooks on the attention modules the model itself names (``hf.taps``), so each
layer can be kept whole, pooled, or cut to one head as it is computed: a 4,096-token text never holds
every full map at once.
"""
from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from explorer.core.checks import positive_int
from explorer.core.choices import ATTENTION_KINDS
from explorer.core.inspect.given_tokens import GivenTokens
from explorer.core.inspect.hf.folder import (HFModelError, check_folder, hf_session, load_folder,
                                             quiet_transformers)
from explorer.core.inspect.hf.taps import REPLAY_BUDGET, Done, Replay, Sink, find_taps, kv_heads, run_taps, structure
from explorer.core.inspect.interface import (AttentionResult, Generation, InspectableModel, ModelInfo, PooledAttention,
                                         check_head, check_method, pooled_maps)

#: ``attention()`` refuses texts whose full maps would take more (use ``pooled_attention`` + ``head_attention``).
FULL_MAPS_BUDGET = 2 * 2**30


class MapsTooLargeError(HFModelError):
    """Every full map of this text would not fit the budget; ``nbytes`` says how much they would take."""

    def __init__(self, nbytes: int) -> None:
        super().__init__(f"the full attention maps of this text would take {nbytes / 2**30:.1f} GB (more than "
                         f"{FULL_MAPS_BUDGET / 2**30:.0f} GB); use a shorter text, or pooled maps")
        self.nbytes = nbytes


@dataclass
class _Encoded:
    """Token ids and labels for one forward pass."""

    input_ids: torch.Tensor  # (1, Ts), or (1, Ts + Tt) for a decoder-only model
    decoder_input_ids: torch.Tensor | None  # (1, Tt) for an encoder–decoder
    source_tokens: list[str]
    target_tokens: list[str]
    decoder_input_tokens: list[str]


class HFModel(InspectableModel):
    """A local Hugging Face model folder, loaded offline with eager attention in float32."""

    def __init__(self, model: Any, tokenizer: Any, name: str, model_type: str) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.model_type = model_type
        found = structure(model)  # the attention modules, found by one probe pass
        self._taps = found.taps
        self._ask = found.ask  # the modules return weights only when the model is asked for them
        encoder_decoder = bool(getattr(model.config, "is_encoder_decoder", False))
        self.family = "encoder-decoder" if encoder_decoder else "decoder-only" if found.causal else "encoder-only"
        self._lock = threading.Lock()  # one forward pass at a time (hooks are per call)
        self._replay: Replay | None = None  # the inputs of the last pooled pass, to open one head fast
        self._info = self._describe(found.layers, found.heads)

    @classmethod
    def open(cls, path: str | os.PathLike[str], device: str | torch.device = "cpu") -> HFModel:
        """Open a model folder (raises :class:`~explorer.core.inspect.hf.folder.HFModelError`, a ``ValueError``)."""
        check = check_folder(path)
        model, tokenizer = load_folder(check, _device(device))
        return cls(model, tokenizer, check.folder.name, check.model_type)

    # ------------------------------------------------------------------------------------------ describe
    def describe(self) -> ModelInfo:
        return self._info

    def _describe(self, layers: dict[str, int], heads: dict[str, int]) -> ModelInfo:
        cfg = self.model.config
        kinds = tuple(k for k in ATTENTION_KINDS if k in layers)
        modules: dict[str, dict[int, Any]] = {k: {} for k in kinds}
        for module, kind, layer in find_taps(self.model):
            modules[kind][layer] = module
        shared = {k: kv_heads(modules[k][0], heads[k], cfg) for k in kinds}
        windows = {k: tuple(_window(modules[k][i], i, cfg) if k != "cross" else 0 for i in range(layers[k]))
                   for k in kinds}
        return ModelInfo(name=self.name, origin="huggingface", architecture=type(self.model).__name__,
                         model_type=self.model_type, family=self.family, kinds=kinds, layers=layers,
                         heads=heads, hidden_size=int(getattr(cfg, "hidden_size", 0) or getattr(cfg, "d_model", 0) or 0),
                         parameters=int(sum(p.numel() for p in self.model.parameters())),
                         vocab_size=int(getattr(cfg, "vocab_size", 0) or len(self.tokenizer)),
                         max_positions=self._max_positions(),
                         kv_heads={k: v for k, v in shared.items() if v != heads[k]},
                         windows={k: w for k, w in windows.items() if any(w)})

    def _max_positions(self) -> int | None:
        cfg = self.model.config
        if self.model_type == "t5":
            return None  # relative position buckets: no table to run past
        limit = getattr(cfg, "max_position_embeddings", None) or getattr(cfg, "n_positions", None)
        if limit and self.model_type == "roberta":  # positions start after the padding index
            limit -= int(getattr(cfg, "pad_token_id", 1) or 0) + 1
        return int(limit) if limit else None

    # ------------------------------------------------------------------------------------------ tokens
    def _ids(self, text: str, target: bool = False, special: bool = True) -> list[int]:
        if isinstance(text, GivenTokens):  # read as given: no tokenizer, no special tokens added
            return text.to_ids(self.tokenizer, int(getattr(self.model.config, "vocab_size", 0) or 0))
        if not isinstance(text, str):
            raise HFModelError(f"expected text, got {type(text).__name__}")
        if not text.strip():  # else a tokenizer's special tokens alone would pass for a text
            raise HFModelError("the text is empty: type some text")
        kwargs = {"text_target": text} if target else {"text": text}
        with warnings.catch_warnings():  # tokenizers nag about settings that do not apply to one sentence
            warnings.filterwarnings("ignore", category=UserWarning, module=r"transformers\.")
            return list(self.tokenizer(**kwargs, add_special_tokens=special)["input_ids"])

    def _tokens(self, ids: list[int] | torch.Tensor) -> list[str]:
        values = ids.tolist() if isinstance(ids, torch.Tensor) else list(ids)
        return [str(t) for t in self.tokenizer.convert_ids_to_tokens(values)]

    def _check_length(self, what: str, count: int) -> None:
        if count == 0:
            raise HFModelError(f"the {what} is empty: type some text")
        limit = self._info.max_positions
        if limit is not None and count > limit:
            raise HFModelError(f"the {what} has {count} tokens; {self._info.architecture} reads at most {limit}")

    def _device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _tensor(self, ids: list[int]) -> torch.Tensor:
        return torch.tensor([ids], dtype=torch.long, device=self._device())  # (1, T)

    def _encode(self, source: str, target: str | None) -> _Encoded:
        family = self.family
        src_ids = self._ids(source)
        if family == "encoder-only":
            if target is not None:
                raise HFModelError(f"{self._info.architecture} is an encoder-only model: it reads one text, "
                                   "without a target")
            self._check_length("source", len(src_ids))
            return _Encoded(self._tensor(src_ids), None, self._tokens(src_ids), [], [])
        if family == "decoder-only":  # one causal sequence: the source, then the target as given
            tgt_ids = self._ids(target, special=False) if target else []
            self._check_length("text", len(src_ids) + len(tgt_ids))
            if not src_ids:
                raise HFModelError("the source is empty: type some text")
            return _Encoded(self._tensor(src_ids + tgt_ids), None, self._tokens(src_ids), self._tokens(tgt_ids), [])
        self._check_length("source", len(src_ids))
        if target is None:
            return self._greedy_encoded(src_ids)
        labels = self._ids(target, target=True)
        self._check_length("target", len(labels))
        dec_in = self.model.prepare_decoder_input_ids_from_labels(labels=self._tensor(labels))  # (1, Tt)
        return _Encoded(self._tensor(src_ids), dec_in, self._tokens(src_ids), self._tokens(labels),
                        self._tokens(dec_in[0]))

    def _greedy_encoded(self, src_ids: list[int]) -> _Encoded:
        sequence = self._generate_ids(self._tensor(src_ids), 1, None)  # (S,) start token, y1, …
        return self._output_encoded(src_ids, sequence)

    def _output_encoded(self, src_ids: list[int], sequence: torch.Tensor) -> _Encoded:
        """Teacher-force a decoded ``sequence`` (start, y1, …, yn): inputs start…y(n-1), targets y1…yn."""
        dec_in = sequence[:-1][None]  # (1, n)
        return _Encoded(self._tensor(src_ids), dec_in, self._tokens(src_ids), self._tokens(sequence[1:]),
                        self._tokens(sequence[:-1]))

    # ------------------------------------------------------------------------------------------ forward
    def _run(self, enc: _Encoded, sink: Sink, replay: Replay | None = None) -> None:
        """One eval-mode forward pass; ``sink`` receives each attention module's weights as it runs."""
        kwargs: dict[str, Any] = {"input_ids": enc.input_ids, "attention_mask": torch.ones_like(enc.input_ids),
                                  "use_cache": False}
        if self._ask:
            kwargs["output_attentions"] = True
        if enc.decoder_input_ids is not None:
            kwargs["decoder_input_ids"] = enc.decoder_input_ids
        # the base model skips the LM head: logits of 4,096 positions × the vocabulary are not needed
        body = getattr(self.model, getattr(self.model, "base_model_prefix", ""), None)
        model = body if isinstance(body, torch.nn.Module) and enc.decoder_input_ids is None else self.model
        with self._lock, quiet_transformers():  # a model's own advice logged while it runs stays inside
            run_taps(self._taps, lambda: model(**kwargs), sink, replay, drop=self._ask)

    def _labels(self, enc: _Encoded) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        src, dec = enc.source_tokens, enc.decoder_input_tokens
        if self.family == "decoder-only":
            both = enc.source_tokens + enc.target_tokens
            return {"decoder": both}, {"decoder": both}
        if self.family == "encoder-only":
            return {"encoder": src}, {"encoder": src}
        return ({"encoder": src, "decoder": dec, "cross": dec}, {"encoder": src, "decoder": dec, "cross": src})

    def _result(self, enc: _Encoded) -> AttentionResult:
        queries, keys = self._labels(enc)
        need = sum(self._info.layers[k] * self._info.heads[k] * len(queries[k]) * len(keys[k]) * 4
                   for k in self._info.kinds)
        if need > FULL_MAPS_BUDGET:
            raise MapsTooLargeError(need)
        layers: dict[str, dict[int, np.ndarray]] = {k: {} for k in self._info.kinds}

        def keep(kind: str, layer: int, weights: torch.Tensor) -> None:
            layers[kind][layer] = weights.to("cpu", torch.float32).numpy().copy()  # (h, q, k), a fresh array

        self._run(enc, keep)
        maps = {k: [layers[k][i] for i in range(self._info.layers[k])] for k in self._info.kinds}
        return AttentionResult(enc.source_tokens, enc.target_tokens, maps, queries, keys, enc.decoder_input_tokens)

    # ------------------------------------------------------------------------------------------ public
    def attention(self, source: str, target: str | None = None) -> AttentionResult:
        return self._result(self._encode(source, target))

    def pooled_attention(self, source: str, target: str | None = None, size: int = 256) -> PooledAttention:
        """Pooled per layer as it is computed: only one layer's full maps exist at a time."""
        positive_int(size, "the thumbnail size", HFModelError)
        enc = self._encode(source, target)
        queries, keys = self._labels(enc)
        maps: dict[str, np.ndarray] = {}
        q_edges: dict[str, np.ndarray] = {}
        k_edges: dict[str, np.ndarray] = {}

        def pool(kind: str, layer: int, weights: torch.Tensor) -> None:
            pooled, q_edges[kind], k_edges[kind] = pooled_maps(weights.to("cpu", torch.float32).numpy(), size)
            if kind not in maps:
                maps[kind] = np.zeros((self._info.layers[kind], *pooled.shape), np.float32)  # (L, h, mq, mk)
            maps[kind][layer] = pooled

        replay = Replay(key=(source, target))
        self._replay = None  # the previous text's inputs go before this pass allocates its own
        self._run(enc, pool, replay)
        self._replay = replay if replay.nbytes() <= REPLAY_BUDGET else None
        return PooledAttention(enc.source_tokens, enc.target_tokens, maps, queries, keys, q_edges, k_edges, size)

    def head_attention(self, source: str, target: str | None, kind: str, layer: int, head: int) -> np.ndarray:
        """One head at full resolution. After :meth:`pooled_attention` of the same text only that layer's
        attention module runs again (on its recorded inputs); otherwise the forward pass stops after it."""
        check_head(self._info, kind, layer, head)
        replay = self._replay
        if replay is not None and replay.key == (source, target):
            with self._lock:
                return replay.weights(kind, layer)[head].to("cpu", torch.float32).numpy().copy()  # (q, k)
        enc = self._encode(source, target)
        found: list[np.ndarray] = []

        def take(k: str, i: int, weights: torch.Tensor) -> None:
            if (k, i) == (kind, layer):
                found.append(weights[head].to("cpu", torch.float32).numpy().copy())  # (q, k)
                raise Done

        self._run(enc, take)
        return found[0]

    def generate(self, source: str, method: str = "greedy", beam_width: int = 4,
                 max_new_tokens: int | None = None) -> Generation:
        check_method(method, beam_width)
        if self.family == "encoder-only":
            return super().generate(source, method, beam_width, max_new_tokens)
        src_ids = self._ids(source)
        self._check_length("source", len(src_ids))
        sequence = self._generate_ids(self._tensor(src_ids), beam_width if method == "beam" else 1, max_new_tokens)
        eos = self.model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos]) - {None}
        if self.family == "decoder-only":
            produced = sequence[len(src_ids):]
            enc = _Encoded(sequence[None], None, self._tokens(src_ids), self._tokens(produced), [])
        else:
            produced = sequence[1:]
            enc = self._output_encoded(src_ids, sequence)
        finished = bool(len(produced)) and int(produced[-1]) in eos_ids
        text = self.tokenizer.decode(produced.tolist(), skip_special_tokens=True)
        return Generation(tokens=self._tokens(produced), text=text, finished=finished, method=method,
                          attention=self._result(enc))

    @property
    def lock(self) -> threading.Lock:
        """Held for each forward pass, whoever runs it (decoding steps too): the taps' hooks see every call of the
        modules they are on, so a pass on another thread would feed them maps of another text."""
        return self._lock

    def forget(self) -> None:
        """Drop the recorded inputs of the last pooled pass (they hold one activation per layer)."""
        self._replay = None

    @torch.no_grad()
    def _generate_ids(self, input_ids: torch.Tensor, beams: int, max_new_tokens: int | None) -> torch.Tensor:
        """Transformers' own greedy (``beams == 1``) or beam search; returns the one sequence (S,)."""
        limit = self._info.max_positions
        if max_new_tokens is None:
            max_new_tokens = 2 * input_ids.shape[1] + 10 if self.family == "encoder-decoder" else 20
        if self.family == "decoder-only" and limit is not None:
            max_new_tokens = min(max_new_tokens, limit - input_ids.shape[1])
        elif limit is not None:
            max_new_tokens = min(max_new_tokens, limit - 1)
        if max_new_tokens < 1:
            raise HFModelError(f"no room to generate: the text already fills the model's {limit} positions")
        pad = self.model.generation_config.pad_token_id
        if pad is None:
            pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else \
                self.model.generation_config.eos_token_id
        settings = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids), "do_sample": False,
                    "num_beams": beams, "num_return_sequences": 1, "max_new_tokens": max_new_tokens,
                    "pad_token_id": pad}
        with self._lock, hf_session(), warnings.catch_warnings():
            # transformers warns about a model's sampling defaults that greedy and beam search do not use
            warnings.filterwarnings("ignore", category=UserWarning, module=r"transformers\.")
            try:
                out = self.model.generate(**settings)
            except Exception as exc:
                # transformers builds its cache from the config, which some folders contradict (a T5 with more
                # decoder than encoder layers: an IndexError inside the cache); the search runs without it
                if isinstance(exc, (MemoryError, torch.OutOfMemoryError)):
                    raise
                out = self.model.generate(**settings, use_cache=False)
        sequence = out[0] if isinstance(out, torch.Tensor) else out.sequences[0]
        return sequence.detach()


def _device(device: str | torch.device) -> torch.device:
    if isinstance(device, torch.device):
        return device
    from explorer.core.training.devices import resolve_device

    return resolve_device(device)


def _window(module: Any, layer: int, config: Any) -> int:
    """The sliding window of one self-attention layer (0: it sees every earlier key): the module's own
    ``sliding_window``, else the config's per-layer ``layer_types``, else a config-wide ``sliding_window``."""
    if hasattr(module, "sliding_window"):
        window = module.sliding_window
    else:
        types = getattr(config, "layer_types", None)
        window = getattr(config, "sliding_window", None)
        if types is not None and layer < len(types) and types[layer] != "sliding_attention":
            window = None
    return int(window) if isinstance(window, int) and window > 0 else 0
