"""Folders as people have them: a config without model_type, only a vocab.txt, no tokenizer (token ids then),
texts read as written, unknown tokens counted, and transformers kept quiet."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import hf_folders  # noqa: E402
import hf_tiny  # noqa: E402

hf_tiny.require_hf_extra()

from explorer.core.data.readers import read_pairs  # noqa: E402
from explorer.core.debug.texts import texts_for  # noqa: E402
from explorer.core.inspect.given_tokens import GivenTokens  # noqa: E402
from explorer.core.inspect.hf.folder import HFModelError  # noqa: E402
from explorer.core.inspect.interface import ModelError  # noqa: E402
from explorer.core.inspect.opening import open_model  # noqa: E402
from explorer.core.inspect.token_roles import count_unknown, special_tokens  # noqa: E402


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny")


@pytest.fixture(scope="module")
def reference(bert: Path):
    return open_model(bert)


def test_model_type_inferred_from_architectures(bert: Path, tmp_path: Path, reference,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    folder = hf_folders.without_model_type(hf_folders.copied(bert, tmp_path / "m"), ["BertForMaskedLM"])
    model = open_model(folder)
    assert model.describe().model_type == "bert"
    ours, theirs = model.attention(hf_tiny.SOURCE), reference.attention(hf_tiny.SOURCE)
    assert ours.source_tokens == theirs.source_tokens
    for a, b in zip(ours.maps["encoder"], theirs.maps["encoder"]):
        np.testing.assert_array_equal(a, b)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # the load report of a head-less checkpoint stays inside transformers


def test_without_model_type_the_message_names_the_line_to_add(bert: Path, tmp_path: Path) -> None:
    folder = hf_folders.without_model_type(hf_folders.copied(bert, tmp_path / "m"))
    with pytest.raises(HFModelError, match='add a line such as "model_type": "bert"'):
        open_model(folder)
    hf_folders.prefixed_weights(folder, "bert")  # the weights' names give the family away
    with pytest.raises(HFModelError, match=r'add the line "model_type": "bert", to config.json \(its weights are '
                                           r'named bert\.\*\)'):
        open_model(folder)
    hf_folders.without_model_type(folder, ["NoSuchNetForEverything"])
    with pytest.raises(HFModelError, match="no architecture transformers knows"):
        open_model(folder)


def test_only_a_vocab_txt(bert: Path, tmp_path: Path, reference) -> None:
    folder = hf_folders.vocab_only(hf_folders.copied(bert, tmp_path / "m"))
    model = open_model(folder)
    from transformers import BertTokenizer

    expected = BertTokenizer(str(folder / "vocab.txt"))
    text = "the cats sat on a mat ."
    assert model.attention(text).source_tokens == expected.convert_ids_to_tokens(expected(text)["input_ids"])
    assert model.attention(text).source_tokens == reference.attention(text).source_tokens


def test_no_tokenizer_reads_token_ids(bert: Path, tmp_path: Path, reference) -> None:
    folder = hf_folders.no_tokenizer(hf_folders.copied(bert, tmp_path / "m"))
    model = open_model(folder)
    with pytest.raises(ModelError, match="has no tokenizer.*--token-ids"):
        model.attention("the cat")
    ids = reference.tokenizer(hf_tiny.SOURCE)["input_ids"]
    ours = model.attention(GivenTokens(ids=tuple(ids)))
    assert ours.source_tokens == [str(i) for i in ids]
    theirs = reference.attention(hf_tiny.SOURCE)
    for a, b in zip(ours.maps["encoder"], theirs.maps["encoder"]):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ModelError, match="token id 999 does not exist"):
        model.attention(GivenTokens(ids=(2, 999)))


def test_pre_split_tokens_are_read_as_given(reference) -> None:
    result = reference.attention(GivenTokens(tokens=("[CLS]", "cat", "##s", "sat", "[SEP]")))
    assert result.source_tokens == ["[CLS]", "cat", "##s", "sat", "[SEP]"]
    assert special_tokens(reference) >= {"[CLS]", "[SEP]"} and "[UNK]" not in special_tokens(reference)


def test_unknown_tokens_are_counted(reference) -> None:
    few = count_unknown(reference, reference.attention("the cat sat on the mat .").source_tokens)
    many = count_unknown(reference, reference.attention("zebras and quokkas sat on the mat .").source_tokens)
    assert few.unknown == 0 and not few.many
    assert many.unknown > 0 and many.many and "[UNK]" in many.warning() and "%" in many.warning()


def test_a_sentence_file_is_read_as_written_for_a_model_with_a_tokenizer(reference, tmp_path: Path) -> None:
    data = tmp_path / "texts.txt"
    data.write_text("The Cat sat.\tLe Chat.\nOne text alone,  with two spaces!\n", encoding="utf-8")
    assert read_pairs(data, as_written=True).pairs == [("The Cat sat.", "Le Chat."),
                                                        ("One text alone,  with two spaces!", "")]
    assert texts_for(reference, data) == read_pairs(data, as_written=True).pairs
    assert read_pairs(data).pairs == [("the cat sat .", "le chat .")]  # the book's preprocessing, for our models


def test_what_transformers_logs_while_a_model_runs_stays_inside(reference) -> None:
    from transformers.utils import logging as hf_logging

    seen: list[int] = []
    handle = reference.model.register_forward_pre_hook(lambda *_: seen.append(hf_logging.get_verbosity()))
    before = hf_logging.get_verbosity()
    try:
        reference.attention(hf_tiny.SOURCE)
    finally:
        handle.remove()
    assert seen and all(level == hf_logging.ERROR for level in seen)  # warnings and advice are not shown
    assert hf_logging.get_verbosity() == before  # and the user's own setting comes back
