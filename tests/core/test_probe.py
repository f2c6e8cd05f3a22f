"""The probe pair's attention (book §11.7): identical to the trainer's snapshots, cropped and labelled,
in eval mode without touching the model's mode, and bad sentences refused with a clear error."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer.core.training.events import SnapshotEvent
from explorer.core.training.probe import encode_probe, forward_probe, probe_attention
from explorer.core.data.readers import DatasetError
from explorer.core.data.text import build_dataset
from explorer.core.training.trainer import Trainer
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import TransformerConfig

pytestmark = pytest.mark.usefixtures("one_torch_thread")

WORDS = "a b c d e f g h".split()
PAIR = ("a b c d", "d c b a")


@pytest.fixture(scope="module")
def trainer() -> Trainer:
    """A tiny trainer with dropout (so train mode would change the maps), run for a few steps."""
    rng = np.random.default_rng(1)
    pairs = []
    for _ in range(32):
        words = list(rng.choice(WORDS, size=int(rng.integers(1, 6))))
        pairs.append((" ".join(words), " ".join(reversed(words))))
    config = TrainingConfig(model=TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2,
                                                    ffn_num_hiddens=32, dropout=0.3),
                            batch_size=16, num_steps=8, num_epochs=2, snapshot_every=0, device="cpu")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    t = Trainer(config, build_dataset(pairs, 8, min_freq=1), probe=PAIR)
    for _ in t:  # 4 steps: the weights are no longer the initial ones
        pass
    torch.set_num_threads(before)
    return t


def _reference_maps(model: torch.nn.Module, src_vocab, tgt_vocab, src: str, tgt: str, steps: int) -> dict:
    """The maps as the trainer computed them before probe.py existed, written out by hand."""
    src_words = src.split() + ["<eos>"]
    tgt_words = tgt.split() + ["<eos>"]
    src_ids = src_vocab[src_words] + [src_vocab.pad] * (steps - len(src_words))
    dec_ids = [tgt_vocab.bos] + tgt_vocab[tgt_words][:-1] + [tgt_vocab.pad] * (steps - len(tgt_words))
    model.eval()
    with torch.no_grad():
        _, maps = model(torch.tensor([src_ids]), torch.tensor([len(src_words)]), torch.tensor([dec_ids]),
                        need_weights=True)
    model.train()
    ns, nt = len(src_words), len(tgt_words)
    return {"encoder": np.stack([m[0, :, :ns, :ns].numpy() for m in maps.encoder]),
            "decoder": np.stack([m[0, :, :nt, :nt].numpy() for m in maps.decoder]),
            "cross": np.stack([m[0, :, :nt, :ns].numpy() for m in maps.cross])}


def test_identical_to_the_trainer_snapshot_and_to_a_hand_written_pass(trainer: Trainer) -> None:
    trainer.model.train()
    snap = trainer.snapshot()
    probed = probe_attention(trainer.model, trainer.src_vocab, trainer.tgt_vocab, *PAIR, 8, "cpu",
                             step=trainer.step, epoch=trainer.epoch)
    assert trainer.model.training  # the mode is restored
    reference = _reference_maps(trainer.model, trainer.src_vocab, trainer.tgt_vocab, *PAIR, 8)
    assert isinstance(probed, SnapshotEvent) and (probed.step, probed.epoch) == (snap.step, snap.epoch) == (4, 2)
    assert probed.src_tokens == snap.src_tokens == ["a", "b", "c", "d", "<eos>"]
    assert probed.tgt_tokens == snap.tgt_tokens == ["d", "c", "b", "a", "<eos>"]
    assert probed.tgt_input_tokens == snap.tgt_input_tokens == ["<bos>", "d", "c", "b", "a"]
    for kind, expected in reference.items():
        assert probed.maps[kind].dtype == np.float32 and probed.maps[kind].shape == expected.shape
        np.testing.assert_array_equal(probed.maps[kind], snap.maps[kind])
        np.testing.assert_array_equal(probed.maps[kind], expected)
    assert reference["cross"].shape == (2, 2, 5, 5)
    np.testing.assert_allclose(probed.maps["cross"].sum(-1), 1.0, rtol=1e-5)


def test_eval_mode_makes_repeated_probes_equal_and_owns_its_arrays(trainer: Trainer) -> None:
    args = (trainer.model, trainer.src_vocab, trainer.tgt_vocab, "b a", "a b", 8)
    first, second = probe_attention(*args), probe_attention(*args)  # dropout 0.3 would differ in train mode
    for kind in first.maps:
        np.testing.assert_array_equal(first.maps[kind], second.maps[kind])
    first.maps["cross"][:] = 7.0
    assert not np.any(probe_attention(*args).maps["cross"] == 7.0)


def test_long_sentences_are_truncated_and_unknown_words_keep_their_labels(trainer: Trainer) -> None:
    snap = probe_attention(trainer.model, trainer.src_vocab, trainer.tgt_vocab, "a b c d e f g h a b c",
                           "zzz yyy", 8)
    assert snap.src_tokens == ["a", "b", "c", "d", "e", "f", "g", "h"]  # num_steps, <eos> cut off
    assert snap.maps["encoder"].shape == (2, 2, 8, 8)
    assert snap.tgt_tokens == ["zzz", "yyy", "<eos>"] and snap.maps["cross"].shape == (2, 2, 3, 8)


def test_encode_then_forward_equals_probe_attention(trainer: Trainer) -> None:
    probe = encode_probe(trainer.src_vocab, trainer.tgt_vocab, *PAIR, 8)
    assert probe.src.shape == probe.dec_input.shape == (1, 8) and probe.src_valid_len.tolist() == [5]
    direct = forward_probe(trainer.model, probe)
    np.testing.assert_array_equal(direct.maps["decoder"],
                                  probe_attention(trainer.model, trainer.src_vocab, trainer.tgt_vocab, *PAIR, 8)
                                  .maps["decoder"])


@pytest.mark.parametrize("src, tgt", [("", "a"), ("a", "   "), (None, "a")])
def test_bad_sentences_raise_a_dataset_error(trainer: Trainer, src, tgt) -> None:
    with pytest.raises(DatasetError):
        probe_attention(trainer.model, trainer.src_vocab, trainer.tgt_vocab, src, tgt, 8)
