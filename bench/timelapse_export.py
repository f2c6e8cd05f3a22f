"""Headless time-lapse export: a 200-epoch book run (the CLI's default settings, trained here into a run
directory, or an existing one) exported by ``attention-explorer-cli timelapse`` to a GIF and an MP4 (imageio-ffmpeg);
prints each export's time (the whole process, and the command's own) and file size, then one JSON line.

    python bench/timelapse_export.py [--epochs 200] [--run DIR] [--size 960x540]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_run(run_dir: Path, epochs: int) -> float:
    """Train with the CLI's defaults into ``run_dir``; returns the seconds it took."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "explorer.cli", "train", "--epochs", str(epochs), "--device", "cpu",
                    "--run-dir", str(run_dir)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def export(run_dir: Path, out: Path, size: str) -> dict:
    """One ``timelapse`` process: its wall time and the JSON summary it prints."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "explorer.cli", "timelapse", str(run_dir), "--out", str(out),
                           "--size", size, "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"timelapse failed ({done.returncode}): {done.stderr.strip()}")
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return {"format": summary["format"], "frames": summary["frames"], "width": summary["width"],
            "height": summary["height"], "bytes": summary["bytes"], "process_s": round(wall, 2),
            "command_s": summary["seconds"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--run", type=Path, help="an existing run directory instead of training one")
    parser.add_argument("--size", default="960x540", help="frame size (default: %(default)s, the dialog's)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="timelapse-bench-"))
    run_dir, train_s = args.run, None
    if run_dir is None:
        run_dir = work / "book"
        train_s = write_run(run_dir, args.epochs)
        print(f"trained {args.epochs} epochs into {run_dir} in {train_s:.0f} s")
    snapshots = len(list((run_dir / "snapshots").glob("step-*.safetensors")))
    formats = ["gif"] + (["mp4"] if importlib.util.find_spec("imageio_ffmpeg") else [])
    results = []
    for fmt in formats:
        r = export(run_dir, work / f"lapse.{fmt}", args.size)
        results.append(r)
        print(f"{fmt.upper()}: {r['frames']} frames of {snapshots} snapshots, {r['width']}x{r['height']}: "
              f"{r['process_s']:.2f} s (command {r['command_s']:.2f} s), {r['bytes']:,} bytes")
    if "mp4" not in formats:
        print("MP4: skipped (pip install 'attention-explorer[video]')")
    epochs = json.loads((run_dir / "run.json").read_text("utf-8"))["config"]["num_epochs"]
    print(json.dumps({"epochs": epochs, "snapshots": snapshots,
                      "train_s": None if train_s is None else round(train_s, 1), "exports": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
