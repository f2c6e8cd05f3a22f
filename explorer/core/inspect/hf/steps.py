"""Hugging Face encoder–decoders and decoder-only models behind :class:`~explorer.core.inspect.step_model.StepModel`:
next-token distributions (book §10.7.6 / §10.8 searches run by us, not by transformers' ``generate``), each
step's attention row (cross-attention over the source, or a decoder-only model's self-attention over the prompt
and the tokens before it), and the teacher-forced loss of sentence pairs."""
from __future__ import annotations

import inspect
import threading
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from explorer.core.inspect.hf.folder import HFModelError, hf_session
from explorer.core.inspect.interface import InspectableModel
from explorer.core.inspect.step_model import LossSum, SourceStepper, StepModel
from explorer.core.model.loss import masked_cross_entropy

#: Models whose key/value cache failed once (transformers builds some caches from a config that does not match
#: the decoder, e.g. a T5 with more decoder than encoder layers): their steps re-run the prefix from then on.
_NO_CACHE: weakref.WeakSet[torch.nn.Module] = weakref.WeakSet()


class HFSteps(StepModel):
    """An opened :class:`~explorer.core.inspect.hf.models.HFModel` (encoder–decoder or decoder-only).

    Decoding keeps transformers' key/value cache: the prompt (or the source, through the encoder) is read once and
    each step feeds one token per hypothesis; beams reorder the cache. A model whose cache fails re-runs the whole
    prefix at every step instead (same numbers, slower). The search is ours, so transformers' generation settings
    (forced tokens, repetition penalties) do not apply.
    """

    def __init__(self, model: InspectableModel, cache: bool = True) -> None:
        self.hf = model
        self.cache = cache  # False: every step re-runs the prefix (what the cache must equal)
        self.model: Any = getattr(model, "model")
        self.tokenizer: Any = getattr(model, "tokenizer")
        info = model.describe()
        self.info = info
        self.name = info.name
        self.decoder_only = info.family == "decoder-only"
        gen, cfg = self.model.generation_config, self.model.config
        eos = gen.eos_token_id if gen.eos_token_id is not None else getattr(cfg, "eos_token_id", None)
        self.eos_ids = frozenset(i for i in (eos if isinstance(eos, list) else [eos]) if i is not None)
        start = next((v for v in (gen.decoder_start_token_id, getattr(cfg, "decoder_start_token_id", None),
                                  gen.bos_token_id, getattr(cfg, "bos_token_id", None)) if v is not None), None)
        if not self.decoder_only and start is None:
            raise HFModelError(f"{info.name}: the model names no decoder start token")
        self.start = start
        # transformers 5 renamed ``past_key_values`` to ``cache`` (the old name warns, then goes)
        params = inspect.signature(self.model.forward).parameters
        self.cache_arg = "cache" if "cache" in params else "past_key_values"
        # reading the prompt into the cache needs no logits: a 150k-token vocabulary × the prompt is most of its cost
        self.prefill_args = {"logits_to_keep": 1} if "logits_to_keep" in params else {}
        # one forward pass at a time on the model: an inspection's hooks on its modules would see our calls too
        self.lock: Any = getattr(model, "lock", None) or threading.Lock()

    @property
    def use_cache(self) -> bool:
        """Whether steps keep transformers' key/value cache (False once it failed on this model)."""
        return self.cache and self.model not in _NO_CACHE

    def cache_failed(self) -> None:
        """Decode without the cache from now on (every stepper of this model)."""
        _NO_CACHE.add(self.model)

    # ------------------------------------------------------------------------------------------ tokens
    def ids(self, text: str, target: bool = False, special: bool = True) -> list[int]:
        """Token ids of ``text`` (as the source, or as a target with ``target=True``)."""
        kwargs = {"text_target": text} if target else {"text": text}
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, module=r"transformers\.")
            return list(self.tokenizer(**kwargs, add_special_tokens=special)["input_ids"])

    def _source(self, source: str) -> list[int]:
        if not isinstance(source, str):
            raise HFModelError(f"expected text, got {type(source).__name__}")
        ids = self.ids(source)
        if not ids:
            raise HFModelError("the source is empty: type some text")
        limit = self.info.max_positions
        if limit is not None and len(ids) > limit:
            raise HFModelError(f"the source has {len(ids)} tokens; {self.info.architecture} reads at most {limit}")
        return ids

    def tokens(self, ids: Sequence[int]) -> list[str]:
        return [str(t) for t in self.tokenizer.convert_ids_to_tokens([int(i) for i in ids])]

    def text(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=True))

    def _device(self) -> torch.device:
        return next(self.model.parameters()).device

    # ------------------------------------------------------------------------------------------ decoding
    def max_new_tokens(self, source: str) -> int:
        n = len(self._source(source))
        limit = self.info.max_positions
        if self.decoder_only:
            room = 20 if limit is None else min(20, limit - n)
        else:
            room = 2 * n + 10 if limit is None else min(2 * n + 10, limit - 1)
        if room < 1:
            raise HFModelError(f"no room to generate: the text already fills the model's {limit} positions")
        return room

    def begin(self, source: str) -> SourceStepper:
        ids = self._source(source)
        return _HFStepper(self, torch.tensor([ids], device=self._device()), self.tokens(ids))

    # ------------------------------------------------------------------------------------------ loss
    @torch.no_grad()
    def loss(self, pairs: Sequence[tuple[str, str]]) -> LossSum:
        total, count = 0.0, 0
        device = self._device()
        with hf_session():
            for source, target in pairs:
                src = self._source(source)
                if self.decoder_only:  # the target continues the source: score its tokens only
                    tgt = self.ids(target, special=False)
                    ids = torch.tensor([src + tgt], device=device)  # (1, Ts + Tt)
                    with self.lock:
                        logits = self.model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False).logits
                    pred = logits[0, len(src) - 1:-1]  # (Tt, V): position t predicts token t + 1
                    labels = ids[0, len(src):]  # (Tt,)
                else:
                    labels = torch.tensor([self.ids(target, target=True)], device=device)  # (1, Tt)
                    dec_in = self.model.prepare_decoder_input_ids_from_labels(labels=labels)  # (1, Tt)
                    src_t = torch.tensor([src], device=device)  # (1, Ts)
                    with self.lock:
                        pred = self.model(input_ids=src_t, attention_mask=torch.ones_like(src_t),
                                          decoder_input_ids=dec_in, use_cache=False).logits[0]  # (Tt, V)
                    labels = labels[0]
                total += float(masked_cross_entropy(pred, labels))
                count += int(labels.numel())
        return LossSum(total, count)


class _HFStepper(SourceStepper):
    """One source's hypotheses. ``prefix`` holds every fed token ``(k, t)`` whatever the mode, so a failed cache
    can hand over to full passes at any step."""

    def __init__(self, steps: HFSteps, src: Tensor, source_tokens: list[str]) -> None:
        self.steps = steps
        self.source_tokens = source_tokens
        self.src = src  # (1, Ts)
        self.attends = "decoder" if steps.decoder_only else "cross"
        self.cache: Any = None
        self.encoded: Any = None  # the encoder's output, computed once (encoder–decoders)
        if steps.decoder_only:  # the source is the prompt; its last token is fed at the first step
            self.prefix = src[:, :-1]  # (1, Ts - 1)
            self.first = src[0, -1:]
        else:
            self.prefix = src.new_zeros((1, 0))  # (1, 0)
            self.first = torch.tensor([steps.start], device=src.device)
        with torch.no_grad(), steps.lock, hf_session():
            if not steps.decoder_only:
                self.encoded = steps.model.get_encoder()(input_ids=src, attention_mask=torch.ones_like(src))
            if steps.use_cache:
                self._start_cache()

    def _start_cache(self) -> None:
        """A fresh cache, filled with the prompt but its last token (decoder-only). Transformers builds a model's
        cache from its config, which some models contradict (a T5 with more decoder than encoder layers); an empty
        dynamic cache grows a layer for each layer that calls it, so it fits any decoder, and it keeps every key
        (a sliding window's masked keys are then shown as zeros, not cut off)."""
        from transformers import DynamicCache, EncoderDecoderCache

        cache = DynamicCache() if self.steps.decoder_only else EncoderDecoderCache(DynamicCache(), DynamicCache())
        try:
            if self.prefix.shape[1]:
                self.steps.model(input_ids=self.prefix, use_cache=True, **{self.steps.cache_arg: cache},
                                 **self.steps.prefill_args)
        except Exception as exc:  # noqa: BLE001 (whatever the cache raised: decode without it)
            self._give_up_cache(exc)
            return
        self.cache = cache

    def _give_up_cache(self, exc: Exception) -> None:
        """Decode without the cache from now on, for every stepper of this model (the full pass worked)."""
        if isinstance(exc, (MemoryError, torch.OutOfMemoryError)):
            raise exc  # a pass without the cache needs more memory still
        self.cache = None
        self.steps.cache_failed()

    @torch.no_grad()
    def step(self, tokens: Tensor, parents: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        prefix = self.prefix if parents is None else self.prefix.index_select(0, parents)
        if prefix.shape[0] != tokens.shape[0]:
            prefix = prefix.expand(tokens.shape[0], -1)  # (k, t): the first expansion of one hypothesis
        self.prefix = torch.cat([prefix, tokens[:, None]], dim=1)  # (k, t + 1)
        with self.steps.lock, hf_session():
            out, failed = None, None
            if self.cache is not None:
                try:
                    out = self._cached(tokens, parents)
                except (MemoryError, torch.OutOfMemoryError):
                    raise  # a pass without the cache needs more memory still
                except Exception as exc:  # noqa: BLE001 (the cache failed: this step and the rest in full)
                    failed = exc
            if out is None:
                out = self._full()  # raises as the model does when the fault was not the cache's
            if failed is not None:
                self._give_up_cache(failed)
        found = out.attentions if self.steps.decoder_only else out.cross_attentions
        rows = None
        if found and all(isinstance(a, Tensor) for a in found):
            rows = torch.stack([a[:, :, -1, :] for a in found], dim=1).float()  # (k, L, h, keys)
        return out.logits[:, -1].float(), rows

    def _cached(self, tokens: Tensor, parents: Tensor | None) -> Any:
        """One token per hypothesis on the cache (first reordered to the hypotheses kept)."""
        if parents is not None:
            self.cache.reorder_cache(parents)
        model, k = self.steps.model, tokens.shape[0]
        kwargs: dict[str, Any] = {self.steps.cache_arg: self.cache, "use_cache": True, "output_attentions": True}
        if self.steps.decoder_only:
            return model(input_ids=tokens[:, None], **kwargs)  # (k, 1)
        return model(encoder_outputs=self._encoded(k), attention_mask=self._source_mask(k),
                     decoder_input_ids=tokens[:, None], **kwargs)

    def _full(self) -> Any:
        """The whole prefix again, without a cache."""
        model, k = self.steps.model, self.prefix.shape[0]
        if self.steps.decoder_only:
            return model(input_ids=self.prefix, attention_mask=torch.ones_like(self.prefix), use_cache=False,
                         output_attentions=True)
        return model(encoder_outputs=self._encoded(k), attention_mask=self._source_mask(k),
                     decoder_input_ids=self.prefix, use_cache=False, output_attentions=True)

    def _encoded(self, k: int) -> Any:
        """The encoder's output for ``k`` hypotheses of the one source (a view, no copy)."""
        hidden = self.encoded.last_hidden_state  # (1, Ts, d)
        return type(self.encoded)(last_hidden_state=hidden.expand(k, -1, -1))  # (k, Ts, d)

    def _source_mask(self, k: int) -> Tensor:
        return torch.ones_like(self.src).expand(k, -1)  # (k, Ts)
