"""Benchmark: start-up time of the desktop app, from process start to the first painted main window and
to "all panels usable" (every panel built and its first computation finished).

Each run starts `python main.py --bench-startup` in a fresh process (offscreen unless --platform says
otherwise, a throw-away settings folder, so the first panel is kernel regression). The wall clock is
read just before `Popen`; the child prints the wall clock from the main window's first `paintEvent`
and again once every panel has settled. For scale it also times a bare interpreter and `import torch`.
Median of --runs (default 5). Prints figures and ends with one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_command(args: list[str], env: dict[str, str]) -> float:
    """Seconds from just before Popen to process exit."""
    start = time.time()
    subprocess.run([sys.executable, *args], env=env, cwd=ROOT, check=True, capture_output=True)
    return time.time() - start


def one_start(env: dict[str, str]) -> tuple[float, float]:
    """(first_paint_s, ready_s) of one fresh start of the app."""
    with tempfile.TemporaryDirectory() as settings_dir:
        env = dict(env, ATTENTION_EXPLORER_SETTINGS_DIR=settings_dir)
        start = time.time()
        proc = subprocess.run([sys.executable, "main.py", "--bench-startup"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
    stamps = {parts[1]: float(parts[2]) for parts in (line.split() for line in proc.stdout.splitlines())
              if len(parts) == 3 and parts[0] == "BENCH"}
    if proc.returncode != 0 or {"first_paint", "ready"} - stamps.keys():
        raise SystemExit(f"app run failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return stamps["first_paint"] - start, stamps["ready"] - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--platform", default=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                        help="Qt platform plugin for the child (default: offscreen)")
    args = parser.parse_args()
    env = dict(os.environ, QT_QPA_PLATFORM=args.platform)

    bare = statistics.median(time_command(["-c", "pass"], env) for _ in range(3))
    torch_import = statistics.median(time_command(["-c", "import torch"], env) for _ in range(3))
    shell_imports = statistics.median(
        time_command(["-c", "import explorer.ui.app, explorer.ui.shell.main_window"], env) for _ in range(3))
    print(f"bare interpreter             {bare:6.3f} s")
    print(f"import torch                 {torch_import:6.3f} s")
    print(f"import the shell (Qt only)   {shell_imports:6.3f} s")

    runs = [one_start(env) for _ in range(args.runs)]
    for i, (paint, ready) in enumerate(runs, 1):
        print(f"run {i}: first paint {paint:6.3f} s   all panels usable {ready:6.3f} s")
    first_paint = statistics.median(r[0] for r in runs)
    ready = statistics.median(r[1] for r in runs)
    print(f"median of {args.runs}: first paint {first_paint:.3f} s (target <= 1.0 s), "
          f"all panels usable {ready:.3f} s")
    print(json.dumps({
        "first_paint_s": round(first_paint, 3),
        "ready_s": round(ready, 3),
        "first_paint_runs_s": [round(r[0], 3) for r in runs],
        "ready_runs_s": [round(r[1], 3) for r in runs],
        "torch_import_s": round(torch_import, 3),
        "bare_python_s": round(bare, 3),
        "platform": args.platform,
        "cpus": os.cpu_count(),
    }))


if __name__ == "__main__":
    main()
