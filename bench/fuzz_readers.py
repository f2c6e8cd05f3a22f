"""Fuzz the corpus readers with hypothesis: 1,000+ generated text/zip files, damaged, mis-encoded or
random. Prints counts and ends with one JSON line; exits 1 (after hypothesis shrinks it) if any file makes
``read_pairs`` raise something other than ``DatasetError``.

Usage: python bench/fuzz_readers.py [--cases 1500]   (FUZZ_SEED=N replays a run)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "robustness"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from fuzz_corpus import check_reader_on, corpus_files, fuzz_seed  # noqa: E402


def run(cases: int) -> dict[str, object]:
    """Run the property on ``cases`` generated files; returns the figures."""
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()

    @settings(max_examples=cases, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(case=corpus_files)
    def prop(case: tuple[str, bytes, int | None]) -> None:
        name, data, num_examples = case
        counts[check_reader_on(name, data, num_examples)] += 1
        kinds["zip" if data[:2] == b"PK" else "text"] += 1

    value = fuzz_seed()
    if value is not None:
        prop = seed(value)(prop)
    t0 = time.perf_counter()
    failure = None
    try:
        prop()
    except Exception as exc:  # noqa: BLE001 - the shrunk counterexample is the report
        failure = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
    seconds = time.perf_counter() - t0
    total = sum(counts.values())
    return {"fuzz_cases": total, "ok": counts["ok"], "refused_with_dataset_error": counts["refused"],
            "zip_files": kinds["zip"], "text_files": kinds["text"], "other_exceptions": 0 if failure is None else 1,
            "failure": failure, "seconds": round(seconds, 1), "files_per_s": round(total / max(seconds, 1e-9), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1500, help="generated files (at least 1000 for the report)")
    args = parser.parse_args()
    figures = run(args.cases)
    print(f"generated files:            {figures['fuzz_cases']} ({figures['text_files']} text, "
          f"{figures['zip_files']} zip)")
    print(f"read as pairs:              {figures['ok']}")
    print(f"refused with DatasetError:  {figures['refused_with_dataset_error']}")
    print(f"any other exception:        {figures['other_exceptions']}" +
          (f"  <- {figures['failure']}" if figures["failure"] else ""))
    print(f"time:                       {figures['seconds']} s ({figures['files_per_s']} files/s)")
    print(json.dumps(figures))
    return 0 if figures["failure"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
