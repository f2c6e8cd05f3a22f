"""Beam search as a tree: the best leaf's path is ``decoding.beam_search``'s output (ids, end,
score, cross-attention); the tree's links, statuses and beams are consistent; width 1 is greedy; the beam
choice of ``decode_steps`` walks the best path; a Hugging Face encoder–decoder grows a tree too."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.debug.beam_tree import STATUSES, beam_tree
from explorer.core.model.decoding import beam_search, translate
from explorer.core.inspect.interface import ModelError
from explorer.core.inspect.opening import open_model
from explorer.core.debug.sampling import DecodeChoice, decode_steps
from explorer.core.inspect.step_model import CheckpointSteps
from explorer.core.inspect.opening import step_model
from explorer.core.data.text import encode_sentence

sys.path.insert(0, str(Path(__file__).parent))
import debug_helpers  # noqa: E402

SOURCES = ("i lost .", "he's calm .", "go .", "i'm home .", "who ?")


@pytest.fixture(scope="module", params=[8, 60], ids=["undertrained", "trained"])
def sm(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> CheckpointSteps:
    torch.set_num_threads(1)
    m = open_model(debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_models",
                                                    epochs=request.param))
    out = step_model(m)
    assert isinstance(out, CheckpointSteps)
    return out


@pytest.mark.parametrize("width", [1, 2, 4])
def test_the_best_leaf_is_beam_searchs_output(sm: CheckpointSteps, width: int) -> None:
    vocab = sm.loaded.tgt_vocab
    for source in SOURCES:
        tree = beam_tree(sm, source, width)
        enc = encode_sentence(source, sm.loaded.src_vocab, sm.num_steps)
        found = beam_search(sm.net, enc.ids[None], torch.tensor([enc.valid_len]), vocab.bos, vocab.eos,
                            sm.num_steps, width)
        best = tree.nodes[tree.best]
        assert tree.best_ids() == found.ids and (best.status == "finished") == found.finished
        assert best.score == pytest.approx(found.score, abs=1e-9)
        path = tree.path(tree.best)
        got = np.stack([tree.nodes[n].cross_attention for n in path])  # (out_len, L, h, Ts)
        assert found.cross is not None
        np.testing.assert_allclose(got, found.cross[:, :, :, :enc.valid_len].numpy(), atol=1e-6)
        assert sm.text(tree.best_ids()) == translate(sm.net, sm.loaded.src_vocab, vocab, source, sm.num_steps,
                                                     method="beam", beam_width=width).text


def test_the_tree_is_consistent(sm: CheckpointSteps) -> None:
    tree = beam_tree(sm, "he's calm .", 3, top=4)
    assert tree.nodes[0].status == "root" and tree.nodes[0].parent is None and tree.nodes[0].token == "<bos>"
    for node in tree.nodes[1:]:
        assert node.status in STATUSES and node.parent is not None and node.parent < node.id
        parent = tree.nodes[node.parent]
        assert node.depth == parent.depth + 1 and parent.status in ("root", "kept")
        assert node.log_prob == pytest.approx(parent.log_prob + node.token_log_prob, abs=1e-5)
        assert node.score == pytest.approx(node.log_prob / node.depth ** 0.75, abs=1e-5)
        assert node.cross_attention is not None and node.cross_attention.shape == (2, 2, 4)
        np.testing.assert_allclose(node.cross_attention.sum(-1), 1.0, atol=1e-5)
        assert node.token_id not in sm.eos_ids or node.status in ("finished", "pruned")
    for t, beam in enumerate(tree.beams):
        assert 1 <= len(beam) <= 3 and all(tree.nodes[n].depth == t + 1 for n in beam)
        assert all(len(tree.nodes[n].next_ids) == 4 for n in beam if tree.nodes[n].status == "kept")
    assert all(tree.nodes[i].id == i for i in range(len(tree.nodes)))
    assert tree.children(0) == [n.id for n in tree.nodes if n.depth == 1]
    data = tree.to_dict()
    assert data["best"] == tree.best and "cross_attention" not in data["nodes"][1]


def test_width_one_is_greedy(sm: CheckpointSteps) -> None:
    for source in SOURCES:
        greedy = decode_steps(sm, source)
        tree = beam_tree(sm, source, 1, length_penalty=0.0)
        assert tree.best_ids() == [i for i in greedy.ids if i not in sm.eos_ids]


def test_decode_steps_with_beams_walks_the_best_path(sm: CheckpointSteps) -> None:
    choice = DecodeChoice("beam", beam_width=3)
    trace = decode_steps(sm, "i'm home .", choice, top=3)
    tree = beam_tree(sm, "i'm home .", 3, top=3)
    path = tree.path(tree.best)
    assert trace.ids == [tree.nodes[n].token_id for n in path] and trace.choice == choice
    for step, nid in zip(trace.steps, path):
        node = tree.nodes[nid]
        assert step.chosen_id == node.token_id and step.chosen_rank == node.rank
        assert step.top_ids == tree.nodes[node.parent or 0].next_ids
    assert trace.text == sm.text(tree.best_ids())


def test_bad_settings(sm: CheckpointSteps) -> None:
    with pytest.raises(ModelError, match="beam width"):
        beam_tree(sm, "go .", 0)
    with pytest.raises(ModelError, match="max_new_tokens"):
        beam_tree(sm, "go .", 2, max_new_tokens=0)


def test_hf_encoder_decoder_tree(tmp_path_factory: pytest.TempPathFactory) -> None:
    pytest.importorskip("transformers")
    import hf_tiny

    m = open_model(hf_tiny.folder("bart", tmp_path_factory.getbasetemp() / "hf_tiny"))
    hsm = step_model(m)
    tree = beam_tree(hsm, hf_tiny.SOURCE, 2, max_new_tokens=3)
    n_src = len(m.tokenizer(hf_tiny.SOURCE)["input_ids"])
    for node in tree.nodes[1:]:
        assert node.cross_attention is not None and node.cross_attention.shape == (2, 4, n_src)
    assert max(n.depth for n in tree.nodes) <= 3
