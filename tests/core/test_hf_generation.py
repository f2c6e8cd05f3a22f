"""Generation on Hugging Face models, decoder-only included, through the one decoding loop: greedy and beam search
give transformers' own token ids, each step's attention row equals the last row of a full pass over the prompt and
the tokens before it, decoding feeds one token per step on the key/value cache (beams reorder it), and a model
whose cache fails (a T5 with more decoder than encoder layers) decodes without it."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
import hf_tiny  # noqa: E402

transformers = hf_tiny.require_hf_extra()

import hf_gen_tiny  # noqa: E402

from explorer.cli.main import main as cli_main  # noqa: E402
from explorer.core.debug.beam_tree import beam_tree  # noqa: E402
from explorer.core.debug.sampling import DecodeChoice, decode_steps  # noqa: E402
from explorer.core.inspect.hf.models import HFModel  # noqa: E402
from explorer.core.inspect.hf.steps import HFSteps  # noqa: E402
from explorer.core.inspect.opening import open_model, step_model  # noqa: E402

DECODERS = tuple(hf_gen_tiny.DECODERS)
ATOL = 1e-5


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "hf_gen_tiny"


@pytest.fixture(scope="module")
def opened(root: Path) -> dict[str, HFModel]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: more threads only add overhead on a shared CPU
    models = {name: open_model(hf_gen_tiny.folder(name, root)) for name in (*DECODERS, "t5_deep")}
    yield models  # type: ignore[misc]
    torch.set_num_threads(threads)


def _reference(folder: Path, seq2seq: bool = False) -> Any:
    """transformers' own model, loaded the plain way (eager, so attentions are returned)."""
    auto = transformers.AutoModelForSeq2SeqLM if seq2seq else transformers.AutoModelForCausalLM
    return auto.from_pretrained(folder, local_files_only=True, attn_implementation="eager").eval()


def _prompt(model: HFModel) -> torch.Tensor:
    return torch.tensor([model.tokenizer(hf_gen_tiny.PROMPT)["input_ids"]])  # (1, n)


def _fed(model: HFModel) -> tuple[list[tuple[int, ...]], Any]:
    """The shapes of the token ids the model's embedding reads, call by call, and the hook's handle."""
    shapes: list[tuple[int, ...]] = []
    handle = model.model.get_input_embeddings().register_forward_pre_hook(
        lambda _module, args: shapes.append(tuple(args[0].shape)))
    return shapes, handle


@pytest.mark.parametrize("name", DECODERS)
def test_greedy_is_transformers_greedy(name: str, opened: dict[str, HFModel], root: Path) -> None:
    model = opened[name]
    ref = _reference(hf_gen_tiny.folder(name, root))
    prompt = _prompt(model)
    trace = decode_steps(step_model(model), hf_gen_tiny.PROMPT, max_new_tokens=8)
    with torch.no_grad():
        out = ref.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                           max_new_tokens=8, pad_token_id=ref.config.eos_token_id)
    assert trace.ids == out[0, prompt.shape[1]:].tolist()
    assert trace.attends == "decoder" and all(s.cross_attention is None for s in trace.steps)


@pytest.mark.parametrize("name", DECODERS)
def test_each_step_attends_as_the_last_row_of_a_full_pass(name: str, opened: dict[str, HFModel],
                                                         root: Path) -> None:
    model = opened[name]
    ref = _reference(hf_gen_tiny.folder(name, root))
    prompt = _prompt(model)[0].tolist()
    trace = decode_steps(step_model(model), hf_gen_tiny.PROMPT, DecodeChoice("sample", seed=3), max_new_tokens=6)
    for t, step in enumerate(trace.steps):
        ids = torch.tensor([prompt + trace.ids[:t]])  # (1, n + t): the prompt and the tokens before step t
        with torch.no_grad():
            full = ref(input_ids=ids, use_cache=False, output_attentions=True)
        expected = torch.stack([a[0, :, -1] for a in full.attentions]).numpy()  # (L, h, n + t)
        assert step.self_attention is not None and step.self_attention.shape == expected.shape
        np.testing.assert_allclose(step.self_attention, expected, atol=ATOL, rtol=0)
        np.testing.assert_allclose(step.top_probs, torch.softmax(full.logits[0, -1], -1)[step.top_ids].numpy(),
                                   atol=ATOL, rtol=0)
        assert trace.key_tokens(t) == model.tokenizer.convert_ids_to_tokens(ids[0].tolist())
    if name == "mistral":  # keys left behind by the sliding window get no attention, but stay in the row
        last = trace.steps[-1].self_attention
        window = hf_gen_tiny.DECODERS["mistral"]["sliding_window"]
        assert last.shape[-1] > window and np.all(last[..., :-window] == 0) and np.all(last[..., -1] > 0)


@pytest.mark.parametrize("name", (*DECODERS, "t5_deep"))
def test_beams_on_the_cache_equal_beams_without_it(name: str, opened: dict[str, HFModel]) -> None:
    model = opened[name]
    cached = beam_tree(HFSteps(model), hf_gen_tiny.PROMPT, 3, length_penalty=0.0, max_new_tokens=5)
    plain = beam_tree(HFSteps(model, cache=False), hf_gen_tiny.PROMPT, 3, length_penalty=0.0, max_new_tokens=5)
    assert [(n.parent, n.token_id, n.status) for n in cached.nodes] == \
        [(n.parent, n.token_id, n.status) for n in plain.nodes]
    for a, b in zip(cached.nodes[1:], plain.nodes[1:]):
        assert a.log_prob == pytest.approx(b.log_prob, abs=1e-5)
        assert a.attention is not None and a.attention.shape == b.attention.shape
        np.testing.assert_allclose(a.attention, b.attention, atol=ATOL, rtol=0)
    if name != "t5_deep":  # the prompt and the path before each node are the keys of its row
        node = cached.nodes[cached.best]
        assert len(cached.key_tokens(node.id)) == node.self_attention.shape[-1]


@pytest.mark.parametrize("name", ("llama", "gpt2"))
def test_beam_is_transformers_beam_search(name: str, opened: dict[str, HFModel], root: Path) -> None:
    model = opened[name]
    ref = _reference(hf_gen_tiny.folder(name, root))
    prompt = _prompt(model)
    tree = beam_tree(step_model(model), hf_gen_tiny.PROMPT, 3, length_penalty=0.0, max_new_tokens=6)
    with torch.no_grad():
        out = ref.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), do_sample=False, num_beams=3,
                           length_penalty=0.0, max_new_tokens=6, pad_token_id=ref.config.eos_token_id)
    path = [tree.nodes[i].token_id for i in tree.path(tree.best)]  # its end token included, as transformers'
    assert path == out[0, prompt.shape[1]:].tolist()


@pytest.mark.parametrize("name", ("llama", "mistral"))
def test_each_step_feeds_one_token_per_hypothesis(name: str, opened: dict[str, HFModel]) -> None:
    model = opened[name]
    n = _prompt(model).shape[1]
    shapes, handle = _fed(model)
    try:
        decode_steps(step_model(model), hf_gen_tiny.PROMPT, max_new_tokens=5)
        greedy = list(shapes)
        shapes.clear()
        beam_tree(step_model(model), hf_gen_tiny.PROMPT, 3, max_new_tokens=4)
        beams = list(shapes)
        shapes.clear()
        step_model(model).translate([hf_gen_tiny.PROMPT])  # what an ablation sweep runs for each sentence
        sweep = list(shapes)
    finally:
        handle.remove()
    assert greedy == [(1, n - 1)] + [(1, 1)] * 5  # the prompt once, then one token a step
    assert beams == [(1, n - 1), (1, 1)] + [(3, 1)] * 3
    assert sweep[0] == (1, n - 1) and set(sweep[1:]) == {(1, 1)}


def test_t5_with_a_deeper_decoder_decodes(opened: dict[str, HFModel], root: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """transformers' own cache is built for the encoder's two layers; our steps and the CLI still decode."""
    folder = hf_gen_tiny.folder("t5_deep", root)
    model, ref = opened["t5_deep"], _reference(folder, seq2seq=True)
    src = torch.tensor([model.tokenizer(hf_gen_tiny.PROMPT)["input_ids"]])
    with torch.no_grad():
        expected = ref.generate(input_ids=src, attention_mask=torch.ones_like(src), do_sample=False,
                                max_new_tokens=6, use_cache=False)[0, 1:].tolist()
    trace = decode_steps(step_model(model), hf_gen_tiny.PROMPT, max_new_tokens=6)
    assert trace.ids == expected and trace.attends == "cross"
    assert trace.steps[0].cross_attention.shape == (3, 4, src.shape[1])
    out = tmp_path / "maps.npz"
    code = cli_main(["attention", "--model", str(folder), "--source", hf_gen_tiny.PROMPT, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err + captured.out
    with np.load(out) as z:
        assert [f"decoder.{i}" in z.files for i in range(3)] == [True] * 3


def test_a_failing_cache_hands_over_to_full_passes(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = open_model(hf_gen_tiny.folder("llama", root))  # its own copy: the failure is remembered per model
    expected = decode_steps(HFSteps(model), hf_gen_tiny.PROMPT, max_new_tokens=5)
    calls = {"n": 0}
    update = transformers.DynamicCache.update

    def fail_at_the_third_step(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] > 2 * 3:  # the prompt and two steps fill the cache of both layers, then it breaks
            raise IndexError("list index out of range")
        return update(self, *args, **kwargs)

    monkeypatch.setattr(transformers.DynamicCache, "update", fail_at_the_third_step)
    sm = HFSteps(model)
    got = decode_steps(sm, hf_gen_tiny.PROMPT, max_new_tokens=5)
    assert got.ids == expected.ids and not sm.use_cache and not HFSteps(model).use_cache
    for a, b in zip(got.steps, expected.steps):
        np.testing.assert_allclose(a.self_attention, b.self_attention, atol=ATOL, rtol=0)


def test_steps_hold_the_models_lock_for_each_pass(opened: dict[str, HFModel]) -> None:
    """An inspection on another thread hooks the same modules: every pass of the steps runs under the model's lock."""
    for name in ("llama", "t5_deep"):
        model = opened[name]
        held: list[bool] = []
        handles = [m.register_forward_pre_hook(lambda _module, _args: held.append(model.lock.locked()))
                   for m in model.model.modules() if isinstance(m, torch.nn.Embedding)]
        try:
            sm = step_model(model)
            beam_tree(sm, hf_gen_tiny.PROMPT, 2, max_new_tokens=3)
            sm.loss([(hf_gen_tiny.PROMPT, "le chat")])
        finally:
            for handle in handles:
                handle.remove()
        assert held and all(held), name


def test_heads_switched_off_act_on_cached_steps_as_on_full_passes(opened: dict[str, HFModel]) -> None:
    from explorer.core.debug.head_ablation import ablated

    model = opened["llama"]
    base = decode_steps(HFSteps(model), hf_gen_tiny.PROMPT, max_new_tokens=6)
    with ablated(model, [("decoder", 0, 1), ("decoder", 1, 0)]):
        cached = decode_steps(HFSteps(model), hf_gen_tiny.PROMPT, max_new_tokens=6)
        plain = decode_steps(HFSteps(model, cache=False), hf_gen_tiny.PROMPT, max_new_tokens=6)
    assert cached.ids == plain.ids != base.ids  # what an ablation sweep's translations rest on
    for a, b in zip(cached.steps, plain.steps):
        np.testing.assert_allclose(a.top_probs, b.top_probs, atol=ATOL, rtol=0)
