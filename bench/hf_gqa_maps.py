"""Every attention map of a decoder the shape of a 0.5B grouped-query model (Qwen2-like: 24 layers, 14 query heads,
2 key/value heads, width 896; random weights from a config, no download), through the app's path beside
transformers' own ``forward(output_attentions=True)`` in the same run.

Cases (each long text in its own process, so its peak memory is its own):
  1,024 tokens  ``inspect_text`` (what the inspector runs: full maps would pass its budget, so each layer is
                pooled to thumbnails as it is computed and heads open on demand) vs transformers' forward with
                every map returned; the memory the app holds for maps (thumbnails + recorded inputs for heads)
  4,096 tokens  the same path only (transformers' full maps would be 22 GB): time and peak RSS
  grid          the inspector's grid widget drawing the 1,024-token thumbnails offscreen (336 heads)
Prints figures, then one JSON line.

    python bench/hf_gqa_maps.py [--quick] [--tokens 1024] [--long 4096]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's explorer, installed or not

FULL = {"hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
        "num_key_value_heads": 2, "vocab_size": 151936, "max_position_embeddings": 32768, "tie_word_embeddings": True}
QUICK = {**FULL, "num_hidden_layers": 4, "intermediate_size": 1024, "vocab_size": 4096}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def build(folder: Path, quick: bool) -> None:
    """A random Qwen2-shaped model and a byte-level tokenizer (one token per character of plain text)."""
    import torch
    import transformers
    from transformers import Qwen2Config, Qwen2ForCausalLM, Qwen2Tokenizer

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    torch.manual_seed(0)
    Qwen2ForCausalLM(Qwen2Config(**(QUICK if quick else FULL))).save_pretrained(folder)
    table = [chr(c) for c in range(ord("!"), ord("~") + 1)] + ["Ġ"]  # printable ASCII, Ġ is the space
    vocab = {"<|endoftext|>": 0, **{ch: i + 1 for i, ch in enumerate(table)}}
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    Qwen2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), unk_token=None,
                   eos_token="<|endoftext|>", pad_token="<|endoftext|>").save_pretrained(folder)


def text_of(tokens: int) -> str:
    words = "the cat sat on the mat and a dog ran in the park ".replace(" ", "")  # one token per character
    return (words * (tokens // len(words) + 1))[:tokens]


def ours(folder: Path, tokens: int) -> dict[str, float]:
    """The app's path on a text of ``tokens`` tokens (run in a child process for its own peak RSS)."""
    import torch

    from explorer.core.inspect.inspection import inspect_text
    from explorer.core.inspect.opening import open_model

    torch.set_grad_enabled(False)
    model = open_model(folder)
    text = text_of(tokens)
    base = _rss_mb()
    t0 = time.perf_counter()
    shown = inspect_text(model, text)
    elapsed = time.perf_counter() - t0
    replay = getattr(model, "_replay", None)
    held = shown.nbytes() + (replay.nbytes() if replay is not None else 0)
    t0 = time.perf_counter()
    head = model.head_attention(text, None, "decoder", 23 if len(shown.thumbnails["decoder"]) > 23 else 0, 5)
    head_s = time.perf_counter() - t0
    assert head.shape == (tokens, tokens) and len(shown.query_tokens["decoder"]) == tokens
    return {"ours_s": elapsed, "held_mb": held / 2**20, "thumbnails_mb": shown.nbytes() / 2**20,
            "head_s": head_s, "peak_rss_mb": _rss_mb(), "rss_before_mb": base, "full": float(shown.full)}


def theirs(folder: Path, tokens: int) -> dict[str, float]:
    """transformers' own forward with every map returned, on the same text and model."""
    import torch
    import transformers

    torch.set_grad_enabled(False)
    tok = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, local_files_only=True,
                                                              attn_implementation="eager").eval()
    ids = torch.tensor([tok(text_of(tokens))["input_ids"]])
    assert ids.shape[1] == tokens
    t0 = time.perf_counter()
    out = model.model(input_ids=ids, output_attentions=True, use_cache=False)
    maps = [a[0].numpy().copy() for a in out.attentions]  # as numpy, as an app would hold them
    elapsed = time.perf_counter() - t0
    return {"theirs_s": elapsed, "theirs_maps_mb": sum(m.nbytes for m in maps) / 2**20, "peak_rss_mb": _rss_mb()}


def grid(folder: Path, tokens: int) -> dict[str, float]:
    """The inspector's grid widget drawing every thumbnail of the text offscreen."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from explorer.core.inspect.inspection import inspect_text
    from explorer.core.inspect.opening import open_model
    from explorer.ui.widgets.attention_grid_widget import AttentionGrid, grid_layout

    app = QApplication.instance() or QApplication([])
    model = open_model(folder)
    info = model.describe()
    shown = inspect_text(model, text_of(tokens))
    widget = AttentionGrid()
    widget.set_head_info(info.kv_heads, info.windows)
    widget.resize(1600, 1200)
    t0 = time.perf_counter()
    widget.prepare_layout(grid_layout(shown))
    build_s = time.perf_counter() - t0
    draws = []
    for _ in range(3):
        t0 = time.perf_counter()
        widget.set_snapshot(shown)
        widget.grab()  # paint every thumbnail
        app.processEvents()
        draws.append(time.perf_counter() - t0)
    return {"grid_build_s": build_s, "grid_draw_s": min(draws)}


def child(case: str, folder: Path, tokens: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", case, "--folder", str(folder), "--tokens",
                          str(tokens)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{case} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 layers, a small vocabulary: a fast check")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--long", type=int, default=4096)
    parser.add_argument("--child", choices=("ours", "theirs", "grid"))
    parser.add_argument("--folder", type=Path)
    args = parser.parse_args()
    if args.child:
        print(json.dumps({"ours": ours, "theirs": theirs, "grid": grid}[args.child](args.folder, args.tokens)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "qwen2-0.5b-shape"
        t0 = time.perf_counter()
        build(folder, args.quick)
        print(f"built {'quick' if args.quick else '0.5B-shape'} model in {time.perf_counter() - t0:.1f} s")
        mine = child("ours", folder, args.tokens)
        ref = child("theirs", folder, args.tokens)
        ratio = mine["ours_s"] / ref["theirs_s"]
        print(f"{args.tokens} tokens: ours {mine['ours_s']:.2f} s (inspect_text, pooled, full={bool(mine['full'])}) vs "
              f"transformers forward(output_attentions=True) {ref['theirs_s']:.2f} s: {ratio:.2f}x (goal <= 1.3x)")
        print(f"  maps held by the app: {mine['held_mb']:.1f} MB (thumbnails {mine['thumbnails_mb']:.1f} MB + "
              f"recorded inputs for heads on demand; goal <= 1024 MB); transformers' maps {ref['theirs_maps_mb']:.0f} MB")
        print(f"  one head on demand: {mine['head_s'] * 1000:.0f} ms; peak RSS ours {mine['peak_rss_mb']:.0f} MB, "
              f"transformers {ref['peak_rss_mb']:.0f} MB")
        long = child("ours", folder, args.long)
        print(f"{args.long} tokens: ours {long['ours_s']:.2f} s, held {long['held_mb']:.1f} MB, peak RSS "
              f"{long['peak_rss_mb']:.0f} MB (model loaded: {long['rss_before_mb']:.0f} MB)")
        drawn = child("grid", folder, args.tokens)
        print(f"grid: built in {drawn['grid_build_s'] * 1000:.0f} ms, drawn in {drawn['grid_draw_s'] * 1000:.0f} ms "
              f"(goal <= 300 ms)")
    print(json.dumps({"bench": "hf_gqa_maps", "quick": args.quick, "tokens": args.tokens, "ours_s": mine["ours_s"],
                      "transformers_s": ref["theirs_s"], "ratio": ratio, "held_mb": mine["held_mb"],
                      "head_ms": mine["head_s"] * 1000, "peak_rss_mb": mine["peak_rss_mb"],
                      "transformers_peak_rss_mb": ref["peak_rss_mb"], "long_tokens": args.long,
                      "long_s": long["ours_s"], "long_held_mb": long["held_mb"],
                      "long_peak_rss_mb": long["peak_rss_mb"], "grid_build_ms": drawn["grid_build_s"] * 1000,
                      "grid_draw_ms": drawn["grid_draw_s"] * 1000}))


if __name__ == "__main__":
    main()
