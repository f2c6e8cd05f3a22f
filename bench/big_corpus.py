#!/usr/bin/env python3
"""A Tatoeba-sized English–French corpus without the network: the bundled corpus's pairs recombined into
~18,000 pairs with a ~3,500-word French vocabulary (large-vocabulary case).

Each output pair is a bundled pair whose content words (3+ letters, not a function word) carry a *family*
suffix: the pair draws one family k from a Zipf-like law and every content word on both sides
becomes ``word + syllables(k)`` ("chat" -> "chatlo", "cat" -> "catlo"), so an English form still maps to
one French form and the pairs stay learnable. The number of families is searched so the target vocabulary
at ``min_freq`` 2 is as close as possible to the one asked for.

How it differs from the real Tatoeba file (lines 0..18,000 of ``fra.txt``): sentence lengths follow the
bundled corpus (1–6 words, the same order of magnitude as Tatoeba's first 18k lines, but not sorted by
length and without its slow growth); the word-frequency tail is made of suffix families, flatter than
natural language's Zipf tail, and no form is spelled irregularly; a content word never co-occurs with a
word of another family in one pair. For throughput only the sizes matter — pairs, valid lengths and the
two vocabularies — and those are printed (``--stats``) next to Tatoeba's figures in the bench notes.

Usage: python bench/big_corpus.py OUT.tsv [--pairs 18001] [--tgt-words 3500] [--seed 0] [--stats]
"""
from __future__ import annotations

import argparse
import collections
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "resources" / "eng_fra.tsv"
_SYLLABLES = ("ra", "lo", "mi", "ve", "tu", "sa", "no", "ki", "pe", "du", "ba", "ro", "fi", "ga", "le", "zo")
# Words left alone: they are what every family shares (as real function words are).
_FUNCTION = set("""the and you are was were his her its our your their they them this that these those with
for not from have has had what who how why where when can will would could should did does here there very
les des une est pas que qui sur dans pour avec son ses mon mes ton tes nous vous ils elles sont suis êtes
était tout tous très ici cette ces aux par mais""".split())


def _suffix(k: int) -> str:
    """Family k's syllables: 0 -> "" (the bundled word itself), then "ra", "lo", ..., "rara", "ralo", ..."""
    out = ""
    while k > 0:
        k -= 1
        out = _SYLLABLES[k % len(_SYLLABLES)] + out
        k //= len(_SYLLABLES)
    return out


_WORD = re.compile(r"[^\W\d_]{3,}")  # 3+ letters: "mouillé" of "mouillé.", "école" of "l'école"
_ZIPF = 0.5  # families drawn ∝ (k + 1)^-0.5: a few common, a long tail (the vocabulary grows with k)
_MAX_FAMILIES = 40  # below this the vocabulary grows with the number of families (bisection stays valid)


def _recombine(line: str, suffix: str) -> str:
    """Every content word of ``line`` with ``suffix`` appended (function words and punctuation unchanged)."""
    return _WORD.sub(lambda m: m.group(0) if m.group(0).lower() in _FUNCTION else m.group(0) + suffix, line)


def read_bundled() -> list[tuple[str, str]]:
    """The bundled corpus's raw lines as (english, french) (first two columns)."""
    out = []
    for line in BUNDLED.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            out.append((parts[0], parts[1]))
    return out


def build(num_pairs: int, families: int, seed: int) -> list[tuple[str, str]]:
    """``num_pairs`` recombined pairs: the base pairs in shuffled passes, each with a family k drawn
    ∝ (k + 1)^-0.5 (family 0 leaves the pair as bundled)."""
    base = read_bundled()
    rng = random.Random(seed)
    weights = [(k + 1) ** -_ZIPF for k in range(families)]
    ks = rng.choices(range(families), weights=weights, k=num_pairs)
    order = list(range(len(base)))
    pairs = []
    for i, k in enumerate(ks):
        if i % len(base) == 0:
            rng.shuffle(order)
        e, f = base[order[i % len(base)]]
        s = _suffix(k)
        pairs.append((_recombine(e, s), _recombine(f, s)))
    return pairs


def vocab_size(pairs: list[tuple[str, str]], side: int, min_freq: int = 2) -> int:
    """Vocabulary size of one side after the book's preprocessing (with its 4 reserved tokens)."""
    sys.path.insert(0, str(ROOT))
    from explorer.core.data.readers import preprocess_nmt

    counts = collections.Counter(t for p in pairs for t in preprocess_nmt(p[side]).split(" "))
    return 4 + sum(1 for c in counts.values() if c >= min_freq)


def build_for_vocab(num_pairs: int, tgt_words: int, seed: int = 0) -> list[tuple[str, str]]:
    """The corpus whose target vocabulary (min_freq 2) is closest to ``tgt_words`` (bisection on families)."""
    lo, hi = 1, _MAX_FAMILIES
    while lo < hi:
        mid = (lo + hi) // 2
        if vocab_size(build(num_pairs, mid, seed), 1) < tgt_words:
            lo = mid + 1
        else:
            hi = mid
    return build(num_pairs, lo, seed)


def write(path: Path, pairs: list[tuple[str, str]]) -> Path:
    """Write ``pairs`` as UTF-8 ``English<TAB>French`` lines."""
    path.write_text("".join(f"{e}\t{f}\n" for e, f in pairs), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--pairs", type=int, default=18001, help="lines (the book's reader keeps lines i <= n)")
    ap.add_argument("--tgt-words", type=int, default=3500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stats", action="store_true")
    args = ap.parse_args(argv)
    pairs = build_for_vocab(args.pairs, args.tgt_words, args.seed)
    write(args.out, pairs)
    print(f"wrote {len(pairs)} pairs to {args.out}: vocab {vocab_size(pairs, 0)}/{vocab_size(pairs, 1)} "
          f"(min_freq 2)")
    if args.stats:
        sys.path.insert(0, str(ROOT))
        from explorer.core.data.readers import preprocess_nmt

        for side, name in ((0, "src"), (1, "tgt")):
            lens = [len(preprocess_nmt(p[side]).split(" ")) + 1 for p in pairs]  # + <eos>
            clipped = [min(n, 10) for n in lens]
            print(f"{name}: mean valid length {sum(clipped) / len(clipped):.2f} of 10 steps "
                  f"(longest {max(lens)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
