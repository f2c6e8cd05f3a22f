"""Benchmark: start-up time of the desktop app, from process start to the first painted main window and
to "all panels usable" (every panel built and its first computation finished, torch loaded).

Each run starts `python main.py --bench-startup` in a fresh process (offscreen unless --platform says
otherwise, a throw-away settings folder, so the first panel is the first of the book). The wall clock is
read just before `Popen`; the child prints the wall clock from the main window's first `paintEvent`, again
once every panel has settled, and the CPU seconds it used until then (all its threads: a figure that
machine load changes much less than wall time). For scale it also times a bare interpreter and `import torch`.

``--before DIR`` runs another checkout's app (a `git archive` of an older commit) in turns with this one, so
both meet the same load; the ratios before/after come from the same run. ``--bytecode-cache`` lets the
children write and reuse compiled bytecode (in a temporary folder, warmed by one untimed start of each side)
even where PYTHONDONTWRITEBYTECODE is set, as an installed app has it.
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


def one_start(env: dict[str, str], root: Path = ROOT) -> dict[str, float]:
    """first_paint_s, ready_s and cpu_s of one fresh start of the app in ``root``."""
    with tempfile.TemporaryDirectory() as settings_dir:
        env = dict(env, ATTENTION_EXPLORER_SETTINGS_DIR=settings_dir, PYTHONPATH=str(root))
        start = time.time()
        proc = subprocess.run([sys.executable, "main.py", "--bench-startup"], env=env, cwd=root,
                              capture_output=True, text=True, timeout=300)
    stamps = {parts[1]: float(parts[2]) for parts in (line.split() for line in proc.stdout.splitlines())
              if len(parts) == 3 and parts[0] == "BENCH"}
    if proc.returncode != 0 or {"first_paint", "ready"} - stamps.keys():
        raise SystemExit(f"app run failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return {"first_paint_s": stamps["first_paint"] - start, "ready_s": stamps["ready"] - start,
            "cpu_s": stamps.get("cpu", float("nan"))}


def load_average() -> float:
    """The 1-minute load average (0 where the system does not say)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def summary(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in runs), 3) for key in ("first_paint_s", "ready_s", "cpu_s")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--platform", default=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                        help="Qt platform plugin for the child (default: offscreen)")
    parser.add_argument("--before", type=Path, metavar="DIR", help="another checkout, started in turns with this one")
    parser.add_argument("--bytecode-cache", action="store_true",
                        help="let the children compile modules once and reuse the bytecode")
    args = parser.parse_args()
    env = dict(os.environ, QT_QPA_PLATFORM=args.platform)
    cache_dir = None
    if args.bytecode_cache:
        cache_dir = tempfile.TemporaryDirectory()
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache_dir.name
    sides = {"after": ROOT} if args.before is None else {"before": args.before.resolve(), "after": ROOT}
    if cache_dir is not None:
        for root in sides.values():
            one_start(env, root)

    load_at_start = load_average()
    bare = statistics.median(time_command(["-c", "pass"], env) for _ in range(3))
    torch_import = statistics.median(time_command(["-c", "import torch"], env) for _ in range(3))
    shell_imports = statistics.median(
        time_command(["-c", "import explorer.ui.app, explorer.ui.shell.main_window"], env) for _ in range(3))
    print(f"bare interpreter             {bare:6.3f} s")
    print(f"import torch                 {torch_import:6.3f} s")
    print(f"import the shell (Qt only)   {shell_imports:6.3f} s")

    runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for i in range(1, args.runs + 1):
        for side, root in (sides.items() if i % 2 else reversed(sides.items())):  # alternate who goes first
            run = one_start(env, root)
            runs[side].append(run)
            print(f"run {i} {side:6s}: first paint {run['first_paint_s']:6.3f} s   all panels usable "
                  f"{run['ready_s']:6.3f} s   cpu {run['cpu_s']:6.3f} s   load {load_average():.2f}")
    medians = {side: summary(side_runs) for side, side_runs in runs.items()}
    for side, m in medians.items():
        print(f"median of {args.runs} ({side}): first paint {m['first_paint_s']:.3f} s (goal <= 0.5 s), "
              f"all panels usable {m['ready_s']:.3f} s (goal <= 1.5 s), cpu {m['cpu_s']:.3f} s")
    result: dict[str, object] = {
        **medians["after"],
        "first_paint_runs_s": [round(r["first_paint_s"], 3) for r in runs["after"]],
        "ready_runs_s": [round(r["ready_s"], 3) for r in runs["after"]],
        "torch_import_s": round(torch_import, 3),
        "bare_python_s": round(bare, 3),
        "platform": args.platform,
        "bytecode_cache": cache_dir is not None,
        "dont_write_bytecode": bool(env.get("PYTHONDONTWRITEBYTECODE")),
        "cpus": os.cpu_count(),
        "load_average": [round(load_at_start, 2), round(load_average(), 2)],
    }
    if args.before is not None:
        before = medians["before"]
        result["before"] = before
        result["ready_ratio_before_over_after"] = round(before["ready_s"] / medians["after"]["ready_s"], 3)
        result["cpu_ratio_before_over_after"] = round(before["cpu_s"] / medians["after"]["cpu_s"], 3)
    if cache_dir is not None:
        cache_dir.cleanup()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
