"""Write ``resources/eng_fra.tsv``, the bundled English–French corpus (book §10.5 style), from our templates.

Run: ``python tools/corpus/generate.py [--out resources/eng_fra.tsv] [--total 1800] [--seed 0] [--stats]``.
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from phrases import PHRASES, PROBES  # noqa: E402
from templates import Pair, core_pairs, extended_families  # noqa: E402

PUNCT = set(",.!?")
NNBSP = "\u202f"
BOOK_LINES = 601  # the book's reader keeps lines 0..num_examples, i.e. 601 for num_examples=600


def words(sentence: str) -> int:
    """Number of words, punctuation excluded ("Va !" -> 1, "J'ai perdu." -> 2)."""
    return sum(1 for w in sentence.replace(NNBSP, " ").split() if w.strip(",.!?"))


def book_tokens(sentence: str) -> list[str]:
    """The book's preprocessing (lower-case, space before , . ! ?) followed by its split on spaces."""
    text = sentence.replace(NNBSP, " ").replace("\xa0", " ").lower()
    out = [" " + c if i > 0 and c in PUNCT and text[i - 1] != " " else c for i, c in enumerate(text)]
    return "".join(out).split(" ")


def _unique(pairs: list[Pair], seen: set[str]) -> list[Pair]:
    out = []
    for e, f in pairs:
        if e not in seen and 1 <= words(e) <= 6 and 1 <= words(f) <= 6:
            seen.add(e)
            out.append((e, f))
    return out


def build(total: int, seed: int) -> list[Pair]:
    """All core pairs plus a balanced, seeded sample of longer ones, ordered shortest English first."""
    seen: set[str] = set()
    pairs = _unique(list(PROBES) + list(PHRASES) + core_pairs(), seen)
    rng = random.Random(seed)
    pools = {}
    for name, fam in extended_families().items():
        fam = _unique(fam, seen)
        for e, _ in fam:
            seen.discard(e)  # reserved only once taken below
        short = [p for p in fam if words(p[0]) < 3]
        if short:
            raise SystemExit(f"family {name} makes sentences shorter than 3 words: {short[:3]}")
        rng.shuffle(fam)
        pools[name] = fam
    while len(pairs) < total and any(pools.values()):
        for name in list(pools):
            while pools[name]:
                e, f = pools[name].pop()
                if e not in seen:
                    seen.add(e)
                    pairs.append((e, f))
                    break
            if len(pairs) >= total:
                break
    order = {p: i for i, p in enumerate(pairs)}
    pairs.sort(key=lambda p: (words(p[0]), len(p[0]), order[p]))
    return pairs


def typeset(pairs: list[Pair], every: int = 23) -> list[Pair]:
    """Use a narrow no-break space before ! and ? in some French lines, as recent Tatoeba files do."""
    out = []
    for i, (e, f) in enumerate(pairs):
        if i % every == 7 and (f.endswith(" !") or f.endswith(" ?")) and (e, f) not in PROBES:
            f = f[:-2] + NNBSP + f[-1]
        out.append((e, f))
    return out


def stats(pairs: list[Pair]) -> None:
    """Print how compact the book's training slice is (tokens seen once become <unk>)."""
    head = pairs[:BOOK_LINES]
    for side in (0, 1):
        counts = collections.Counter(t for p in head for t in book_tokens(p[side]))
        once = sorted(t for t, c in counts.items() if c < 2)
        total = sum(counts.values())
        unk = sum(counts[t] for t in once)
        print(f"{'src' if side == 0 else 'tgt'}: {len(counts)} types, {len(once)} seen once "
              f"({unk}/{total} tokens = {unk / total:.1%} <unk>)")
        print("   once:", " ".join(once[:120]))
    lengths = collections.Counter(words(e) for e, _ in head)
    print("first 601 English word counts:", dict(sorted(lengths.items())))
    for e, f in PROBES:
        print(f"probe {e!r} at line {pairs.index((e, f))}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "resources" / "eng_fra.tsv"))
    ap.add_argument("--total", type=int, default=1800)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stats", action="store_true")
    args = ap.parse_args(argv)
    pairs = typeset(build(args.total, args.seed))
    Path(args.out).write_text("".join(f"{e}\t{f}\n" for e, f in pairs), encoding="utf-8")
    print(f"wrote {len(pairs)} pairs to {args.out}")
    if args.stats:
        stats(pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
