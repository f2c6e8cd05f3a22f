"""``Seq2SeqTransformer.from_weights``: the model a checkpoint or a paused run's weights rebuild, without drawing random
weights first; equal to one built and loaded, drawing nothing from torch's generator, and fast in a fresh process
(shapes on ``meta`` never reach a draw there, which imports ``torch._dynamo``)."""
from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

CONFIG = TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=32, dropout=0.0, max_len=50)


def _weights() -> dict[str, torch.Tensor]:
    torch.manual_seed(3)
    return {name: t.detach().clone() for name, t in Seq2SeqTransformer(CONFIG, 20, 30).state_dict().items()}


def test_the_rebuilt_model_equals_one_built_and_loaded_and_draws_nothing() -> None:
    weights = _weights()
    loaded = Seq2SeqTransformer(CONFIG, 20, 30)
    loaded.load_state_dict(weights)
    state = torch.get_rng_state()
    rebuilt = Seq2SeqTransformer.from_weights(CONFIG, 20, 30, weights)
    assert torch.equal(torch.get_rng_state(), state)  # no weights drawn and thrown away
    assert all(not t.is_meta for t in (*rebuilt.parameters(), *rebuilt.buffers()))
    assert all(p.requires_grad for p in rebuilt.parameters())
    for name, buffer in loaded.named_buffers():  # the positional encodings, not saved: computed
        torch.testing.assert_close(dict(rebuilt.named_buffers())[name], buffer, rtol=0, atol=0)
    src, dec, lengths = torch.randint(0, 20, (3, 7)), torch.randint(0, 30, (3, 5)), torch.tensor([7, 3, 5])
    with torch.no_grad():
        expected, _ = loaded.eval()(src, lengths, dec)
        got, _ = rebuilt.eval()(src, lengths, dec)
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_tensors_are_cast_to_the_models_dtypes_and_wrong_ones_refused() -> None:
    weights = _weights()
    rebuilt = Seq2SeqTransformer.from_weights(CONFIG, 20, 30, {k: v.double() for k, v in weights.items()})
    assert {p.dtype for p in rebuilt.parameters()} == {torch.float32}
    missing = dict(weights)
    missing.pop(next(iter(missing)))
    with pytest.raises(RuntimeError, match="Missing key"):
        Seq2SeqTransformer.from_weights(CONFIG, 20, 30, missing)
    with pytest.raises(RuntimeError, match="size mismatch"):
        Seq2SeqTransformer.from_weights(CONFIG, 21, 30, weights)


def test_a_fresh_process_rebuilds_without_importing_dynamo() -> None:
    code = (
        "import sys, torch\n"
        "from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig\n"
        "c = TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=32)\n"
        "w = Seq2SeqTransformer(c, 20, 30).state_dict()\n"
        "Seq2SeqTransformer.from_weights(c, 20, 30, w)\n"
        "with torch.device('meta'):\n"
        "    Seq2SeqTransformer(c, 20, 30)\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False", out.stderr
