"""Bad hyper-parameters and bad sentences: every config field at 0, negative, huge and non-numeric,
incompatible combinations, and inputs that are empty, unknown, too long or past the positional encoding —
through the core configs, decoding and the CLI. Each is a ``ConfigError``/``DatasetError``/``DecodingError``."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from robust_helpers import tiny_config, tiny_dataset
from explorer.cli.main import main as cli_main
from explorer.core.model.decoding import DecodingError, translate, translate_batch
from explorer.core.data.readers import DatasetError
from explorer.core.training.trainer import Trainer
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import ConfigError, TransformerConfig

USER_ERRORS = (ConfigError, DatasetError, DecodingError)
BAD_VALUES = {"zero": 0, "negative": -3, "text": "12", "float": 2.5, "nan": float("nan"), "bool": True,
              "none": None}
MODEL_FIELDS = ["num_hiddens", "num_layers", "num_heads", "ffn_num_hiddens", "dropout", "max_len"]
TRAIN_FIELDS = ["batch_size", "num_steps", "lr", "num_epochs", "grad_clip", "seed", "snapshot_every", "min_freq"]
#: Fields for which 0 is a meaningful value (off / no dropout / no minimum / seed 0).
ZERO_OK = {"dropout", "grad_clip", "snapshot_every", "min_freq", "seed"}
FLOAT_OK = {"dropout", "lr", "grad_clip"}


@pytest.mark.parametrize("field", MODEL_FIELDS + TRAIN_FIELDS)
@pytest.mark.parametrize("kind", list(BAD_VALUES))
def test_every_field_refuses_bad_values(field: str, kind: str) -> None:
    value = BAD_VALUES[kind]
    if (kind == "zero" and field in ZERO_OK) or (kind == "float" and field in FLOAT_OK and field != "dropout"):
        pytest.skip("a valid value for this field")
    if kind == "float" and field == "dropout":
        value = 2.5  # out of [0, 1)
    config = tiny_config()
    if field in MODEL_FIELDS:
        setattr(config.model, field, value)
    else:
        setattr(config, field, value)
    with pytest.raises(ConfigError, match=field) as info:
        config.validate()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("model, message", [
    (dict(num_hiddens=30, num_heads=4), "divisible by num_heads"),
    (dict(num_hiddens=4, num_heads=8), "divisible by num_heads"),
    (dict(max_len=5), "exceeds the model's max_len"),
])
def test_incompatible_combinations(model: dict[str, int], message: str) -> None:
    config = tiny_config(model=TransformerConfig(**model), num_steps=6)
    with pytest.raises(ConfigError, match=message):
        config.validate()


def test_dataset_and_config_disagree_on_num_steps() -> None:
    dataset = tiny_dataset(tiny_config(num_steps=8))
    with pytest.raises(ConfigError, match="rebuild it with the same num_steps"):
        Trainer(tiny_config(num_steps=6), dataset)


def test_huge_but_harmless_values_still_train() -> None:
    """Batch larger than the data, min_freq above every count (all words <unk>), snapshots never due."""
    config = tiny_config(batch_size=10**9, min_freq=10**9, snapshot_every=10**9, grad_clip=1e9, num_epochs=1)
    events = list(Trainer(config, tiny_dataset(config)))
    assert events[-1].kind == "finished" and not events[-1].stopped


@pytest.mark.parametrize("seed", [2**32, 2**64 - 1, 2**64])
def test_huge_seed(seed: int) -> None:
    """Found here: torch.manual_seed raised 'Overflow when unpacking long long' (fixed: seeds up to 2**32 - 1)."""
    with pytest.raises(ConfigError, match="seed must be at most 4294967295"):
        tiny_config(seed=seed).validate()
    config = tiny_config(seed=2**32 - 1)
    assert list(Trainer(config, tiny_dataset(config)))[-1].kind == "finished"


@pytest.mark.parametrize("huge", [dict(num_hiddens=2_000_000, num_heads=1), dict(ffn_num_hiddens=10**9),
                                  dict(max_len=10**9), dict(num_layers=10**6)])
def test_huge_model_is_a_config_error(huge: dict[str, int], monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Found here: a huge model reached the allocator (RuntimeError, a CLI traceback, or the OOM killer); fixed:
    at most 256 layers, and Trainer counts the parameters and compares with the free memory first."""
    from explorer.core.training import trainer as training
    real = training.Seq2SeqTransformer

    def guarded(config: TransformerConfig, *args: Any) -> Any:
        """Fails as the allocator would, instead of really asking for gigabytes (shapes on the meta device pass)."""
        huge_config = max(config.num_hiddens, config.ffn_num_hiddens, config.max_len) > 10**5
        if torch.get_default_device().type != "meta" and (huge_config or config.num_layers > 1000):
            raise RuntimeError("DefaultCPUAllocator: can't allocate memory (simulated)")
        return real(config, *args)

    monkeypatch.setattr(training, "Seq2SeqTransformer", guarded)
    flags = {"num_hiddens": "--num-hiddens", "num_heads": "--num-heads", "ffn_num_hiddens": "--ffn-num-hiddens",
             "num_layers": "--num-layers"}
    if "max_len" in huge:
        config = tiny_config(model=TransformerConfig(**huge))
        with pytest.raises(ConfigError):
            Trainer(config.validate(), tiny_dataset(config))
        return
    argv = ["train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1", "--device", "cpu"]
    for name, value in huge.items():
        argv += [flags[name], str(value)]
    code = cli_main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------------- CLI flags
CLI_FLAGS = ["--num-hiddens", "--num-layers", "--num-heads", "--ffn-num-hiddens", "--batch-size", "--num-steps",
             "--epochs", "--num-examples", "--seed", "--lr", "--dropout"]


@pytest.mark.parametrize("flag", CLI_FLAGS)
@pytest.mark.parametrize("value", ["0", "-3", "abc", "1e3", "nan", "", "inf"])
def test_cli_flags_refuse_bad_numbers(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    if value == "0" and flag in ("--seed", "--dropout"):
        pytest.skip("0 is valid here")
    if value == "1e3" and flag in ("--lr", "--dropout") and flag != "--dropout":
        value = "1e6"  # a parseable but impossible learning rate
    argv = ["train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1", "--device", "cpu", flag, value]
    with pytest.raises(SystemExit) as info:
        code = cli_main(argv)
        raise SystemExit(code)
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert info.value.code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and (flag.lstrip("-").replace("-", "_") in lines[0]
                                                                 or flag in lines[0] or "lr" in lines[0])


@pytest.mark.parametrize("extra, message", [
    (["--num-hiddens", "30", "--num-heads", "4"], "divisible by num_heads"),
    (["--num-steps", "5000"], "exceeds the model's max_len"),
    (["--num-steps", "1"], "num_steps must be at least 2"),
    (["--device", "tpu"], "invalid choice"),
    (["--data", "task:nonsense"], "unknown task"),
])
def test_cli_incompatible_settings(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1", "--device", "cpu", *extra]
    try:
        code = cli_main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err


# ----------------------------------------------------------------------------------- sentences
@pytest.fixture(scope="module")
def trained() -> tuple[Any, Any, Any]:
    config = tiny_config(model=TransformerConfig(num_hiddens=8, num_layers=1, num_heads=2, ffn_num_hiddens=16,
                                                 dropout=0.0, max_len=8))
    dataset = tiny_dataset(config)
    trainer = Trainer(config, dataset)
    list(trainer)
    return trainer.model, dataset.src_vocab, dataset.tgt_vocab


@pytest.mark.parametrize("sentence", ["", "   \t  ", "\n"])
@pytest.mark.parametrize("method", ["greedy", "beam"])
def test_empty_sentences(trained: Any, sentence: str, method: str) -> None:
    with pytest.raises(DatasetError, match="empty sentence"):
        translate(*trained, sentence, 6, method=method)


@pytest.mark.parametrize("method", ["greedy", "beam"])
def test_unknown_long_and_odd_sentences_translate(trained: Any, method: str) -> None:
    only_unknown = translate(*trained, "xyzzy plugh frobozz", 6, method=method)
    assert only_unknown.unknown == ["xyzzy", "plugh", "frobozz"]
    long = translate(*trained, "go " * 3333 + "home", 6, method=method)  # 10,000 characters
    assert long.src_tokens == ["go"] * 6 and long.cross_attention is not None  # cut, as the book, without <eos>
    assert long.cross_attention.shape[-1] == 6 and torch.isfinite(torch.from_numpy(long.cross_attention)).all()
    odd = translate(*trained, "\U0001F600 \u202e \x00 ..!!", 6, method=method)
    assert isinstance(odd.text, str)


def test_beyond_the_positional_encoding(trained: Any) -> None:
    model, src_vocab, tgt_vocab = trained
    with pytest.raises(DecodingError, match="max_len"):
        translate(model, src_vocab, tgt_vocab, "go .", 50)
    with pytest.raises(DecodingError, match="max_len"):
        translate(model, src_vocab, tgt_vocab, "go .", 6, method="beam", max_len=9)
    with pytest.raises(ValueError, match="8"):
        model(torch.zeros(1, 9, dtype=torch.long), torch.tensor([9]), torch.zeros(1, 9, dtype=torch.long))


@pytest.mark.parametrize("kwargs, message", [
    (dict(method="sample"), "method"), (dict(method="beam", beam_width=0), "beam width"),
    (dict(method="beam", beam_width=2.5), "beam width"), (dict(method="beam", length_penalty=float("nan")), "length"),
    (dict(max_len=0), "max_len"), (dict(max_len="5"), "max_len"),
])
def test_bad_decoding_settings(trained: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(DecodingError, match=message):
        translate(*trained, "go .", 6, **kwargs)


def test_batch_with_one_bad_sentence_names_it(trained: Any) -> None:
    assert translate_batch(*trained, [], 6) == []
    with pytest.raises(DatasetError, match="empty sentence"):
        translate_batch(*trained, ["go .", "  "], 6)


@pytest.mark.parametrize("sentence, ok", [("", False), ("   ", False), ("xyzzy plugh", True),
                                          ("go " * 3333 + "home", True)], ids=["empty", "blank", "unknown", "10k"])
@pytest.mark.parametrize("beam", ["1", "3"])
def test_cli_translate_sentences(tiny_model_file: Path, sentence: str, ok: bool, beam: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["translate", "--model", str(tiny_model_file), "--beam", beam, sentence])
    out, err = capsys.readouterr()
    if ok:
        assert code == 0 and " => " in out
        assert ("unknown word" in out) == sentence.startswith("xyzzy")
        assert ("cut to the model's" in out) == sentence.startswith("go")
    else:
        assert code == 2 and err.startswith("error: ") and "empty sentence" in err


@pytest.mark.parametrize("model", [dict(), dict(num_hiddens=12, num_layers=3, num_heads=3, ffn_num_hiddens=7,
                                                 norm_first=True, max_len=50)], ids=["book", "odd"])
def test_parameter_estimate_matches_the_real_model(model: dict[str, Any]) -> None:
    """The memory check counts parameters without building the model: it must agree with the real one."""
    from explorer.core.model.transformer import Seq2SeqTransformer, estimate_parameters

    config = TransformerConfig(**model)
    real = Seq2SeqTransformer(config, 37, 41)
    params, buffer_bytes = estimate_parameters(config, 37, 41)
    assert params == sum(p.numel() for p in real.parameters())
    assert buffer_bytes == sum(b.numel() * b.element_size() for b in real.buffers())
