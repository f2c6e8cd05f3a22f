"""Text pipeline: the book's preprocessing, Vocab ordering, truncate/pad and dataset tensors,
checked against small independent computations."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.data.readers import DatasetError, preprocess_nmt

from explorer.core.data.text import Vocab, build_dataset, encode_sentence, tokenize, truncate_pad


def reference_preprocess(text: str) -> str:
    """The book's rule spelled out character by character."""
    text = text.replace("\u202f", " ").replace("\xa0", " ").lower()
    out = []
    for i, ch in enumerate(text):
        if i > 0 and ch in ",.!?" and text[i - 1] != " ":
            out.append(" ")
        out.append(ch)
    return "".join(out)


def test_preprocess_examples() -> None:
    assert preprocess_nmt("Go.") == "go ."
    assert preprocess_nmt("Hi\u202f!") == "hi !"
    assert preprocess_nmt("Wait, what?!") == "wait , what ? !"
    assert preprocess_nmt(".Start") == ".start"  # nothing inserted before the first character
    assert preprocess_nmt("a .") == "a ."


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="aZé ,.!?\u202f\xa0\t'", max_size=30))
def test_preprocess_matches_character_loop(text: str) -> None:
    assert preprocess_nmt(text) == reference_preprocess(text)


def test_tokenize_splits_on_whitespace() -> None:
    assert tokenize("j'ai perdu .") == ["j'ai", "perdu", "."]
    assert tokenize("  a  b ") == ["a", "b"]
    assert tokenize("") == []


def test_vocab_book_ordering_min_freq_and_lookup() -> None:
    # counts: a 3, c 2, b 2, d 1; c is seen before b, so it comes first among the ties
    sentences = [["c", "b", "a"], ["a", "b", "c", "a"], ["d"]]
    vocab = Vocab(sentences, min_freq=2)
    assert vocab.idx_to_token == ["<unk>", "<pad>", "<bos>", "<eos>", "a", "c", "b"]
    assert (vocab.unk, vocab.pad, vocab.bos, vocab.eos) == (0, 1, 2, 3)
    assert len(vocab) == 7 and "a" in vocab and "d" not in vocab
    assert vocab["c"] == 5 and vocab["d"] == 0 and vocab[["b", "zzz"]] == [6, 0]
    assert vocab.to_tokens(4) == "a"
    assert vocab.to_tokens([4, 6]) == ["a", "b"]
    assert vocab.to_tokens(torch.tensor([5, 0])) == ["c", "<unk>"]
    assert vocab.to_tokens(np.int64(3)) == "<eos>"
    assert vocab.token_freqs[:2] == [("a", 3), ("c", 2)]
    with pytest.raises(IndexError, match="outside the vocabulary"):
        vocab.to_tokens(99)
    everything = Vocab(sentences)  # min_freq=0 keeps d
    assert everything.idx_to_token[4:] == ["a", "c", "b", "d"]


def test_vocab_flat_tokens_and_custom_reserved() -> None:
    vocab = Vocab(["x", "y", "x"], reserved_tokens=["<pad>"])
    assert vocab.idx_to_token == ["<unk>", "<pad>", "x", "y"]
    with pytest.raises(KeyError, match="<eos>"):
        _ = vocab.eos


def test_vocab_dict_round_trip_through_json() -> None:
    vocab = Vocab([["il", "est", "calme", "."], ["il", "."]], min_freq=1)
    back = Vocab.from_dict(json.loads(json.dumps(vocab.to_dict())))
    assert back == vocab and back.idx_to_token == vocab.idx_to_token
    assert back["calme"] == vocab["calme"] and back.eos == vocab.eos and back.min_freq == 1
    for bad in ({}, {"idx_to_token": ["a", "<unk>"]}, {"idx_to_token": ["<unk>", "a", "a"]},
                {"idx_to_token": ["<unk>", 3]}, {"idx_to_token": ["<unk>"], "reserved_tokens": ["<pad>"]}, []):
        with pytest.raises(ValueError, match="invalid vocabulary"):
            Vocab.from_dict(bad)  # type: ignore[arg-type]


def test_truncate_pad() -> None:
    assert truncate_pad([5, 6], 4, 1) == [5, 6, 1, 1]
    assert truncate_pad([5, 6, 7, 8, 9], 3, 1) == [5, 6, 7]
    assert truncate_pad([5, 6, 7], 3, 1) == [5, 6, 7]


def reference_arrays(lines: list[list[str]], itos: list[str], num_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids + <eos>, cut or padded, and the count of non-pad cells: an independent numpy version."""
    lookup = {t: i for i, t in enumerate(itos)}
    pad, eos = lookup["<pad>"], lookup["<eos>"]
    out = np.full((len(lines), num_steps), pad, dtype=np.int64)
    for r, line in enumerate(lines):
        ids = [lookup.get(t, 0) for t in line] + [eos]
        out[r, : min(len(ids), num_steps)] = ids[:num_steps]
    return out, (out != pad).sum(axis=1)


PAIRS = [
    ("go .", "va !"), ("i lost .", "j'ai perdu ."), ("he's calm .", "il est calme ."),
    ("i'm home .", "je suis chez moi ."), ("go .", "bouge !"), ("i'm calm .", "je suis calme ."),
    ("this is a very long english sentence indeed .", "c'est une très longue phrase anglaise en effet ."),
]


@pytest.mark.parametrize("num_steps", [3, 6, 10])
def test_build_dataset_matches_independent_computation(num_steps: int) -> None:
    ds = build_dataset(PAIRS, num_steps=num_steps, min_freq=2)
    assert len(ds) == len(PAIRS) and ds.num_steps == num_steps
    for tensor in (ds.src, ds.tgt, ds.src_valid_len, ds.tgt_valid_len):
        assert tensor.dtype == torch.int64
    assert ds.src.shape == ds.tgt.shape == (len(PAIRS), num_steps)
    # min_freq=2 on the English side: '.' 7, then the ties 'go' 2, 'calm' 2, "i'm" 2 in order of
    # first appearance ('calm' in pair 3 before "i'm" in pair 4); the rest are <unk>
    assert ds.src_vocab.idx_to_token == ["<unk>", "<pad>", "<bos>", "<eos>", ".", "go", "calm", "i'm"]
    for tokens, vocab, array, valid in ((ds.src_tokens, ds.src_vocab, ds.src, ds.src_valid_len),
                                        (ds.tgt_tokens, ds.tgt_vocab, ds.tgt, ds.tgt_valid_len)):
        ref, ref_valid = reference_arrays(tokens, vocab.idx_to_token, num_steps)
        np.testing.assert_array_equal(array.numpy(), ref)
        np.testing.assert_array_equal(valid.numpy(), ref_valid)
    assert ds.src_tokens[1] == ["i", "lost", "."] and ds.pairs == PAIRS


def test_build_dataset_hand_values_and_truncation() -> None:
    ds = build_dataset(PAIRS, num_steps=4, min_freq=2)
    # "go ." -> go . <eos> <pad>;  the long sentence loses its <eos> to truncation (as in the book)
    assert ds.src[0].tolist() == [5, 4, 3, 1] and ds.src_valid_len[0] == 3
    assert ds.src[6].tolist() == [0, 0, 0, 0] and ds.src_valid_len[6] == 4
    assert 3 not in ds.src[6].tolist()


def test_build_dataset_reuses_given_vocabularies() -> None:
    first = build_dataset(PAIRS[:3], num_steps=5, min_freq=1)
    second = build_dataset([("go home .", "va !")], 5, src_vocab=first.src_vocab, tgt_vocab=first.tgt_vocab)
    assert second.src_vocab is first.src_vocab
    assert second.src[0].tolist() == [first.src_vocab["go"], 0, first.src_vocab["."], 3, 1]


@pytest.mark.parametrize("kwargs, message", [
    ({"pairs": [], "num_steps": 5}, "no sentence pairs"),
    ({"pairs": PAIRS, "num_steps": 0}, "num_steps"),
    ({"pairs": PAIRS, "num_steps": 2.5}, "num_steps"),
    ({"pairs": [("a", "b", "c")], "num_steps": 5}, "pair 1"),
    ({"pairs": PAIRS, "num_steps": 5, "min_freq": -1}, "min_freq"),
])
def test_build_dataset_rejects_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        build_dataset(**kwargs)


def test_encode_sentence() -> None:
    vocab = build_dataset(PAIRS, num_steps=10, min_freq=2).src_vocab
    enc = encode_sentence("I'm calm!", vocab, 6)
    assert enc.tokens == ["i'm", "calm", "!", "<eos>"] and enc.valid_len == 4
    assert enc.ids.dtype == torch.int64 and enc.ids.tolist() == [7, 6, 0, 3, 1, 1]
    assert enc.unknown == ["!"] and not enc.truncated
    cut = encode_sentence("go go go go go", vocab, 3)
    assert cut.ids.tolist() == [5, 5, 5] and cut.valid_len == 3 and cut.truncated and cut.unknown == []
    for empty in ("", "   ", "\u202f"):
        with pytest.raises(DatasetError, match="empty sentence"):
            encode_sentence(empty, vocab, 10)
    with pytest.raises(DatasetError, match="num_steps"):
        encode_sentence("go .", vocab, 0)
