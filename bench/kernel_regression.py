"""Benchmark: Nadaraya–Watson predict+weights at 50², 1,000² and 10,000² and peak memory at 10,000² (book §11.2).

Run `python bench/kernel_regression.py`; it prints figures and ends with one JSON line.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from explorer.core.chapter.kernel_regression import iter_chunks, make_data, nadaraya_watson  # noqa: E402

BIG = 10_000
RSS_CHILD = """
import sys
import numpy as np
sys.path.insert(0, {root!r})
from explorer.core.chapter.kernel_regression import iter_chunks, make_data
d = make_data(n_train={n}, n_test={n}, seed=0)
def status_kib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])
before = status_kib("VmRSS:")
for _ in iter_chunks(d.x_train, d.y_train, d.x_test, "gaussian", 0.5):
    pass
print((status_kib("VmHWM:") - before) / 1024)
"""


def median_ms(fn, repeats: int) -> tuple[float, float]:
    """Median and minimum wall time of `fn()` in ms after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), min(times)


def bench_square(n: int, repeats: int) -> tuple[float, float]:
    """One predict+weights for n training × n test points, weights in a preallocated float32 buffer."""
    d = make_data(n_train=n, n_test=n, seed=0)
    out = np.empty((n, n), dtype=np.float32)
    return median_ms(lambda: nadaraya_watson(d.x_train, d.y_train, d.x_test, "gaussian", 0.5, out=out), repeats)


def bench_big(repeats: int) -> tuple[float, float, float]:
    """10,000²: every weight is computed, block by block (8 MB blocks), never the 400 MB matrix."""
    d = make_data(n_train=BIG, n_test=BIG, seed=0)

    def run() -> None:
        for _ in iter_chunks(d.x_train, d.y_train, d.x_test, "gaussian", 0.5):
            pass

    med, best = median_ms(run, repeats)
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return med, best, peak / 2**20


def rss_delta_mib(n: int) -> float:
    """Peak RSS (VmHWM) above the current RSS of a fresh interpreter while it runs the chunked 10,000² fit."""
    code = RSS_CHILD.format(root=str(Path(__file__).resolve().parents[1]), n=n)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    small, small_min = bench_square(50, 2000)
    mid, mid_min = bench_square(1000, 300)
    big, big_min, peak_mib = bench_big(7)
    rss = rss_delta_mib(BIG)
    print(f"predict+weights    50 x    50: median {small:8.3f} ms  (min {small_min:.3f})")
    print(f"predict+weights 1,000 x 1,000: median {mid:8.3f} ms  (min {mid_min:.3f}; target <= 2 ms)")
    print(f"predict+weights 10,000 x 10,000 (8 MB blocks): median {big:8.1f} ms  (min {big_min:.1f})")
    print(f"peak memory at 10,000^2: tracemalloc {peak_mib:.1f} MiB, peak-RSS growth {rss:.1f} MiB "
          f"(the full float32 matrix would be {BIG * BIG * 4 / 2**20:.0f} MiB)")
    load = os.getloadavg()[0]
    print(f"load average while measuring: {load:.2f} on {os.cpu_count()} CPUs (other work slows every figure)")
    print(json.dumps({"load_avg_1min": round(load, 2), 
        "nw_50_ms": round(small, 4), "nw_1000_ms": round(mid, 3), "nw_10000_ms": round(big, 1),
        "peak_mib_10000_tracemalloc": round(peak_mib, 1), "rss_growth_mib_10000": round(rss, 1),
        "target_1000_ms": 2.0, "met_1000": mid <= 2.0,
    }))


if __name__ == "__main__":
    main()
