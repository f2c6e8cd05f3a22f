"""What stands in for the tokenizer of a model folder that has none: the model still opens and reads token ids
given as such (the CLI's ``--token-ids``); any text is refused with one line saying what to do."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.core.inspect.interface import ModelError


class NoTokenizerError(ModelError):
    """Text was given to a model whose folder has no tokenizer."""


class IdsOnlyTokenizer:
    """The parts of a transformers tokenizer the app uses, for ids only: tokens are shown as their ids."""

    unk_token = None
    pad_token_id = None
    eos_token_id = None
    all_special_tokens: list[str] = []
    all_special_ids: list[int] = []

    def __init__(self, name: str) -> None:
        self.name_or_path = name

    def __len__(self) -> int:
        return 0  # no vocabulary of its own: the model's config says how many ids there are

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NoTokenizerError(f"{self.name_or_path} has no tokenizer (no tokenizer.json, vocab.txt, vocab.json or "
                               "sentencepiece model), so it cannot read text: give token ids instead "
                               "(attention-explorer-cli --token-ids 101,2023,102), or copy the model's tokenizer "
                               "files into the folder")

    tokenize = __call__

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        return [str(int(i)) for i in ids]

    def convert_tokens_to_ids(self, tokens: Sequence[str]) -> list[int]:
        if all(str(t).isdigit() for t in tokens):
            return [int(t) for t in tokens]
        return self(tokens)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        return " ".join(self.convert_ids_to_tokens(ids))

    def get_vocab(self) -> dict[str, int]:
        return {}
