"""The sentence set a debugging tool reads for a model: our own models read the book's preprocessed pairs
(lower-cased, spaced punctuation, §10.5), a model with its own tokenizer reads each file line as written
(``text<TAB>target`` or one text per line)."""
from __future__ import annotations

import os

from explorer.core.data.readers import DatasetError, read_pairs
from explorer.core.data.sources import BUILTIN_SPEC, TASK_PREFIX
from explorer.core.debug.ablation import load_pairs
from explorer.core.inspect.interface import InspectableModel


def reads_text_as_written(model: InspectableModel) -> bool:
    """Whether ``model`` tokenizes text itself (a Hugging Face model), so nothing may be changed before it."""
    return model.describe().origin == "huggingface"


def load_texts(spec: str | os.PathLike[str], num_examples: int | None = 100, seed: int = 0,
               as_written: bool = False) -> list[tuple[str, str]]:
    """``(source, target)`` pairs of a data spec as :func:`~explorer.core.debug.ablation.load_pairs` reads them,
    or, ``as_written``, a file's lines unchanged (a line without a tab: ``(text, "")``). The built-in corpus and the
    synthetic tasks are the app's own and always come preprocessed.

    Raises ``DatasetError`` (a ``ValueError``) for an unreadable source or an empty set."""
    text = os.fspath(spec) if isinstance(spec, os.PathLike) else spec
    low = text.strip().lower() if isinstance(text, str) else ""
    if not as_written or not low or low == BUILTIN_SPEC or low.startswith(TASK_PREFIX):
        return load_pairs(spec, num_examples, seed)
    pairs = read_pairs(text.strip(), num_examples, as_written=True).pairs
    if not pairs:
        raise DatasetError("the sentence set is empty: choose a file with at least one text")
    return pairs


def texts_for(model: InspectableModel, spec: str | os.PathLike[str], num_examples: int | None = 100,
              seed: int = 0) -> list[tuple[str, str]]:
    """The sentence set of ``spec`` as ``model`` should read it (see the module docstring)."""
    return load_texts(spec, num_examples, seed, as_written=reads_text_as_written(model))
