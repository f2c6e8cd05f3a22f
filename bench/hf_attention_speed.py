"""Attention maps of real-size Hugging Face models, random weights built from configs (no download).

Cases, each in its own process (so its peak memory is its own):
  bert-128, bert-512  BERT-base shape (12 layers × 12 heads, d=768, vocab 30,522): open the folder, then
                      ``attention()`` = forward pass + every map as float32 numpy (target: ≤ 1 s at 128 tokens)
  gpt2-4096           a decoder-only model for 4,096 positions (12 × 12, d=768) on a 4,096-token text:
                      ``pooled_attention(size=256)`` pools each layer as it is computed (12 × 12 full maps
                      would be 9.66 GB), then ``head_attention()`` opens heads at full resolution by replaying
                      one layer's attention module on the recorded inputs
Prints one line per case, then one JSON line.

    python bench/hf_attention_speed.py [--repeat 3] [--cases bert-128,bert-512,gpt2-4096] [--stop-early]
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = ("bert-128", "bert-512", "gpt2-4096")
WORDS = [f"w{i}" for i in range(30522 - 5)]


def _quiet() -> None:
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def build_bert(folder: Path) -> None:
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    _quiet()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    torch.manual_seed(0)
    BertModel(BertConfig()).save_pretrained(folder)  # BertConfig() is bert-base: 12 × 12, d=768, 512 positions
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)


def build_gpt2(folder: Path) -> None:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer

    _quiet()
    folder.mkdir(parents=True, exist_ok=True)
    printable = [chr(c) for c in range(ord("!"), ord("~") + 1)]  # one token per byte: a 4,096-byte text
    vocab = {ch: i for i, ch in enumerate(["Ġ", *printable])}
    vocab["<|endoftext|>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    torch.manual_seed(0)
    config = GPT2Config(n_positions=4096, n_layer=12, n_head=12, n_embd=768, vocab_size=len(vocab),
                        bos_token_id=len(vocab) - 1, eos_token_id=len(vocab) - 1)
    GPT2LMHeadModel(config).save_pretrained(folder)
    GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt")).save_pretrained(folder)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def run_bert(folder: Path, tokens: int, repeat: int) -> dict:
    from explorer.core.inspect.opening import open_model

    t0 = time.perf_counter()
    model = open_model(folder)
    open_s = time.perf_counter() - t0
    text = " ".join(WORDS[:tokens - 2])  # + [CLS] and [SEP]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = model.attention(text)
        times.append(time.perf_counter() - t0)
    forward = []  # the same pass with every map dropped as it comes: what keeping the maps costs on top
    for _ in range(repeat):
        t0 = time.perf_counter()
        model._run(model._encode(text, None), lambda kind, layer, weights: None)
        forward.append(time.perf_counter() - t0)
    maps = result.maps["encoder"]
    assert len(result.source_tokens) == tokens and len(maps) == 12 and maps[0].shape == (12, tokens, tokens)
    return {"case": f"bert-{tokens}", "parameters": model.describe().parameters, "tokens": tokens,
            "open_s": open_s, "first_s": times[0], "median_s": statistics.median(times),
            "forward_only_median_s": statistics.median(forward),
            "maps_mb": result.nbytes() / 2**20, "peak_rss_mb": _peak_mb()}


def run_gpt2(folder: Path, stop_early: bool) -> dict:
    import numpy as np

    from explorer.core.inspect.opening import open_model

    t0 = time.perf_counter()
    model = open_model(folder)
    open_s = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    text = "".join(rng.choice(list("abcdefghij klmnopqrstuvwxyz.,"), size=4096))
    base_mb = _peak_mb()
    t0 = time.perf_counter()
    pooled = model.pooled_attention(text, size=256)
    pooled_s = time.perf_counter() - t0
    assert len(pooled.source_tokens) == 4096 and pooled.maps["decoder"].shape == (12, 12, 256, 256)
    replay_mb = model._replay.nbytes() / 2**20 if model._replay is not None else 0.0
    heads = []
    for layer, head in ((11, 5), (0, 0), (6, 11)):
        t0 = time.perf_counter()
        full = model.head_attention(text, None, "decoder", layer, head)
        heads.append(time.perf_counter() - t0)
    assert full.shape == (4096, 4096) and full.dtype == np.float32
    row = {"case": "gpt2-4096", "parameters": model.describe().parameters, "tokens": 4096, "open_s": open_s,
           "pooled_s": pooled_s, "pooled_mb": pooled.nbytes() / 2**20, "replay_mb": replay_mb,
           "one_head_mb": full.nbytes / 2**20, "head_replay_s": statistics.median(heads),
           "held_mb": (pooled.nbytes() + full.nbytes) / 2**20 + replay_mb,
           "full_maps_would_be_mb": 12 * 12 * 4096 * 4096 * 4 / 2**20,
           "peak_rss_mb": _peak_mb(), "rss_before_pass_mb": base_mb}
    if stop_early:  # the fallback without recorded inputs: a forward pass that stops after the head's layer
        model.forget()
        t0 = time.perf_counter()
        model.head_attention(text, None, "decoder", 11, 5)
        row["head_stop_early_last_layer_s"] = time.perf_counter() - t0
    return row


def child(case: str, folder: Path, repeat: int, stop_early: bool) -> None:
    import torch

    if case.startswith("bert"):
        row = run_bert(folder / "bert", int(case.split("-")[1]), repeat)
    else:
        row = run_gpt2(folder / "gpt2", stop_early)
    row["threads"] = torch.get_num_threads()
    print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--stop-early", action="store_true", help="also time a head without recorded inputs")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        child(args.case, Path(args.folder), args.repeat, args.stop_early)
        return
    cases = [c for c in args.cases.split(",") if c]
    rows = []
    with tempfile.TemporaryDirectory(prefix="hf_bench_") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        if any(c.startswith("bert") for c in cases):
            build_bert(folder / "bert")
        if "gpt2-4096" in cases:
            build_gpt2(folder / "gpt2")
        print(f"built random-weight folders in {time.perf_counter() - t0:.1f} s", flush=True)
        for case in cases:
            cmd = [sys.executable, __file__, "--case", case, "--folder", tmp, "--repeat", str(args.repeat)]
            out = subprocess.run(cmd + (["--stop-early"] if args.stop_early else []), capture_output=True,
                                 text=True, check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(row)
            print("  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
                  flush=True)
    print(json.dumps({"bench": "hf_attention_speed", "cases": rows}))


if __name__ == "__main__":
    main()
