"""What the studio loads its training pairs from (book §10.5 data): source specs, load requests and the
loader that runs off the GUI thread. Plain data and core calls only; no widgets."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from explorer.core.data.sources import DataSource, load_source
from explorer.core.data.text import build_dataset
from explorer.ui.process_settings import cyclic_gc_paused

#: The book's probe sentence (one of the four §11.7 translates perfectly).
BOOK_PROBE = ("i'm home .", "je suis chez moi .")
#: Built-in and task sources up to this many pairs load at once (≤ ~30 ms); larger ones and files in the background.
QUICK_PAIRS = 1000
SOURCES = ((QT_TRANSLATE_NOOP("DataBox", "Built-in English–French"), "builtin"),
           (QT_TRANSLATE_NOOP("DataBox", "Task: copy"), "task:copy"),
           (QT_TRANSLATE_NOOP("DataBox", "Task: reverse"), "task:reverse"),
           (QT_TRANSLATE_NOOP("DataBox", "Task: sort"), "task:sort"))  # labels: translate with source_label
TASK_NAMES = {"copy": QT_TRANSLATE_NOOP("DataBox", "copy"), "reverse": QT_TRANSLATE_NOOP("DataBox", "reverse"),
              "sort": QT_TRANSLATE_NOOP("DataBox", "sort")}


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


def source_name(spec: str, source: DataSource) -> str:
    """The loaded data's name with its size, as core's ``DataSource.name`` ("task: reverse (600 pairs)"), in the
    language in force."""
    translate = QCoreApplication.translate
    if spec == "builtin":
        label = translate("DataBox", "built-in English–French")
    elif spec.startswith("task:"):
        task = spec.split(":", 1)[1]
        label = translate("DataBox", "task: {task}").format(task=translate("DataBox", TASK_NAMES.get(task, task)))
    else:
        label = source.name.rsplit(" (", 1)[0]  # the file (and the zip's member) as core names it
    return translate("DataBox", "{source} ({pairs} pairs)").format(source=label, pairs=len(source.pairs))


def source_label(spec: str) -> str:
    """A short name of a source spec for messages, in the language in force: the file name, or the combo's wording."""
    for label, value in SOURCES:
        if value == spec:
            return QCoreApplication.translate("DataBox", label)
    return Path(spec).name
