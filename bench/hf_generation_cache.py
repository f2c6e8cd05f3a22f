"""Generation on a decoder-only model with and without the key/value cache: the app's one decoding loop (greedy
steps with each step's attention row and top probabilities; a beam tree) on a Qwen2-shaped grouped-query decoder
(random weights from a config, no download), beside transformers' own ``generate`` in the same run, on the same
prompt. The cache is what lets a beam tree or an ablation sweep on a real model skip re-reading the prompt.

Rows (median of ``--repeats``, seconds):
  greedy   ours with the cache · ours re-running the prefix each step · transformers' generate (its cache, no
           attention) · transformers' generate returning every step's attention
  beam     a width-4 beam tree with the cache · without · transformers' beam search (length penalty 0, same ids)
The token ids must agree (checked). Prints figures, then one JSON line.

    python bench/hf_generation_cache.py [--full] [--prompt 256] [--new 32] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's explorer, installed or not

#: The shape of a 0.5B grouped-query model (24 layers, 14 query heads, 2 key/value heads, width 896).
FULL = {"hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
        "num_key_value_heads": 2, "vocab_size": 151936, "max_position_embeddings": 32768, "tie_word_embeddings": True}
#: Its layers at full width, fewer of them and a smaller vocabulary (a shared 2-core machine).
QUICK = {**FULL, "num_hidden_layers": 4, "intermediate_size": 1024, "vocab_size": 4096}


def build(folder: Path, full: bool) -> None:
    """A random Qwen2-shaped model and a byte-level tokenizer (one token per character of plain text)."""
    import torch
    import transformers
    from transformers import Qwen2Config, Qwen2ForCausalLM, Qwen2Tokenizer

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    torch.manual_seed(0)
    Qwen2ForCausalLM(Qwen2Config(**(FULL if full else QUICK), initializer_range=0.1, eos_token_id=0,
                                 bos_token_id=0)).save_pretrained(folder)
    table = [chr(c) for c in range(ord("!"), ord("~") + 1)] + ["Ġ"]  # printable ASCII, Ġ is the space
    vocab = {"<|endoftext|>": 0, **{ch: i + 1 for i, ch in enumerate(table)}}
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    Qwen2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), unk_token="<|endoftext|>",
                   eos_token="<|endoftext|>", pad_token="<|endoftext|>").save_pretrained(folder)


def timed(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="all 24 layers and the full vocabulary")
    parser.add_argument("--prompt", type=int, default=256, help="prompt length in tokens")
    parser.add_argument("--new", type=int, default=32, help="tokens to generate (greedy); beams get half")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import torch

    from explorer.core.debug.beam_tree import beam_tree
    from explorer.core.debug.sampling import decode_steps
    from explorer.core.inspect.hf.steps import HFSteps
    from explorer.core.inspect.opening import open_model

    threads = torch.get_num_threads()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "qwen2_shape"
        folder.mkdir()
        build(folder, args.full)
        model = open_model(folder)
    ref = model.model  # the same weights, run by transformers' own generate
    text = ("the cat sat on the mat and looked at the dog. " * 64)[:args.prompt]
    ids = torch.tensor([model.tokenizer(text)["input_ids"]])
    assert ids.shape[1] == args.prompt, ids.shape
    n, beams_new = args.new, max(1, args.new // 2)

    def ours(cache: bool):
        return decode_steps(HFSteps(model, cache=cache), text, max_new_tokens=n)

    def theirs(attentions: bool):
        with torch.no_grad():
            out = ref.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=n,
                               pad_token_id=0, eos_token_id=None, output_attentions=attentions,
                               return_dict_in_generate=True)
        return out.sequences[0, ids.shape[1]:].tolist()

    def tree(cache: bool):
        return beam_tree(HFSteps(model, cache=cache), text, 4, length_penalty=0.0, max_new_tokens=beams_new)

    def their_beams():
        with torch.no_grad():
            out = ref.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, num_beams=4,
                               length_penalty=0.0, max_new_tokens=beams_new, pad_token_id=0, eos_token_id=None)
        return out[0, ids.shape[1]:].tolist()

    model.model.generation_config.eos_token_id = None  # every run makes all n tokens: same work on each side
    rows = {}
    rows["greedy_cache_s"], cached = timed(lambda: ours(True), args.repeats)
    rows["greedy_no_cache_s"], plain = timed(lambda: ours(False), 1)
    rows["transformers_greedy_s"], their_ids = timed(lambda: theirs(False), args.repeats)
    rows["transformers_greedy_attn_s"], _ = timed(lambda: theirs(True), args.repeats)
    rows["beam4_cache_s"], tree_cached = timed(lambda: tree(True), args.repeats)
    rows["beam4_no_cache_s"], tree_plain = timed(lambda: tree(False), 1)
    rows["transformers_beam4_s"], their_beam_ids = timed(their_beams, args.repeats)
    same_greedy = cached.ids == plain.ids == their_ids
    same_beam = tree_cached.best_ids() == tree_plain.best_ids() == their_beam_ids
    shape = "full" if args.full else "quick"
    layers = (FULL if args.full else QUICK)["num_hidden_layers"]
    print(f"Qwen2-shaped decoder ({shape}: {layers} layers, 14 query / 2 key-value heads, width 896), prompt "
          f"{args.prompt} tokens, {n} new (beams: {beams_new}), {threads} torch threads, load "
          f"{os.getloadavg()[0]:.1f}")
    print(f"  greedy   ours, cache {rows['greedy_cache_s']:.2f} s · ours, no cache {rows['greedy_no_cache_s']:.2f} s "
          f"({rows['greedy_no_cache_s'] / rows['greedy_cache_s']:.1f}×) · transformers "
          f"{rows['transformers_greedy_s']:.2f} s · transformers with attentions "
          f"{rows['transformers_greedy_attn_s']:.2f} s · same ids: {same_greedy}")
    print(f"  beam 4   ours, cache {rows['beam4_cache_s']:.2f} s · ours, no cache {rows['beam4_no_cache_s']:.2f} s "
          f"({rows['beam4_no_cache_s'] / rows['beam4_cache_s']:.1f}×) · transformers "
          f"{rows['transformers_beam4_s']:.2f} s · same ids: {same_beam}")
    print(json.dumps({"bench": "hf_generation_cache", "shape": shape, "layers": layers, "prompt": args.prompt,
                      "new_tokens": n, "beam_new_tokens": beams_new, "threads": threads,
                      **{k: round(v, 4) for k, v in rows.items()},
                      "no_cache_over_cache_greedy": round(rows["greedy_no_cache_s"] / rows["greedy_cache_s"], 2),
                      "ours_over_transformers_attn_greedy": round(rows["greedy_cache_s"] /
                                                                   rows["transformers_greedy_attn_s"], 2),
                      "same_greedy_ids": same_greedy, "same_beam_ids": same_beam}))


if __name__ == "__main__":
    main()
