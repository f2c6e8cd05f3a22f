"""Tiny Hugging Face model folders built offline for the tests: random weights from small configs,
tokenizers from written vocabularies or sentencepiece models trained here on a few lines. Each family is built
once per test session (cached by folder)."""
from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
import torch

FAMILIES = ("bert", "roberta", "gpt2", "marian", "bart", "mbart", "t5")
ENCODER_DECODERS = ("marian", "bart", "mbart", "t5")
SOURCE = "the cat sat on the mat ."
TARGET = "le chat est assis ."
LINES = ["the cat sat on the mat .", "a dog ran in the park .", "le chat est assis sur le tapis .",
         "un chien court dans le parc .", "hello world , how are you ?", "je suis chez moi ."] * 5
WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "in", "park", "##s", "."]
SMALL = {"encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
         "encoder_ffn_dim": 37, "decoder_ffn_dim": 37, "d_model": 32, "max_position_embeddings": 64}

_built: dict[tuple[str, str], Path] = {}


def require_hf_extra(module_level: bool = True) -> ModuleType:
    """``transformers``, or skip (the whole module with ``module_level``) when the ``[hf]`` extra is missing; in CI,
    which installs the extra (the README's test command), a missing extra fails instead."""
    try:
        import transformers
    except ImportError:
        if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
            raise
        pytest.skip("the [hf] extra is not installed: pip install -e '.[test,hf]'", allow_module_level=module_level)
    return transformers


def folder(family: str, root: Path) -> Path:
    """The folder of a tiny ``family`` model under ``root`` (built on first use)."""
    key = (family, str(root))
    if key not in _built:
        path = root / family
        path.mkdir(parents=True, exist_ok=True)
        torch.manual_seed((*FAMILIES, *ARCHITECTURES).index(family))
        from explorer.core.inspect.hf.folder import hf_session

        with hf_session():  # offline, and no progress bars on the stderr a test may be reading
            BUILDERS[family](path)
        _built[key] = path
    return _built[key]


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table (written here: no private import)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars = keep[:]
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(keep, (chr(c) for c in chars)))


def write_byte_bpe(path: Path, specials: list[str], merges: list[str]) -> dict[str, int]:
    """vocab.json + merges.txt of a byte-level BPE: ``specials``, the 256 byte symbols, then the merges."""
    vocab = {tok: i for i, tok in enumerate(specials)}
    for ch in _bytes_to_unicode().values():
        vocab.setdefault(ch, len(vocab))
    for merge in merges:
        vocab.setdefault("".join(merge.split()), len(vocab))
    (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (path / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    return vocab


MERGES = ["Ġ t", "h e", "Ġt he", "a t", "Ġ c", "Ġc at", "Ġ s", "Ġs at", "Ġ m", "Ġm at", "Ġ o", "Ġo n"]


def _spm(**kwargs: object) -> bytes:
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(LINES), model_writer=buf, vocab_size=40,
                                   hard_vocab_limit=False, character_coverage=1.0, minloglevel=2, **kwargs)
    return buf.getvalue()


def build_bert(path: Path) -> None:
    from transformers import BertConfig, BertModel, BertTokenizer

    (path / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tok = BertTokenizer(str(path / "vocab.txt"))
    cfg = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
                     vocab_size=len(tok), max_position_embeddings=64)
    BertModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def build_roberta(path: Path) -> None:
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    vocab = write_byte_bpe(path, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"], MERGES)
    tok = RobertaTokenizer(str(path / "vocab.json"), str(path / "merges.txt"))
    cfg = RobertaConfig(hidden_size=32, num_hidden_layers=3, num_attention_heads=2, intermediate_size=37,
                        vocab_size=len(vocab), max_position_embeddings=66, pad_token_id=1)
    RobertaModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def build_gpt2(path: Path) -> None:
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer

    vocab = write_byte_bpe(path, [], MERGES)
    vocab_end = len(vocab)
    vocab["<|endoftext|>"] = vocab_end
    (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tok = GPT2Tokenizer(str(path / "vocab.json"), str(path / "merges.txt"))
    cfg = GPT2Config(n_embd=32, n_layer=2, n_head=4, vocab_size=len(vocab), n_positions=64,
                     bos_token_id=vocab_end, eos_token_id=vocab_end)
    GPT2LMHeadModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def build_bart(path: Path) -> None:
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer

    vocab = write_byte_bpe(path, ["<s>", "<pad>", "</s>", "<unk>"], MERGES)
    vocab["<mask>"] = len(vocab)
    (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tok = BartTokenizer(str(path / "vocab.json"), str(path / "merges.txt"))
    cfg = BartConfig(vocab_size=len(vocab), **SMALL)
    BartForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def build_mbart(path: Path) -> None:
    from transformers import MBartConfig, MBartForConditionalGeneration, MBartTokenizer

    (path / "sentencepiece.bpe.model").write_bytes(_spm(model_type="bpe"))
    tok = MBartTokenizer.from_pretrained(path, src_lang="en_XX", tgt_lang="fr_XX")
    cfg = MBartConfig(vocab_size=len(tok), **{**SMALL, "decoder_layers": 3})  # sides of different depth
    MBartForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def build_marian(path: Path) -> None:
    import sentencepiece as spm
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    model = _spm(model_type="unigram", pad_id=-1, eos_id=-1, unk_id=0, bos_id=-1)
    (path / "source.spm").write_bytes(model)
    (path / "target.spm").write_bytes(model)
    sp = spm.SentencePieceProcessor(model_proto=model)
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(sp.get_piece_size()):
        vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tok = MarianTokenizer(source_spm=str(path / "source.spm"), target_spm=str(path / "target.spm"),
                          vocab=str(path / "vocab.json"), source_lang="en", target_lang="fr")
    cfg = MarianConfig(vocab_size=len(vocab), pad_token_id=vocab["<pad>"], eos_token_id=0,
                       decoder_start_token_id=vocab["<pad>"], forced_eos_token_id=0, **SMALL)
    MarianMTModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def build_t5(path: Path) -> None:
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    (path / "spiece.model").write_bytes(_spm(model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1))
    tok = T5Tokenizer.from_pretrained(path, extra_ids=0)
    cfg = T5Config(d_model=32, d_kv=8, d_ff=37, num_layers=2, num_decoder_layers=2, num_heads=4,
                   vocab_size=len(tok), decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)


BUILDERS: dict[str, Callable[[Path], None]] = {
    "bert": build_bert, "roberta": build_roberta, "gpt2": build_gpt2, "bart": build_bart,
    "mbart": build_mbart, "marian": build_marian, "t5": build_t5,
}


# ------------------------------------------------------------------------------------------ any architecture
#: Tiny configs of more families: each is built from its config class with random weights, beside a word-level
#: tokenizer (``tokenizers`` WordLevel in a PreTrainedTokenizerFast). ``(config class, model class, settings)``.
_DECODER = {"hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 2, "num_attention_heads": 4,
            "max_position_embeddings": 64, "vocab_size": 64, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1}
_ENCODER = {"hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 2, "num_attention_heads": 4,
            "max_position_embeddings": 64, "vocab_size": 64, "pad_token_id": 0}
#: Falcon's config names its feed-forward width and key/value heads its own way.
FALCON = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 64,
          "vocab_size": 64, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1}
ARCHITECTURES: dict[str, tuple[str, str, dict[str, object]]] = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", {**_DECODER, "num_key_value_heads": 2}),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", {**_DECODER, "vocab_size": 300, "num_key_value_heads": 1, "use_sliding_window": True,
                                                  "sliding_window": 3, "max_window_layers": 1}),
    "mistral": ("MistralConfig", "MistralForCausalLM", {**_DECODER, "num_key_value_heads": 2, "sliding_window": 4}),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", {**_DECODER, "num_key_value_heads": 1, "head_dim": 8}),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM", {**_DECODER, "num_key_value_heads": 2, "head_dim": 8,
                                                     "sliding_window": 3}),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", {**_DECODER, "num_key_value_heads": 4}),
    "gpt_neox": ("GPTNeoXConfig", "GPTNeoXForCausalLM", {**_DECODER, "rotary_pct": 0.5}),
    # Falcon-40B's layout: the config's `multi_query` (True by default) is ignored, `num_kv_heads` counts
    "falcon": ("FalconConfig", "FalconForCausalLM", {**FALCON, "new_decoder_architecture": True, "num_kv_heads": 2}),
    "opt": ("OPTConfig", "OPTForCausalLM", {"hidden_size": 32, "ffn_dim": 37, "num_hidden_layers": 2,
                                            "num_attention_heads": 4, "word_embed_proj_dim": 32,
                                            "max_position_embeddings": 64, "vocab_size": 64, "pad_token_id": 0,
                                            "bos_token_id": 2, "eos_token_id": 1}),
    "distilbert": ("DistilBertConfig", "DistilBertModel", {"dim": 32, "hidden_dim": 37, "n_layers": 2, "n_heads": 4,
                                                           "max_position_embeddings": 64, "vocab_size": 64,
                                                           "pad_token_id": 0}),
    "albert": ("AlbertConfig", "AlbertModel", {**_ENCODER, "num_hidden_layers": 3, "embedding_size": 16}),
    "electra": ("ElectraConfig", "ElectraModel", {**_ENCODER, "embedding_size": 16}),
    "deberta-v2": ("DebertaV2Config", "DebertaV2Model", {**_ENCODER, "relative_attention": True,
                                                        "pos_att_type": ["p2c", "c2p"], "position_buckets": 8,
                                                        "max_relative_positions": 16}),
    "xlm-roberta": ("XLMRobertaConfig", "XLMRobertaModel", {**_ENCODER, "pad_token_id": 0,
                                                            "max_position_embeddings": 66}),
    "pegasus": ("PegasusConfig", "PegasusForConditionalGeneration", {
        "d_model": 32, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
        "decoder_attention_heads": 4, "encoder_ffn_dim": 37, "decoder_ffn_dim": 37, "max_position_embeddings": 64,
        "vocab_size": 64, "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0}),
}
#: Types whose tokenizer transformers picks by model_type: given a byte-level BPE of that class.
BYTE_LEVEL = {"qwen2": "Qwen2Tokenizer"}
SPECIALS = ["[PAD]", "</s>", "<s>", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
TEXT_WORDS = sorted({w for line in LINES for w in line.split()})


def word_tokenizer(path: Path, template: str | None) -> None:
    """A word-level fast tokenizer saved in ``path``: ``template`` (e.g. "[CLS] $A [SEP]") adds special tokens."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate([*SPECIALS, *TEXT_WORDS])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if template:
        core.post_processor = processors.TemplateProcessing(
            single=template, special_tokens=[(t, vocab[t]) for t in SPECIALS if t in template])
    tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", eos_token="</s>",
                                  bos_token="<s>", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    tok.save_pretrained(path)


def build_architecture(name: str, path: Path) -> None:
    """A tiny random ``name`` model (see :data:`ARCHITECTURES`) and its word-level tokenizer in ``path``."""
    import transformers

    config_class, model_class, settings = ARCHITECTURES[name]
    config = getattr(transformers, config_class)(**settings)
    model = getattr(transformers, model_class)(config)
    model.save_pretrained(path)
    if name in BYTE_LEVEL:  # transformers builds these types' own tokenizer class whatever the folder names
        vocab = write_byte_bpe(path, ["<|endoftext|>"], MERGES)
        tok = getattr(transformers, BYTE_LEVEL[name])(str(path / "vocab.json"), str(path / "merges.txt"),
                                                      unk_token=None, eos_token="<|endoftext|>",
                                                      pad_token="<|endoftext|>")
        assert len(vocab) <= config.vocab_size
        tok.save_pretrained(path)
        return
    template = None if model_class.endswith("ForCausalLM") else \
        "$A </s>" if config.is_encoder_decoder else "[CLS] $A [SEP]"
    word_tokenizer(path, template)


for _name in ARCHITECTURES:
    BUILDERS[_name] = lambda path, _name=_name: build_architecture(_name, path)
ALL_ARCHITECTURES = (*FAMILIES, *ARCHITECTURES)
