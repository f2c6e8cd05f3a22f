"""Checks on the bundled English–French corpus ``resources/eng_fra.tsv`` (book §10.5 data format).

The file is read with plain Python (independent of our reader), then once more through
``explorer.core.data.text.read_pairs``.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "resources" / "eng_fra.tsv"
BOOK_LINES = 601  # the book's tokenize_nmt keeps lines 0..num_examples for num_examples=600
PROBES = {"go .": "va !", "i lost .": "j'ai perdu .", "he's calm .": "il est calme .",
          "i'm home .": "je suis chez moi ."}
VOWEL_START = re.compile(r"^[aeiouyàâéèêëîïôûùœh]")


def book_preprocess(text: str) -> str:
    """The book's preprocessing, written out: no-break spaces -> space, lower-case, space before , . ! ?"""
    text = text.replace("\u202f", " ").replace("\xa0", " ").lower()
    out = []
    for i, ch in enumerate(text):
        out.append(" " + ch if i > 0 and ch in ",.!?" and text[i - 1] != " " else ch)
    return "".join(out)


def word_count(sentence: str) -> int:
    return sum(1 for w in book_preprocess(sentence).split(" ") if w and w not in {",", ".", "!", "?"})


@pytest.fixture(scope="module")
def raw_lines() -> list[str]:
    data = CORPUS.read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf"), "no BOM in our own file"
    assert b"\r" not in data, "LF line endings"
    text = data.decode("utf-8")  # strict: raises on any undecodable byte
    assert text.endswith("\n")
    return text[:-1].split("\n")


@pytest.fixture(scope="module")
def pairs(raw_lines: list[str]) -> list[tuple[str, str]]:
    out = []
    for n, line in enumerate(raw_lines, 1):
        cols = line.split("\t")
        assert len(cols) == 2, f"line {n} has {len(cols)} columns: {line!r}"
        out.append((cols[0], cols[1]))
    return out


def test_size_and_distinct_english(pairs: list[tuple[str, str]]) -> None:
    assert len(set(pairs)) == len(pairs) >= 1500
    english = Counter(e for e, _ in pairs)
    assert [e for e, c in english.items() if c > 1] == []
    # also distinct once preprocessed (the model sees these)
    assert len({book_preprocess(e) for e, _ in pairs}) == len(pairs)


def test_every_side_is_clean_and_short(pairs: list[tuple[str, str]]) -> None:
    for n, (e, f) in enumerate(pairs, 1):
        for side in (e, f):
            assert side == side.strip() and "  " not in side, f"line {n}: stray spaces in {side!r}"
            assert 1 <= word_count(side) <= 6, f"line {n}: {side!r} has {word_count(side)} words"
            assert "" not in book_preprocess(side).split(" "), f"line {n}: empty token in {side!r}"
        assert e[0].isupper() and f[0].isupper(), f"line {n}: capitalised sentences"
        assert e[-1] in ".!?" and f[-1] in ".!?", f"line {n}: sentences end with punctuation"


def test_shortest_first(pairs: list[tuple[str, str]]) -> None:
    counts = [word_count(e) for e, _ in pairs]
    assert counts == sorted(counts)
    assert counts[0] == 1 and counts[-1] >= 4


def test_book_probes_in_first_600(pairs: list[tuple[str, str]]) -> None:
    head = {book_preprocess(e): book_preprocess(f) for e, f in pairs[:600]}
    for src, tgt in PROBES.items():
        assert head.get(src) == tgt, src
    assert book_preprocess("Go.") == "go ." and pairs[0] == ("Go.", "Va !")


def test_probe_words_recur_in_training_slice(pairs: list[tuple[str, str]]) -> None:
    """Vocab min_freq=2: each probe token must appear in the first 601 lines besides the probe."""
    head = pairs[:BOOK_LINES]
    src = Counter(t for e, _ in head for t in book_preprocess(e).split(" "))
    tgt = Counter(t for _, f in head for t in book_preprocess(f).split(" "))
    for s, t in PROBES.items():
        for tok in s.split(" "):
            assert src[tok] >= 2, tok
        for tok in t.split(" "):
            assert tgt[tok] >= 3, tok
    # the training slice reuses a compact vocabulary: few target tokens are seen only once
    once = sum(c for c in tgt.values() if c == 1)
    assert once / sum(tgt.values()) < 0.08


def test_no_break_spaces_are_used_and_read_as_spaces(pairs: list[tuple[str, str]]) -> None:
    nnbsp = [f for _, f in pairs if "\u202f" in f]
    assert 10 <= len(nnbsp) <= len(pairs) // 10
    for f in nnbsp:
        assert re.search("\u202f[!?:]$", f), f
        assert book_preprocess(f).endswith(" " + f[-1]) and "\u202f" not in book_preprocess(f)
    assert any(re.search(" [!?]$", f) for _, f in pairs)


@pytest.mark.parametrize("english, french", [
    ("He's happy.", "Il est content."), ("She's happy.", "Elle est contente."),
    ("They're happy.", "Ils sont contents."), ("Mary's tired.", "Marie est fatiguée."),
    ("We're tired.", "Nous sommes fatigués."), ("She's old.", "Elle est vieille."),
    ("Mary left.", "Marie est partie."), ("We left.", "Nous sommes partis."),
    ("She fell.", "Elle est tombée."), ("I'm hungry.", "J'ai faim."), ("I saw her.", "Je l'ai vue."),
    ("The water is cold.", "L'eau est froide."), ("The snow is white.", "La neige est blanche."),
    ("It's me.", "C'est moi."), ("Tom's home.", "Tom est chez lui."), ("She's home.", "Elle est chez elle."),
])
def test_agreement_spot_checks(pairs: list[tuple[str, str]], english: str, french: str) -> None:
    assert dict(pairs)[english] == french


def test_french_elision_and_agreement_rules(pairs: list[tuple[str, str]]) -> None:
    eliding = {"je", "ne", "de", "que", "le", "la", "me", "te", "se"}
    masc_to_fem = {"content": "contente", "fatigué": "fatiguée", "prêt": "prête", "seul": "seule",
                   "gentil": "gentille", "vieux": "vieille", "courageux": "courageuse", "parti": "partie",
                   "grand": "grande", "petit": "petite", "venu": "venue"}
    fem_to_masc = {v: k for k, v in masc_to_fem.items()}
    for n, (_, f) in enumerate(pairs, 1):
        toks = book_preprocess(f).split(" ")
        for a, b in zip(toks, toks[1:]):
            assert not (a in eliding and VOWEL_START.match(b)), f"line {n}: missing elision in {f!r}"
        assert not {"vous", "votre", "vos"} & set(toks), f"line {n}: we say tu throughout: {f!r}"
        head = " ".join(toks[:2])
        if head in ("elle est", "marie est", "elle était", "marie était"):
            assert toks[2] not in masc_to_fem, f"line {n}: feminine subject, masculine form: {f!r}"
        if head in ("il est", "tom est", "il était", "tom était"):
            assert toks[2] not in fem_to_masc, f"line {n}: masculine subject, feminine form: {f!r}"
        if head in ("nous sommes", "ils sont"):
            singular = {w for w in (*masc_to_fem, *fem_to_masc) if not w.endswith("x")}
            assert toks[2] not in singular, f"line {n}: plural needed: {f!r}"
        for subj, wrong in (("je", {"est", "es", "a"}), ("tu", {"est", "suis", "a"}),
                            ("il", {"es", "suis", "as"}), ("nous", {"sont", "est", "ont"})):
            if toks[0] == subj:
                assert toks[1] not in wrong, f"line {n}: verb does not agree: {f!r}"


def test_read_through_project_reader(pairs: list[tuple[str, str]]) -> None:
    from explorer.core.data import text
    result = text.read_pairs(CORPUS)
    assert result.skipped == 0
    assert len(result.pairs) == len(pairs)
    got = dict(result.pairs)
    for src, tgt in PROBES.items():
        assert got[src] == tgt
    first = text.read_pairs(CORPUS, num_examples=600)
    assert len(first.pairs) == 600 and set(PROBES.items()) <= set(first.pairs)
