"""Which tokens of a model play a role of their own: its special tokens ([CLS], [SEP], <s>, </s>, <eos> …) and
its unknown token, with the share of a text's tokens that fell back to it (many of them: the text or the
tokenizer is not what the model was trained on)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from explorer.core.data.text import RESERVED_TOKENS, UNK

#: Above this share of unknown tokens a warning is shown (a few rare words are normal; this many is not).
UNKNOWN_WARN_SHARE = 0.05


def special_tokens(model: Any) -> frozenset[str]:
    """The token strings that mark structure for ``model``: a Hugging Face tokenizer's special tokens, else the
    book's reserved tokens (``<pad> <bos> <eos>``); never the unknown token."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None:  # the unknown token stands for a piece of text, not a marker
        unk = getattr(tokenizer, "unk_token", None)
        return frozenset(str(t) for t in (getattr(tokenizer, "all_special_tokens", None) or ()) if t != unk)
    return frozenset(RESERVED_TOKENS)


def unknown_token(model: Any) -> str | None:
    """The token a tokenizer falls back to for what it cannot read (None when it has none, e.g. byte-level BPE)."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None:
        unk = getattr(tokenizer, "unk_token", None)
        return str(unk) if unk else None
    return UNK


@dataclass(frozen=True)
class UnknownCount:
    """How many of ``total`` tokens are the unknown token ``token``."""

    unknown: int
    total: int
    token: str | None

    @property
    def share(self) -> float:
        return self.unknown / self.total if self.total else 0.0

    @property
    def many(self) -> bool:
        return self.share > UNKNOWN_WARN_SHARE

    def __add__(self, other: UnknownCount) -> UnknownCount:
        return UnknownCount(self.unknown + other.unknown, self.total + other.total, self.token or other.token)

    def warning(self) -> str:
        """One line saying how many tokens are unknown and what that usually means."""
        return (f"{self.unknown} of {self.total} tokens ({100 * self.share:.1f} %) are the unknown token "
                f"{self.token}: the text is read in a way the tokenizer does not know (another case, script or "
                "alphabet), or the tokenizer is not the model's; the maps of those tokens mean little")


def count_unknown(model: Any, tokens: Iterable[str]) -> UnknownCount:
    """Count ``tokens`` equal to ``model``'s unknown token."""
    unk = unknown_token(model)
    listed = list(tokens)
    return UnknownCount(sum(1 for t in listed if unk is not None and t == unk), len(listed), unk)
