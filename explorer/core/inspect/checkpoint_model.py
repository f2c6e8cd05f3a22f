"""Our own saved Transformer (book §11.7) behind the :class:`~explorer.core.inspect.interface.InspectableModel`
interface: ``checkpoint.load_model`` + ``probe.forward_probe`` + ``decoding.translate``."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from explorer.core.choices import ATTENTION_KINDS
from explorer.core.training.checkpoint import LoadedModel, load_model
from explorer.core.model.decoding import Translation, translate
from explorer.core.inspect.interface import (AttentionResult, Generation, InspectableModel, ModelInfo, check_method)
from explorer.core.training.probe import ProbeInput, encode_probe, forward_probe
from explorer.core.data.text import encode_sentence, tokenize
from explorer.core.data.readers import normalize_side

BOS_LABEL = "<bos>"


class CheckpointModel(InspectableModel):
    """A model saved by :func:`~explorer.core.training.checkpoint.save_model`.

    Sentences are cut to the training ``num_steps`` only where they would not fit the model's ``max_len``:
    inspection may read longer sentences than the model was trained on.
    """

    def __init__(self, loaded: LoadedModel, name: str = "model") -> None:
        self.loaded = loaded
        self.name = name
        cfg = loaded.train_config
        if cfg is None:  # saved without training settings: the book's default
            from explorer.core.training.config import TrainingConfig

            cfg = TrainingConfig()
        self.num_steps = int(cfg.num_steps)

    @classmethod
    def open(cls, path: str | os.PathLike[str], device: str = "cpu") -> CheckpointModel:
        """Load a checkpoint file (raises :class:`~explorer.core.training.checkpoint.CheckpointError`)."""
        return cls(load_model(path, device=device), Path(path).name)

    def describe(self) -> ModelInfo:
        cfg = self.loaded.model_config
        layers = {k: cfg.num_layers for k in ATTENTION_KINDS}
        heads = {k: cfg.num_heads for k in ATTENTION_KINDS}
        params = sum(p.numel() for p in self.loaded.model.parameters())
        return ModelInfo(name=self.name, origin="checkpoint", architecture=type(self.loaded.model).__name__,
                         model_type="d2l-transformer", family="encoder-decoder", kinds=ATTENTION_KINDS,
                         layers=layers, heads=heads, hidden_size=cfg.num_hiddens, parameters=int(params),
                         vocab_size=len(self.loaded.src_vocab), target_vocab_size=len(self.loaded.tgt_vocab),
                         max_positions=cfg.max_len)

    def _steps(self, *sentences: str | None) -> int:
        """Enough steps for every sentence plus ``<eos>`` (at least the training ``num_steps``), ≤ max_len."""
        need = max((len(tokenize(normalize_side(s))) + 1 for s in sentences if s is not None), default=1)
        return max(1, min(self.loaded.model_config.max_len, max(self.num_steps, need)))

    def attention(self, source: str, target: str | None = None) -> AttentionResult:
        if target is None:
            return self.generate(source).attention
        steps = self._steps(source, target)
        probe = encode_probe(self.loaded.src_vocab, self.loaded.tgt_vocab, source, target, steps,
                             self._device())
        return self._result(probe)

    def generate(self, source: str, method: str = "greedy", beam_width: int = 4,
                 max_new_tokens: int | None = None) -> Generation:
        check_method(method, beam_width)
        steps = self._steps(source)
        # a step yields one token, <eos> included; the book decodes at most num_steps of them
        limit = steps if max_new_tokens is None else min(max_new_tokens, self.loaded.model_config.max_len)
        out = translate(self.loaded.model, self.loaded.src_vocab, self.loaded.tgt_vocab, source, steps,
                        method=method, beam_width=beam_width, max_len=limit)
        return Generation(tokens=out.row_labels, text=out.text, finished=out.finished, method=method,
                          attention=self._forced(source, steps, out))

    def _forced(self, source: str, steps: int, out: Translation) -> AttentionResult:
        """Teacher-force the decoded output: row i of each decoder map is the step that produced token i."""
        enc = encode_sentence(source, self.loaded.src_vocab, steps)
        labels = out.row_labels
        tgt_vocab = self.loaded.tgt_vocab
        dec_input = [tgt_vocab.bos, *out.ids][:len(labels)]  # (Tt,) <bos>, y1, ...
        device = self._device()
        probe = ProbeInput(src=enc.ids[None].to(device), src_valid_len=torch.tensor([enc.valid_len], device=device),
                           dec_input=torch.tensor([dec_input], device=device), src_tokens=list(enc.tokens),
                           tgt_tokens=list(labels), tgt_input_tokens=[BOS_LABEL, *labels[:-1]])
        return self._result(probe)

    def _result(self, probe: ProbeInput) -> AttentionResult:
        maps = forward_probe(self.loaded.model, probe).maps  # (L, h, Tq, Tk) per kind
        src, tgt_in = list(probe.src_tokens), list(probe.tgt_input_tokens)
        return AttentionResult(
            source_tokens=src, target_tokens=list(probe.tgt_tokens),
            maps={kind: _split(maps[kind]) for kind in ATTENTION_KINDS},
            query_tokens={"encoder": src, "decoder": tgt_in, "cross": tgt_in},
            key_tokens={"encoder": src, "decoder": tgt_in, "cross": src},
            decoder_input_tokens=tgt_in)

    def _device(self) -> torch.device:
        return next(self.loaded.model.parameters()).device


def _split(stacked: np.ndarray) -> list[np.ndarray]:
    """(L, h, q, k) -> L separate C-contiguous (h, q, k) float32 arrays."""
    return [np.ascontiguousarray(layer, dtype=np.float32) for layer in stacked]

