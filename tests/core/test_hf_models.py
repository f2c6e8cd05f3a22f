"""Hugging Face folders behind the inspect interface: our maps equal transformers' own
``output_attentions`` for every family, tokens are the tokenizer's, generation is transformers' own."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
import hf_tiny  # noqa: E402

transformers = hf_tiny.require_hf_extra()

from explorer.core.inspect.hf.models import HFModel  # noqa: E402
from explorer.core.inspect.interface import ModelError, pooled_maps  # noqa: E402
from explorer.core.inspect.opening import open_model

ATOL = 1e-6
AUTO = {"encoder-only": "AutoModel", "decoder-only": "AutoModelForCausalLM",
        "encoder-decoder": "AutoModelForSeq2SeqLM"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "hf_tiny"


@pytest.fixture(scope="module")
def models(root: Path) -> Iterator[dict[str, HFModel]]:
    """Every family opened once through ``open_model`` (as the CLI and the studio do)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: more threads only add overhead on a shared CPU
    opened = {}
    for family in hf_tiny.FAMILIES:
        model = open_model(hf_tiny.folder(family, root))
        assert isinstance(model, HFModel)
        opened[family] = model
    yield opened
    torch.set_num_threads(threads)


def _reference(folder: Path, family: str) -> tuple[Any, Any]:
    """transformers' own model and tokenizer, loaded the plain way (eager, so attentions are returned)."""
    tok = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
    auto = getattr(transformers, AUTO[family])
    model = auto.from_pretrained(folder, local_files_only=True, attn_implementation="eager").eval()
    return model, tok


def _ids(tok: Any, text: str, **kw: Any) -> list[int]:
    return list(tok(text, **kw)["input_ids"])


@pytest.mark.parametrize("name", hf_tiny.FAMILIES)
def test_maps_equal_transformers_output_attentions(name: str, models: dict[str, HFModel], root: Path) -> None:
    model = models[name]
    info = model.describe()
    ref, tok = _reference(hf_tiny.folder(name, root), info.family)
    src_ids = _ids(tok, hf_tiny.SOURCE)
    with torch.no_grad():
        if info.family == "encoder-only":
            target = None
            out = ref(input_ids=torch.tensor([src_ids]), output_attentions=True)
            expected = {"encoder": out.attentions}
        elif info.family == "decoder-only":
            target = " on the mat"
            ids = src_ids + _ids(tok, target, add_special_tokens=False)
            out = ref(input_ids=torch.tensor([ids]), output_attentions=True)
            expected = {"decoder": out.attentions}
        else:
            target = hf_tiny.TARGET
            labels = tok(text_target=target)["input_ids"]  # transformers shifts labels to decoder inputs itself
            out = ref(input_ids=torch.tensor([src_ids]), labels=torch.tensor([labels]), output_attentions=True)
            expected = {"encoder": out.encoder_attentions, "decoder": out.decoder_attentions,
                        "cross": out.cross_attentions}
    result = model.attention(hf_tiny.SOURCE, target)
    assert result.kinds == tuple(expected) == info.kinds
    for kind, layers in expected.items():
        assert len(result.maps[kind]) == len(layers) == info.layers[kind]
        for ours, theirs in zip(result.maps[kind], layers):
            assert ours.dtype == np.float32 and ours.flags.c_contiguous
            assert ours.shape == theirs.shape[1:] and ours.shape[0] == info.heads[kind]
            np.testing.assert_allclose(ours, theirs[0].numpy(), atol=ATOL, rtol=0)
            np.testing.assert_allclose(ours.sum(-1), 1.0, atol=1e-5)
        rows, cols = result.maps[kind][0].shape[1:]
        assert (len(result.query_tokens[kind]), len(result.key_tokens[kind])) == (rows, cols)
    # the tokens are the tokenizer's own
    assert result.source_tokens == tok.convert_ids_to_tokens(src_ids)
    if info.family == "encoder-decoder":
        assert result.target_tokens == tok.convert_ids_to_tokens(tok(text_target=target)["input_ids"])
        assert len(result.decoder_input_tokens) == len(result.target_tokens)
    elif info.family == "decoder-only":
        assert result.target_tokens == tok.convert_ids_to_tokens(_ids(tok, target, add_special_tokens=False))
        assert np.all(np.triu(result.maps["decoder"][0], k=1) == 0)  # causal: no later keys
    else:
        assert result.target_tokens == []


@pytest.mark.parametrize("name", (*hf_tiny.ENCODER_DECODERS, "gpt2"))
def test_generation_is_transformers_generate(name: str, models: dict[str, HFModel], root: Path) -> None:
    model = models[name]
    family = model.describe().family
    ref, tok = _reference(hf_tiny.folder(name, root), family)
    src = torch.tensor([_ids(tok, hf_tiny.SOURCE)])
    for method, beams in (("greedy", 1), ("beam", 3)):
        ours = model.generate(hf_tiny.SOURCE, method=method, beam_width=beams, max_new_tokens=6)
        with torch.no_grad():
            theirs = ref.generate(input_ids=src, attention_mask=torch.ones_like(src), do_sample=False,
                                  num_beams=beams, max_new_tokens=6, pad_token_id=ours_pad(model))[0]
        produced = theirs[src.shape[1]:] if family == "decoder-only" else theirs[1:]
        assert ours.tokens == tok.convert_ids_to_tokens(produced.tolist()), method
        assert ours.method == method
        assert ours.attention.target_tokens == ours.tokens
        if family == "encoder-decoder":
            assert ours.attention.maps["cross"][0].shape[1] == len(ours.tokens)
    if family == "encoder-decoder":  # without a target, attention() reads the greedy output
        greedy = model.generate(hf_tiny.SOURCE)
        assert model.attention(hf_tiny.SOURCE).target_tokens == greedy.tokens


def ours_pad(model: HFModel) -> int:
    pad = model.model.generation_config.pad_token_id
    return pad if pad is not None else model.model.generation_config.eos_token_id


def test_generated_cross_attention_is_what_each_step_saw(models: dict[str, HFModel], root: Path) -> None:
    """The teacher-forced maps of the output equal transformers' per-step cross-attention while decoding."""
    model = models["marian"]
    ref, tok = _reference(hf_tiny.folder("marian", root), "encoder-decoder")
    src = torch.tensor([_ids(tok, hf_tiny.SOURCE)])
    with torch.no_grad():
        out = ref.generate(input_ids=src, do_sample=False, num_beams=1, max_new_tokens=5, output_attentions=True,
                           return_dict_in_generate=True)
    ours = model.generate(hf_tiny.SOURCE, max_new_tokens=5)
    for layer, ours_map in enumerate(ours.attention.maps["cross"]):
        steps = np.concatenate([step[layer][0].numpy() for step in out.cross_attentions], axis=1)  # (h, S, Ts)
        np.testing.assert_allclose(ours_map, steps, atol=1e-5, rtol=0)


@pytest.mark.parametrize("name", ("gpt2", "t5", "bart", "bert"))
def test_pooled_and_single_head_match_the_full_maps(name: str, models: dict[str, HFModel]) -> None:
    model = models[name]
    info = model.describe()
    target = None if info.family == "encoder-only" else "le chat"
    full = model.attention(hf_tiny.SOURCE, target)
    pooled = model.pooled_attention(hf_tiny.SOURCE, target, size=4)
    for kind in info.kinds:
        expected, q_edges, k_edges = pooled_maps(full.stacked(kind), 4)
        np.testing.assert_allclose(pooled.maps[kind], expected, atol=1e-6)
        np.testing.assert_array_equal(pooled.query_edges[kind], q_edges)
        np.testing.assert_array_equal(pooled.key_edges[kind], k_edges)
    # after a pooled pass, one head replays its layer's attention module on the recorded inputs
    assert model._replay is not None and model._replay.key == (hf_tiny.SOURCE, target)
    for kind in info.kinds:
        for layer in range(info.layers[kind]):
            head = model.head_attention(hf_tiny.SOURCE, target, kind, layer, 1)
            np.testing.assert_allclose(head, full.maps[kind][layer][1], atol=1e-6, rtol=0)
    model.forget()  # without recorded inputs: a forward pass that stops after the layer
    kind = info.kinds[-1]
    head = model.head_attention(hf_tiny.SOURCE, target, kind, info.layers[kind] - 1, 1)
    np.testing.assert_array_equal(head, full.maps[kind][-1][1])


def test_describe_names_architecture_and_sizes(models: dict[str, HFModel]) -> None:
    t5 = models["t5"].describe()
    assert (t5.architecture, t5.model_type, t5.family, t5.origin) == (
        "T5ForConditionalGeneration", "t5", "encoder-decoder", "huggingface")
    assert t5.layers == {"encoder": 2, "decoder": 2, "cross": 2} and t5.heads == {k: 4 for k in t5.kinds}
    assert t5.hidden_size == 32 and t5.max_positions is None
    assert t5.parameters == sum(p.numel() for p in models["t5"].model.parameters())
    assert models["mbart"].describe().layers == {"encoder": 2, "decoder": 3, "cross": 3}
    roberta = models["roberta"].describe()
    assert roberta.kinds == ("encoder",) and roberta.layers == {"encoder": 3} and roberta.heads == {"encoder": 2}
    assert roberta.max_positions == 64  # 66 embeddings, the first two reserved for padding
    gpt2 = models["gpt2"].describe()
    assert gpt2.kinds == ("decoder",) and gpt2.max_positions == 64 and gpt2.family == "decoder-only"
    assert "GPT2LMHeadModel (decoder-only): 2 layers × 4 heads, d=32" in gpt2.summary()


def test_questions_a_model_cannot_answer_are_refused(models: dict[str, HFModel]) -> None:
    with pytest.raises(ModelError, match="encoder-only"):
        models["bert"].attention("the cat", "a target")
    with pytest.raises(ModelError, match="encoder-only"):
        models["bert"].generate("the cat")
    with pytest.raises(ModelError, match="reads at most 64"):
        models["gpt2"].attention("the cat " * 60)
    with pytest.raises(ModelError, match="empty"):
        models["gpt2"].attention("")
    from explorer.core.inspect.hf import models as hf_models
    budget = hf_models.FULL_MAPS_BUDGET
    hf_models.FULL_MAPS_BUDGET = 100
    try:
        with pytest.raises(hf_models.MapsTooLargeError, match="would take 0.0 GB") as info:
            models["gpt2"].attention("the cat")
        assert info.value.nbytes == 2 * 4 * 3 * 3 * 4  # layers × heads × queries × keys × float32
        assert models["gpt2"].pooled_attention("the cat", size=2).maps["decoder"].shape == (2, 4, 2, 2)
    finally:
        hf_models.FULL_MAPS_BUDGET = budget
    with pytest.raises(ModelError, match="method"):
        models["t5"].generate("the cat", method="sampling")
    with pytest.raises(ModelError, match="layer 9"):
        models["t5"].head_attention("the cat", None, "cross", 9, 0)
    with pytest.raises(ModelError, match="no cross"):
        models["bert"].head_attention("the cat", None, "cross", 0, 0)
