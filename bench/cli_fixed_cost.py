"""The CLI's fixed cost: ``attention-explorer-cli attention`` on a tiny BERT folder (2 layers, d=32, random weights),
where its time goes, beside transformers' own script doing the same (load, one forward pass with
``output_attentions=True``, save the maps) in the same run. Each command runs in a fresh interpreter, the rounds
interleaved; medians. Then ``python -X importtime`` grouped by package and the in-process phases of one call.

    python bench/cli_fixed_cost.py [--rounds 5] [--before DIR]

``--before DIR``: also time the CLI of another checkout (e.g. ``git archive <commit> | tar -x -C DIR``) in the
same rounds.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

TEXT = "the cat sat on the mat ."
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "a", "dog", "."]

STOCK = """
import sys, numpy as np, torch
from transformers import AutoModel, AutoTokenizer
folder, out = sys.argv[1], sys.argv[2]
tok = AutoTokenizer.from_pretrained(folder)
model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
with torch.no_grad():
    att = model(**tok(sys.argv[3], return_tensors="pt"), output_attentions=True).attentions
np.savez(out, **{f"encoder.{i}": a[0].numpy() for i, a in enumerate(att)})
"""

PHASES = """
import time, sys
t = {}
def lap(name, start=[time.perf_counter()]):
    now = time.perf_counter(); t[name] = now - start[0]; start[0] = now
from explorer.cli.main import main
lap("cli_import")
import torch
lap("import_torch")
import transformers; transformers.BertModel; transformers.AutoTokenizer
lap("import_transformers")
from explorer.core.inspect.hf.folder import check_folder, load_folder
from explorer.core.inspect.hf.models import HFModel
lap("import_our_hf")
check = check_folder(sys.argv[1])
model, tokenizer = load_folder(check, torch.device("cpu"))
lap("load_folder")
hf = HFModel(model, tokenizer, check.folder.name, check.model_type)
lap("find_attention_modules")
result = hf.attention(sys.argv[3])
lap("attention")
from explorer.core.inspect.interface import save_npz
save_npz(result, sys.argv[2])
lap("save")
print(t)
"""


def build_folder(root: Path) -> Path:
    """A tiny BERT folder: written vocabulary, random weights (quietly)."""
    import transformers
    from transformers import BertConfig, BertModel, BertTokenizer

    transformers.utils.logging.set_verbosity_error()
    folder = root / "tiny-bert"
    folder.mkdir()
    (folder / "vocab.txt").write_text("\n".join(WORDS) + "\n")
    tok = BertTokenizer(str(folder / "vocab.txt"))
    BertModel(BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
                         vocab_size=len(tok), max_position_embeddings=64)).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


#: Where the commands run: not the repository, so that ``-m explorer.cli`` finds the checkout PYTHONPATH names.
WHERE = tempfile.gettempdir()


def _child_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: list[str], env: dict[str, str], code: int = 0) -> tuple[float, float, str]:
    """``(wall s, CPU s, output)`` of one command in a fresh interpreter, which must exit with ``code``."""
    cpu, start = _child_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, cwd=WHERE)
    took, used = time.perf_counter() - start, _child_cpu() - cpu
    if done.returncode != code:
        raise SystemExit(f"exit {done.returncode}, expected {code}: {' '.join(argv)}\n{done.stderr[-2000:]}")
    return took, used, done.stdout + done.stderr


def import_groups(stderr: str) -> dict[str, float]:
    """Self import time (s) per top-level package from ``-X importtime`` output."""
    groups: dict[str, float] = defaultdict(float)
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if match:
            top = match.group(4).split(".")[0]
            groups[top if top in ("torch", "transformers", "scipy", "numpy", "explorer", "sympy", "tokenizers",
                                  "safetensors", "huggingface_hub", "jinja2") else "other"] += int(match.group(1)) / 1e6
    return dict(sorted(groups.items(), key=lambda kv: -kv[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", metavar="DIR", help="a checkout of an earlier version, timed in the same rounds")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = build_folder(root)
        stock_script = root / "stock.py"
        stock_script.write_text(STOCK)
        phases_script = root / "phases.py"
        phases_script.write_text(PHASES)
        out = str(root / "maps.npz")
        commands = {
            "python (nothing)": [py, "-c", "pass"],
            "import torch": [py, "-c", "import torch"],
            "import torch + transformers' BertModel": [py, "-c", "import torch, transformers; transformers.BertModel"],
            "transformers' own script": [py, str(stock_script), str(folder), out, TEXT],
            "attention-explorer-cli attention": [py, "-m", "explorer.cli", "attention", "--model", str(folder),
                                                 "--source", TEXT, "--out", out],
        }
        usage = [py, "-m", "explorer.cli", "attention", "--model", str(folder)]  # no text: a usage error
        commands["usage error (attention without a text)"] = usage
        commands["attention --help"] = [py, "-m", "explorer.cli", "attention", "--help"]
        envs = {name: env for name in commands}
        if args.before:
            before_env = {**env, "PYTHONPATH": str(Path(args.before).resolve())}
            for name in ("attention-explorer-cli attention", "usage error (attention without a text)",
                         "attention --help"):
                commands[f"before: {name}"] = commands[name]
                envs[f"before: {name}"] = before_env
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                wall, cpu, _ = timed(argv, envs[name], 2 if "usage" in name else 0)
                times[name].append(wall)
                cpus[name].append(cpu)
        medians = {name: statistics.median(v) for name, v in times.items()}
        cpu_medians = {name: statistics.median(v) for name, v in cpus.items()}
        print(f"one command in a fresh interpreter, median of {args.rounds} interleaved rounds: wall and CPU "
              "seconds (a shared machine: compare rows of this run; CPU time is the steadier)")
        for name, value in medians.items():
            print(f"  {name:<48} {value:6.2f} s wall  {cpu_medians[name]:6.2f} s CPU")
        ours, stock = cpu_medians["attention-explorer-cli attention"], cpu_medians["transformers' own script"]
        print(f"  ours − transformers' script (CPU): {ours - stock:+.2f} s ({ours / stock:.2f}×)")
        _, _, imports = timed([py, "-X", "importtime", *commands["attention-explorer-cli attention"][1:]], env)
        groups = import_groups(imports)
        torch_modules = {}
        for label, where in (("now", env), ("before", envs.get("before: usage error (attention without a text)"))):
            if where is not None:
                text = timed([py, "-X", "importtime", *usage[1:]], where, 2)[2]
                torch_modules[label] = sum(1 for line in text.splitlines() if re.search(r"\| +torch(\.|$)", line))
        print(f"torch modules imported by a usage error: {torch_modules}")
        print("self import time by package (one run, -X importtime):")
        for name, value in groups.items():
            print(f"  {name:<16} {value:6.2f} s")
        phase_runs = []
        for _ in range(max(1, args.rounds // 2)):
            _, _, text = timed([py, str(phases_script), str(folder), out, TEXT], env)
            phase_runs.append(eval(text.strip().splitlines()[-1], {}))  # our own script's dict of floats
        phases = {k: statistics.median(r[k] for r in phase_runs) for k in phase_runs[0]}
        print("in-process phases of one call (median):")
        for name, value in phases.items():
            print(f"  {name:<16} {value:6.2f} s")
    print(json.dumps({"bench": "cli_fixed_cost", "rounds": args.rounds,
                      "median_s": {k: round(v, 3) for k, v in medians.items()},
                      "median_cpu_s": {k: round(v, 3) for k, v in cpu_medians.items()},
                      "ours_minus_stock_s": round(ours - stock, 3), "ratio": round(ours / stock, 3),
                      "imports_s": {k: round(v, 3) for k, v in groups.items()},
                      "usage_error_torch_modules": torch_modules,
                      "phases_s": {k: round(v, 3) for k, v in phases.items()}}))


if __name__ == "__main__":
    main()
