"""Check the bundled corpus is learnable the book's way (book §11.7): train the book's own code on it.

Runs ``../shared/bench/d2l_reference.py`` (a measuring stick, not our code) for each seed, one after
another, prints the final loss and the four probe translations, and ends with one JSON line.
Run: ``python tools/corpus/verify.py [--seeds 0 1 2] [--reference PATH] [--data resources/eng_fra.tsv]``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK_LOSS_LIMIT = 0.035  # the book's printed loss (per-token loss / num_steps)


def run_seed(reference: Path, data: Path, seed: int, threads: int) -> dict:
    """Train once with the reference script and return its JSON results."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, str(reference), str(data), "--seed", str(seed), "--threads", str(threads),
               "--json", str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reference", type=Path, default=ROOT.parent / "shared" / "bench" / "d2l_reference.py")
    ap.add_argument("--data", type=Path, default=ROOT / "resources" / "eng_fra.tsv")
    args = ap.parse_args(argv)
    summary = []
    for seed in args.seeds:
        res = run_seed(args.reference, args.data, seed, args.threads)
        bleus = [t["bleu"] for t in res["translations"]]
        print(f"seed {seed}: book loss {res['loss']:.4f} (per token {res['loss'] * 10:.3f}), "
              f"{res['pairs']} pairs, vocab {res['src_vocab']}/{res['tgt_vocab']}, {res['train_wall_s']:.0f} s")
        for t in res["translations"]:
            print(f"   {t['eng']} => {t['translation']}  bleu {t['bleu']:.3f}")
        summary.append({"seed": seed, "book_loss": round(res["loss"], 5), "min_bleu": min(bleus)})
    ok = all(s["book_loss"] <= BOOK_LOSS_LIMIT and s["min_bleu"] == 1.0 for s in summary)
    print(json.dumps({"corpus": str(args.data.name), "runs": summary, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
