"""Input already split into tokens, or given as token ids, for a model to read exactly as given: no tokenizer
runs and no special token is added (for SMILES, code, or a folder without a tokenizer)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.core.inspect.interface import ModelError


@dataclass(frozen=True)
class GivenTokens:
    """Either ``ids`` or ``tokens`` (strings of the model's vocabulary); hashable, so it keys a replay like text."""

    ids: tuple[int, ...] = ()
    tokens: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if bool(self.ids) == bool(self.tokens):
            raise ModelError("give either token ids or tokens, and at least one")

    def __bool__(self) -> bool:
        return True

    def __str__(self) -> str:
        return " ".join(self.tokens) if self.tokens else ",".join(str(i) for i in self.ids)

    def to_ids(self, tokenizer: Any, vocab_size: int) -> list[int]:
        """The ids the model reads; :class:`ModelError` for an id outside ``[0, vocab_size)`` (0: no limit known)."""
        ids = list(self.ids) if self.ids else [int(i) for i in tokenizer.convert_tokens_to_ids(list(self.tokens))]
        bad = [i for i in ids if i < 0 or (vocab_size and i >= vocab_size)]
        if bad:
            raise ModelError(f"token id {bad[0]} does not exist: this model's ids are 0 to {vocab_size - 1}")
        return ids


def parse_ids(text: str) -> GivenTokens:
    """``"101, 2023,102"`` -> :class:`GivenTokens` of those ids; :class:`ModelError` for anything else."""
    parts = [p.strip() for p in str(text).replace(" ", ",").split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise ModelError(f"expected token ids such as 101,2023,102, got {text!r}")
    return GivenTokens(ids=tuple(int(p) for p in parts))


def split_tokens(text: str) -> GivenTokens:
    """``"[CLS] C C O [SEP]"`` -> :class:`GivenTokens` of those tokens (split on spaces)."""
    tokens: Sequence[str] = str(text).split()
    if not tokens:
        raise ModelError("the tokens are empty: give tokens separated by spaces, such as \"[CLS] C C O [SEP]\"")
    return GivenTokens(tokens=tuple(tokens))
