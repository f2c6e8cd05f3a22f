"""A real published model as people have it: rxnfp's pretrained reaction BERT (12 layers × 4 heads, trained on
reaction SMILES; its folder has a config.json without ``model_type``, a ``pytorch_model.bin`` and a ``vocab.txt``).
What the app says about the folder, what its head summaries show (previous-token, next-token and ±2 heads), and
that its maps equal transformers' own ``output_attentions=True`` (max difference), in the same run.

    pip download --no-deps rxnfp==0.1.0 -d /tmp/rxnfp && (cd /tmp/rxnfp && unzip -q -o rxnfp-0.1.0-py3-none-any.whl)
    python bench/rxnfp_summaries.py [--folder /tmp/rxnfp/rxnfp/models/transformers/bert_pretrained]

Texts are split into tokens with rxnfp's own SMILES regular expression (its tokenizer does so before the vocabulary)
and read as given; the vocab.txt alone makes a lower-casing BERT tokenizer, whose [UNK] share is reported too.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from explorer.core.debug.head_summaries import OFFSETS, summarize_heads  # noqa: E402
from explorer.core.inspect.given_tokens import GivenTokens  # noqa: E402
from explorer.core.inspect.interface import ModelError  # noqa: E402
from explorer.core.inspect.opening import open_model  # noqa: E402
from explorer.core.inspect.token_roles import count_unknown  # noqa: E402

FOLDER = "/tmp/rxnfp/rxnfp/models/transformers/bert_pretrained"
#: rxnfp's SMILES_REGEX (rxnfp/tokenization.py), as its tokenizer splits reactions before the vocabulary.
SMILES = re.compile(r"(\%\([0-9]{3}\)|\[[^\]]+]|Br?|Cl?|N|O|S|P|F|I|b|c|n|o|s|p|\||\(|\)|\.|=|#|-|\+|\\|\/|:|~|@|\?"
                    r"|>>?|\*|\$|\%[0-9]{2}|[0-9])")
#: A head "does" its dominant offset when at least this much of its weight sits there on average.
STRONG = 0.3
#: Reactions of common kinds (esterification, amide coupling, Suzuki, SN2, reduction, Boc removal …).
REACTIONS = [
    "CC(=O)Cl.OCC>>CCOC(C)=O",
    "CC(=O)O.OCC>>CCOC(C)=O",
    "O=C(O)c1ccccc1.NCc1ccccc1>>O=C(NCc1ccccc1)c1ccccc1",
    "Brc1ccccc1.OB(O)c1ccccc1>>c1ccc(-c2ccccc2)cc1",
    "COc1ccc(Br)cc1.OB(O)c1ccncc1>>COc1ccc(-c2ccncc2)cc1",
    "CCBr.Oc1ccccc1>>CCOc1ccccc1",
    "CI.O=C(O)c1ccccc1>>COC(=O)c1ccccc1",
    "O=Cc1ccccc1>>OCc1ccccc1",
    "CC(=O)c1ccccc1>>CC(O)c1ccccc1",
    "CC(C)(C)OC(=O)NCCN>>NCCN",
    "CC(C)(C)OC(=O)N1CCNCC1>>C1CNCCN1",
    "O=[N+]([O-])c1ccccc1>>Nc1ccccc1",
    "Nc1ccccc1.CC(=O)OC(C)=O>>CC(=O)Nc1ccccc1",
    "OCc1ccccc1>>O=Cc1ccccc1",
    "C=Cc1ccccc1>>CCc1ccccc1",
    "Clc1ccc(Cl)nc1.NC1CC1>>Clc1ccc(NC2CC2)nc1",
    "CS(=O)(=O)Cl.OCCc1ccccc1>>CS(=O)(=O)OCCc1ccccc1",
    "O=C(Cl)c1ccc(F)cc1.N1CCOCC1>>O=C(c1ccc(F)cc1)N1CCOCC1",
    "COC(=O)c1ccc(N)cc1>>Nc1ccc(C(=O)O)cc1",
    "Ic1ccccc1.C#CCO>>OCC#Cc1ccccc1",
    "CCOC(=O)CC(=O)OCC.BrCc1ccccc1>>CCOC(=O)C(Cc1ccccc1)C(=O)OCC",
    "O=C1CCCCC1.NCc1ccccc1>>C1CCC(NCc2ccccc2)CC1",
    "OC1CCCCC1>>O=C1CCCCC1",
    "Cc1ccc(S(=O)(=O)Cl)cc1.NCCO>>Cc1ccc(S(=O)(=O)NCCO)cc1",
]


def given(reaction: str) -> GivenTokens:
    return GivenTokens(tokens=("[CLS]", *SMILES.findall(reaction), "[SEP]"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=FOLDER)
    args = ap.parse_args()
    source = Path(args.folder)
    if not (source / "config.json").is_file():
        raise SystemExit(f"no rxnfp folder at {source}: see this script's docstring for how to get it")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / source.name
        shutil.copytree(source, folder)
        # 1. the folder as published
        try:
            open_model(folder)
            said = "(opened)"
        except ModelError as exc:
            said = str(exc)
        print(f"as published: {said}")
        line = re.search(r'"model_type": "([\w-]+)"', said)
        if line is None:
            raise SystemExit("the message did not name the line to add")
        config = json.loads((folder / "config.json").read_text())
        config["model_type"] = line.group(1)
        (folder / "config.json").write_text(json.dumps(config, indent=2))
        print(f'added "model_type": "{line.group(1)}" as the message says')
        model = open_model(folder)
        info = model.describe()
        print(f"opened: {info.summary()}; tokenizer {type(model.tokenizer).__name__} from vocab.txt")
        # 2. text through the vocab.txt tokenizer (lower-cases: C and c are different atoms here)
        typed = sum((count_unknown(model, model.attention(r).source_tokens) for r in REACTIONS),
                    count_unknown(model, []))
        print(f"text through the vocab.txt tokenizer: {typed.warning() if typed.many else typed}")
        # 3. the same reactions split by rxnfp's regex, read as given
        pairs = [(given(r), "") for r in REACTIONS]
        split = sum((count_unknown(model, model.attention(g).source_tokens) for g, _ in pairs),
                    count_unknown(model, []))
        print(f"split with rxnfp's regex: {split.unknown} of {split.total} tokens unknown")
        summary = summarize_heads(model, pairs)
        scores = summary.scores["encoder"]
        offset, share = scores["offset"], scores["offset_share"]
        print(f"\nhead summaries over {summary.sentences} reactions ({split.total} tokens): dominant offset k "
              "(key = query + k) and its mean weight")
        print("layer " + " ".join(f"   h{h}      " for h in range(offset.shape[1])))
        for layer in range(offset.shape[0]):
            print(f"{layer:>5} " + " ".join(f"{int(offset[layer, h]):+d} ({share[layer, h]:.2f})   "
                                            for h in range(offset.shape[1])))
        found = {k: [(int(l), int(h)) for l, h in zip(*np.nonzero(offset == k))] for k in (-2, -1, 1, 2)}
        names = {-1: "previous-token", 1: "next-token", -2: "two back", 2: "two ahead"}
        strong = {k: [(l, h) for l, h in heads if share[l, h] >= STRONG] for k, heads in found.items()}
        for k, heads in found.items():
            print(f"{names[k]:<15} (k={k:+d}): {len(heads):>2} heads, {len(strong[k])} with weight ≥ {STRONG}: "
                  f"{[f'L{l}h{h} {share[l, h]:.2f}' for l, h in strong[k]]}")
        sinks = np.argwhere(scores["first"] > 0.5)
        print(f"heads with > 50 % on the first token ([CLS], a sink): {len(sinks)}; mean share on special tokens "
              f"{np.nanmean(scores['special']):.2f}")
        old = {"previous": scores["previous"], "next": scores["next"]}
        missed = [(l, h) for k in (-2, 2) for l, h in found[k]]
        print(f"±2 heads whose 'previous'/'next' (the old summary) stays below their ±2 weight: "
              f"{sum(1 for l, h in missed if max(old['previous'][l, h], old['next'][l, h]) < share[l, h])} of "
              f"{len(missed)}")
        # 4. our maps against transformers' own output_attentions=True on the same ids
        import torch
        from transformers import BertModel

        from explorer.core.inspect.hf.folder import hf_session

        with hf_session():
            theirs_model = BertModel.from_pretrained(folder, attn_implementation="eager").eval()
        worst = 0.0
        for g, _ in pairs:
            ids = g.to_ids(model.tokenizer, info.vocab_size)
            ours = model.attention(g).maps["encoder"]
            with torch.no_grad():
                theirs = theirs_model(torch.tensor([ids]), output_attentions=True).attentions
            worst = max(worst, max(float(np.abs(o - t[0].numpy()).max()) for o, t in zip(ours, theirs)))
        print(f"\nmax |ours − transformers' output_attentions| over {len(pairs)} reactions × 48 heads: {worst:.3g}")
    print(json.dumps({"bench": "rxnfp_summaries", "model": "rxnfp bert_pretrained", "layers": info.layers["encoder"],
                      "heads": info.heads["encoder"], "reactions": summary.sentences, "tokens": split.total,
                      "message_as_published": said, "unknown_share_vocab_tokenizer": round(typed.share, 4),
                      "unknown_share_regex": round(split.share, 4),
                      "heads_by_offset": {str(k): len(v) for k, v in found.items()},
                      "strong_heads_by_offset": {str(k): len(v) for k, v in strong.items()}, "strong": STRONG,
                      "offsets": {f"L{l}h{h}": int(offset[l, h]) for l in range(offset.shape[0])
                                  for h in range(offset.shape[1])},
                      "offset_range": [int(OFFSETS[0]), int(OFFSETS[-1])], "max_abs_diff": worst}))


if __name__ == "__main__":
    main()
