"""Hugging Face encoder–decoders and decoder-only models behind :class:`~explorer.core.inspect.step_model.StepModel`:
next-token distributions (book §10.7.6 / §10.8 searches run by us, not by transformers' ``generate``),
cross-attention rows of each step, and the teacher-forced loss of sentence pairs."""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from explorer.core.inspect.hf.folder import HFModelError, find_taps, hf_session
from explorer.core.inspect.hf.taps import weights_of
from explorer.core.inspect.interface import InspectableModel
from explorer.core.inspect.step_model import LossSum, SourceStepper, StepModel
from explorer.core.model.loss import masked_cross_entropy


class HFSteps(StepModel):
    """An opened :class:`~explorer.core.inspect.hf.models.HFModel` (encoder–decoder or decoder-only).

    Each step re-runs the model on the whole prefix (no cache: simple, exact, fine for sentences). The search
    is ours, so transformers' generation settings (forced tokens, repetition penalties) do not apply.
    """

    def __init__(self, model: InspectableModel) -> None:
        self.hf = model
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
        self.cross_taps = sorted(((layer, m) for m, kind, layer in find_taps(self.model, getattr(model, "family"))
                                  if kind == "cross"), key=lambda item: item[0])

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
                    logits = self.model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False).logits
                    pred = logits[0, len(src) - 1:-1]  # (Tt, V): position t predicts token t + 1
                    labels = ids[0, len(src):]  # (Tt,)
                else:
                    labels = torch.tensor([self.ids(target, target=True)], device=device)  # (1, Tt)
                    dec_in = self.model.prepare_decoder_input_ids_from_labels(labels=labels)  # (1, Tt)
                    src_t = torch.tensor([src], device=device)  # (1, Ts)
                    pred = self.model(input_ids=src_t, attention_mask=torch.ones_like(src_t), decoder_input_ids=dec_in,
                                      use_cache=False).logits[0]  # (Tt, V)
                    labels = labels[0]
                total += float(masked_cross_entropy(pred, labels))
                count += int(labels.numel())
        return LossSum(total, count)


class _HFStepper(SourceStepper):
    def __init__(self, steps: HFSteps, src: Tensor, source_tokens: list[str]) -> None:
        self.steps = steps
        self.source_tokens = source_tokens
        self.src = src  # (1, Ts)
        if steps.decoder_only:  # the source is the prefix; its last token is fed at the first step
            self.prefix = src[:, :-1]  # (1, Ts - 1)
            self.first = src[0, -1:]
        else:
            self.prefix = src.new_zeros((1, 0))  # (1, 0)
            self.first = torch.tensor([steps.start], device=src.device)

    @torch.no_grad()
    def step(self, tokens: Tensor, parents: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        prefix = self.prefix if parents is None else self.prefix.index_select(0, parents)
        if prefix.shape[0] != tokens.shape[0]:
            prefix = prefix.expand(tokens.shape[0], -1)  # (k, t): the first expansion of one hypothesis
        self.prefix = torch.cat([prefix, tokens[:, None]], dim=1)  # (k, t + 1)
        model = self.steps.model
        k = self.prefix.shape[0]
        rows: dict[int, Tensor] = {}

        def keep(layer: int) -> Any:
            def hook(module: Any, args: Any, output: Any) -> None:
                rows[layer] = weights_of(module, output)[:, :, -1, :].detach().float()  # (k, h, Ts)
            return hook

        handles = [m.register_forward_hook(keep(layer)) for layer, m in self.steps.cross_taps]
        try:
            with hf_session():
                if self.steps.decoder_only:
                    out = model(input_ids=self.prefix, attention_mask=torch.ones_like(self.prefix), use_cache=False)
                else:
                    src = self.src.expand(k, -1)  # (k, Ts)
                    out = model(input_ids=src, attention_mask=torch.ones_like(src), decoder_input_ids=self.prefix,
                                use_cache=False)
        finally:
            for handle in handles:
                handle.remove()
        cross = torch.stack([rows[i] for i in sorted(rows)], dim=1) if rows else None  # (k, L, h, Ts)
        return out.logits[:, -1].float(), cross
