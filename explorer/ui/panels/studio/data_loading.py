"""What the studio loads its training pairs from (book §10.5 data): source specs, load requests and the
loader that runs off the GUI thread. Plain data and core calls only; no widgets."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.core.data_sources import DataSource, load_source
from explorer.core.text import build_dataset
from explorer.ui.process_settings import cyclic_gc_paused

#: The book's probe sentence (one of the four §11.7 translates perfectly).
BOOK_PROBE = ("i'm home .", "je suis chez moi .")
#: Built-in and task sources up to this many pairs load at once (≤ ~30 ms); larger ones and files in the background.
QUICK_PAIRS = 1000
SOURCES = (("Built-in English–French", "builtin"), ("Task: copy", "task:copy"),
           ("Task: reverse", "task:reverse"), ("Task: sort", "task:sort"))


@dataclass(frozen=True)
class LoadRequest:
    """One request to load a source (plain values, safe to hand to a worker thread)."""

    spec: str
    num_examples: int
    num_steps: int
    min_freq: int
    seed: int

    @property
    def quick(self) -> bool:
        """Small and in memory: loaded at once on the GUI thread; files and big requests load in the background."""
        return (self.spec == "builtin" or self.spec.startswith("task:")) and self.num_examples <= QUICK_PAIRS

    @property
    def task(self) -> str | None:
        """The synthetic task requested, or None for a translation corpus."""
        return self.spec.split(":", 1)[1] if self.spec.startswith("task:") else None


@dataclass(frozen=True)
class LoadedData:
    """What :func:`load_data` found: the pairs and the vocabulary sizes (plain data, no widgets)."""

    request: LoadRequest
    source: DataSource
    vocab_sizes: tuple[int, int]


def load_data(request: LoadRequest) -> LoadedData:
    """Read the source and build its vocabularies (runs on a worker thread for files).

    Raises ``DatasetError``/``ValueError`` with a message fit for users.
    """
    with cyclic_gc_paused():
        source = load_source(request.spec, request.num_examples, seed=request.seed)
        dataset = build_dataset(source.pairs, request.num_steps, request.min_freq)
    return LoadedData(request, source, (len(dataset.src_vocab), len(dataset.tgt_vocab)))


def source_label(spec: str) -> str:
    """A short name of a source spec for messages: the file name, or the combo's wording."""
    for label, value in SOURCES:
        if value == spec:
            return label
    return Path(spec).name
