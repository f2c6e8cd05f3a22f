"""Tiny model folders for the generation tests, built offline: decoder-only models of today's families (Llama with
grouped-query attention, Qwen2, Mistral with a sliding window shorter than the text, GPT-2) sharing a byte-level
BPE tokenizer written here, and a T5 with more decoder than encoder layers (transformers' own cache fails on it).
Each folder is built once per test session."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import hf_tiny

#: Decoder-only families: the config's own settings for a 2-layer, 4-query-head model of width 32.
DECODERS: dict[str, dict[str, Any]] = {
    "llama": {"num_key_value_heads": 2},  # grouped-query attention: two query heads per key/value head
    "qwen2": {"num_key_value_heads": 1},  # multi-query attention
    "mistral": {"num_key_value_heads": 2, "sliding_window": 4},  # a window shorter than the prompt
    "gpt2": {},
}
PROMPT = "the cat sat on the mat ."
#: Weights drawn wider than transformers' default, so that attention and next-token probabilities are far from
#: uniform: a tie broken differently would show, and the step view has something to show.
INIT_RANGE = 0.4
END = "<|endoftext|>"

_built: dict[tuple[str, str], Path] = {}


def folder(name: str, root: Path) -> Path:
    """The folder of tiny model ``name`` (a key of :data:`DECODERS`, or ``"t5_deep"``) under ``root``."""
    key = (name, str(root))
    if key not in _built:
        path = root / name
        path.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(7 + sorted([*DECODERS, "t5_deep"]).index(name))
        from explorer.core.inspect.hf.folder import hf_session

        with hf_session():
            (build_t5_deep if name == "t5_deep" else build_decoder)(path, name)
        _built[key] = path
    return _built[key]


def _tokenizer(path: Path) -> tuple[Any, int]:
    """GPT-2's byte-level BPE on a tiny vocabulary, with one end-of-text token; ``(tokenizer, end id)``."""
    from transformers import GPT2Tokenizer

    vocab = hf_tiny.write_byte_bpe(path, [], hf_tiny.MERGES)
    vocab[END] = len(vocab)
    (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tok = GPT2Tokenizer(str(path / "vocab.json"), str(path / "merges.txt"))
    return tok, vocab[END]


def config(name: str, vocab_size: int, end: int) -> Any:
    """The tiny config of decoder family ``name``."""
    from transformers import CONFIG_MAPPING

    if name == "gpt2":
        return CONFIG_MAPPING["gpt2"](n_embd=32, n_layer=2, n_head=4, n_positions=64, vocab_size=vocab_size,
                                      bos_token_id=end, eos_token_id=end, initializer_range=INIT_RANGE)
    return CONFIG_MAPPING[name](hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
                                max_position_embeddings=64, vocab_size=vocab_size, bos_token_id=end,
                                eos_token_id=end, initializer_range=INIT_RANGE, **DECODERS[name])


def build_decoder(path: Path, name: str) -> None:
    from transformers import AutoModelForCausalLM

    tok, end = _tokenizer(path)
    model = AutoModelForCausalLM.from_config(config(name, len(tok), end))
    model.save_pretrained(path)
    tok.save_pretrained(path)


def build_t5_deep(path: Path, _name: str = "t5_deep") -> None:
    """A T5 whose decoder has three layers and its encoder two."""
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    (path / "spiece.model").write_bytes(hf_tiny._spm(model_type="unigram", pad_id=0, eos_id=1, unk_id=2,
                                                     bos_id=-1))
    tok = T5Tokenizer.from_pretrained(path, extra_ids=0)
    cfg = T5Config(d_model=32, d_kv=8, d_ff=37, num_layers=2, num_decoder_layers=3, num_heads=4,
                   vocab_size=len(tok), decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)


BUILDERS: dict[str, Callable[[Path, str], None]] = {**{n: build_decoder for n in DECODERS}, "t5_deep": build_t5_deep}
