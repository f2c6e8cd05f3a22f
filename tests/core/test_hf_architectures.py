"""Any transformers architecture that returns attention opens without a list of architectures: tiny random models
of twenty families (decoders with grouped-query attention, rotary positions and sliding windows, encoders with
shared or relative-position attention, encoder–decoders); maps equal transformers' own ``output_attentions``."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

sys.path.insert(0, str(Path(__file__).parent))
import hf_tiny  # noqa: E402

transformers = hf_tiny.require_hf_extra()

from explorer.core.inspect.hf.folder import hf_session  # noqa: E402
from explorer.core.inspect.hf.models import HFModel  # noqa: E402
from explorer.core.inspect.hf.taps import find_taps  # noqa: E402
from explorer.core.inspect.interface import masked_bins, pooled_maps  # noqa: E402
from explorer.core.inspect.opening import open_model  # noqa: E402

ATOL = 1e-5
SOURCE = "the cat sat on the mat . a dog ran in the park ."
TARGET = "le chat est assis ."
AUTO = {"encoder-only": "AutoModel", "decoder-only": "AutoModelForCausalLM",
        "encoder-decoder": "AutoModelForSeq2SeqLM"}
FAMILY = {"bert": "encoder-only", "roberta": "encoder-only", "distilbert": "encoder-only", "albert": "encoder-only",
          "electra": "encoder-only", "deberta-v2": "encoder-only", "xlm-roberta": "encoder-only",
          "marian": "encoder-decoder", "bart": "encoder-decoder", "mbart": "encoder-decoder", "t5": "encoder-decoder",
          "pegasus": "encoder-decoder"}
FIELDS = {"encoder-only": (("attentions", "encoder"),), "decoder-only": (("attentions", "decoder"),),
          "encoder-decoder": (("encoder_attentions", "encoder"), ("decoder_attentions", "decoder"),
                              ("cross_attentions", "cross"))}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: more threads only add overhead on a shared CPU
    yield tmp_path_factory.getbasetemp() / "hf_tiny"
    torch.set_num_threads(threads)


def reference(folder: Path, family: str, source: str, target: str | None) -> tuple[list[str], list[str], dict]:
    """transformers' own maps and tokens, loaded the plain way: ``(source tokens, decoder tokens, {kind: [L]})``."""
    tok = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = getattr(transformers, AUTO[family]).from_pretrained(folder, local_files_only=True,
                                                                attn_implementation="eager").eval()
    ids = list(tok(source)["input_ids"])
    kwargs: dict[str, Any] = {}
    decoder: list[int] = []
    if family == "decoder-only" and target:
        ids += list(tok(target, add_special_tokens=False)["input_ids"])
    if family == "encoder-decoder":
        labels = torch.tensor([tok(text_target=target)["input_ids"]])  # (1, Tt)
        kwargs["decoder_input_ids"] = model.prepare_decoder_input_ids_from_labels(labels=labels)
        decoder = kwargs["decoder_input_ids"][0].tolist()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False, **kwargs)
    maps = {kind: [w[0].numpy() for w in getattr(out, name)] for name, kind in FIELDS[family]}
    return tok.convert_ids_to_tokens(ids), tok.convert_ids_to_tokens(decoder), maps


def max_difference(name: str, root: Path) -> tuple[float, HFModel]:
    """Open ``name`` through ``open_model`` and return the largest difference from transformers' maps."""
    folder = hf_tiny.folder(name, root)
    model = open_model(folder)
    assert isinstance(model, HFModel)
    info = model.describe()
    assert info.family == FAMILY.get(name, "decoder-only")
    target = TARGET if info.family != "encoder-only" else None
    tokens, decoder_tokens, expected = reference(folder, info.family, SOURCE, target)
    ours = model.attention(SOURCE, target)
    both = ours.source_tokens + ours.target_tokens if info.family == "decoder-only" else ours.source_tokens
    assert both == tokens  # the tokenizer's own tokens
    if info.family == "encoder-decoder":
        assert ours.decoder_input_tokens == decoder_tokens
    assert ours.kinds == tuple(expected) and info.kinds == tuple(expected)
    worst = 0.0
    for kind, layers in expected.items():
        assert info.layers[kind] == len(layers) and info.heads[kind] == layers[0].shape[0]
        for mine, theirs in zip(ours.maps[kind], layers, strict=True):
            assert mine.shape == theirs.shape
            worst = max(worst, float(np.abs(mine - theirs).max()))
    return worst, model


@pytest.mark.parametrize("name", hf_tiny.ALL_ARCHITECTURES)
def test_maps_equal_transformers_output_attentions(name: str, root: Path) -> None:
    worst, model = max_difference(name, root)
    assert worst <= ATOL
    # the long-text path: pooled layer by layer, then one head again from the recorded inputs
    full = model.attention(SOURCE, TARGET if model.family != "encoder-only" else None)
    target = TARGET if model.family != "encoder-only" else None
    pooled = model.pooled_attention(SOURCE, target, size=4)
    kind = full.kinds[-1]
    np.testing.assert_allclose(pooled.maps[kind], pooled_maps(full.stacked(kind), 4)[0], atol=1e-6)
    last = model.describe().layers[kind] - 1
    np.testing.assert_allclose(model.head_attention(SOURCE, target, kind, last, 1), full.maps[kind][last][1],
                               atol=1e-6)


def test_grouped_query_heads_name_the_key_value_head_they_share(root: Path) -> None:
    llama = open_model(hf_tiny.folder("llama", root)).describe()  # 4 query heads, 2 key/value heads
    assert llama.kv_heads == {"decoder": 2}
    assert [llama.kv_head("decoder", h) for h in range(4)] == [0, 0, 1, 1]
    qwen = open_model(hf_tiny.folder("qwen2", root)).describe()  # multi-query: one key/value head
    assert qwen.kv_heads == {"decoder": 1} and {qwen.kv_head("decoder", h) for h in range(4)} == {0}
    gpt2 = open_model(hf_tiny.folder("gpt2", root)).describe()
    assert gpt2.kv_heads == {} and gpt2.kv_head("decoder", 3) is None


class _ScoreKeys(TorchFunctionMode):
    """Records the key operand of every attention-score product ``query (B, h, T, d) @ keyᵀ (B, kv, d, T)``."""

    def __init__(self, heads: int, head_dim: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        self.keys: list[torch.Tensor] = []

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        if func in (torch.matmul, torch.Tensor.__matmul__, torch.Tensor.matmul) and len(args) == 2:
            query, key_t = args
            if query.dim() == 4 and query.shape[1] == self.heads and query.shape[-1] == self.head_dim \
                    and key_t.shape[-2] == self.head_dim:
                self.keys.append(key_t.transpose(-1, -2).detach().clone())  # (B, kv, T, d)
        return func(*args, **(kwargs or {}))


def shared_keys(model: Any, heads: int, head_dim: int) -> list[list[int]]:
    """Per layer, for each query head the first head whose keys equal its own: what the model really shares."""
    ids = torch.tensor([[4, *range(8, 20)]])  # 13 tokens: not the head width, so only the score product matches
    recorder = _ScoreKeys(heads, head_dim)
    with torch.no_grad(), recorder:
        model(input_ids=ids, output_attentions=True, use_cache=False)
    owners = []
    for key in recorder.keys:
        key = key.expand(key.shape[0], heads, *key.shape[2:])  # (B, h, T, d): one key/value head broadcast
        owners.append([next(j for j in range(heads) if torch.equal(key[:, j], key[:, h])) for h in range(heads)])
    return owners


@pytest.mark.parametrize(("settings", "kv"), [
    ({"new_decoder_architecture": True, "num_kv_heads": 2}, 2),  # Falcon-40B: multi_query (True) is ignored
    ({"new_decoder_architecture": True, "num_kv_heads": 4}, None),
    ({"multi_query": True}, 1),  # Falcon-7B: num_kv_heads (defaulting to the heads) is ignored
    ({"multi_query": False}, None),
])
def test_falcon_heads_name_the_key_value_head_the_model_really_shares(settings: dict[str, Any], kv: int | None,
                                                                         tmp_path: Path) -> None:
    torch.manual_seed(0)
    config = transformers.FalconConfig(**hf_tiny.FALCON, **settings)
    with hf_session():  # offline, no progress bars
        transformers.FalconForCausalLM(config).save_pretrained(tmp_path)
    hf_tiny.word_tokenizer(tmp_path, None)
    model = open_model(tmp_path)
    info = model.describe()
    assert info.kv_heads == ({"decoder": kv} if kv else {})
    owners = shared_keys(model.model, 4, 8)
    assert len(owners) == 2  # one score product per layer
    first_of = {}  # the first query head of each key/value head the app names
    named = [first_of.setdefault(info.kv_head("decoder", h), h) if kv else h for h in range(4)]
    assert owners == [named, named]


def test_albert_layers_are_counted_by_call(root: Path) -> None:
    model = open_model(hf_tiny.folder("albert", root))
    assert isinstance(model, HFModel)
    taps = find_taps(model.model)
    assert len({id(module) for module, _, _ in taps}) == 1  # one module shared by every layer
    assert [(kind, layer) for _, kind, layer in taps] == [("encoder", 0), ("encoder", 1), ("encoder", 2)]
    maps = model.attention(SOURCE).maps["encoder"]
    assert len(maps) == 3 and not np.allclose(maps[0], maps[2])  # each call its own layer's map


@pytest.mark.parametrize(("name", "windows"), [("mistral", (4, 4)), ("qwen2", (0, 3)), ("gemma2", (3, 0))])
def test_sliding_windows_mask_exactly_the_band_transformers_masks(name: str, windows: tuple[int, ...],
                                                                  root: Path) -> None:
    model = open_model(hf_tiny.folder(name, root))
    info = model.describe()
    assert info.windows == {"decoder": windows}
    maps = model.attention(SOURCE).maps["decoder"]
    for layer, window in enumerate(windows):
        q, k = maps[layer].shape[1:]
        masked = masked_bins(window, q, k)  # (q, k): later keys, and keys `window` or more behind
        assert masked.sum() > q * (q - 1) // 2 if window else masked.sum() == q * (q - 1) // 2
        assert (maps[layer][:, masked] == 0).all() and (maps[layer][:, ~masked] > 0).all()
    pooled = masked_bins(3, 16, 16, 4, 4)  # whole bins only: the bin on the diagonal is never masked
    assert pooled.shape == (4, 4) and not pooled.diagonal().any() and pooled[3, 0] and pooled[0, 3]
