"""Where training pairs come from: the bundled English–French corpus, a user's file, or a synthetic
task, chosen by one spec string (``builtin``, a path, ``task:copy|reverse|sort``) (D2L §10.5)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.data.readers import DatasetError, read_pairs
from explorer.core.data.tasks import TASKS, make_task_pairs
from explorer.paths import resource_path

BUILTIN_SPEC = "builtin"
BUILTIN_FILE = "eng_fra.tsv"
TASK_PREFIX = "task:"
#: Pairs generated for a task when ``num_examples`` is ``None``.
DEFAULT_TASK_PAIRS = 600


@dataclass
class DataSource:
    """Pairs from one source.

    ``kind`` is ``"translation"`` or ``"task"``; ``name`` a display name; ``task`` the task name
    (``None`` for translation); ``skipped``/``skipped_lines`` the reader's malformed lines;
    ``path`` the file read, if any.
    """

    pairs: list[tuple[str, str]]
    skipped: int
    kind: str
    name: str
    task: str | None = None
    skipped_lines: list[int] = field(default_factory=list)
    path: Path | None = None


def known_specs() -> list[str]:
    """The non-path specs, e.g. for a combo box: ``builtin`` and ``task:<name>`` for each task."""
    return [BUILTIN_SPEC, *(TASK_PREFIX + t for t in TASKS)]


def load_source(spec: str | os.PathLike[str], num_examples: int | None = 600, seed: int = 0) -> DataSource:
    """Load the pairs a spec names.

    Parameters
    ----------
    spec : ``"builtin"`` (the bundled corpus), ``"task:copy"``/``"task:reverse"``/``"task:sort"``,
        or a path to a ``.txt``/``.tsv``/``.zip`` corpus.
    num_examples : first N pairs of a corpus, or the number of task pairs (``None``: the whole
        corpus, or :data:`DEFAULT_TASK_PAIRS` for a task).
    seed : seeds the task generator (corpora ignore it).

    Raises :class:`DatasetError` with a user-facing message for an unknown task, a missing
    bundled corpus or any reader failure.
    """
    if isinstance(spec, os.PathLike) and not _is_bundled_corpus(Path(spec)):
        return _load_file(Path(spec), num_examples)
    spec = os.fspath(spec) if isinstance(spec, os.PathLike) else spec
    if not isinstance(spec, str) or not spec.strip():
        raise DatasetError(f"choose a data source: {', '.join(known_specs())} or a file path")
    text = spec.strip()
    low = text.lower()
    if low == BUILTIN_SPEC or _is_bundled_corpus(Path(text)):  # older runs recorded the bundled file's path
        path = resource_path(BUILTIN_FILE)
        if not path.is_file():
            raise DatasetError(f"the bundled corpus is missing: {path}")
        result = read_pairs(path, num_examples)
        return DataSource(
            pairs=result.pairs, skipped=result.skipped, kind="translation",
            name=f"built-in English–French ({len(result.pairs)} pairs)",
            skipped_lines=result.skipped_lines, path=path,
        )
    if low.startswith(TASK_PREFIX):
        task = low[len(TASK_PREFIX):].strip()
        if task not in TASKS:
            raise DatasetError(f"unknown task {task!r}; known tasks: {', '.join(TASKS)}")
        n = DEFAULT_TASK_PAIRS if num_examples is None else num_examples
        pairs = make_task_pairs(task, n, seed=seed)
        return DataSource(pairs=pairs, skipped=0, kind="task", name=f"task: {task} ({len(pairs)} pairs)", task=task)
    return _load_file(Path(text), num_examples)


def _is_bundled_corpus(path: Path) -> bool:
    """Whether ``path`` is the bundled corpus file itself (it keeps its built-in name)."""
    try:
        return path.expanduser().resolve() == resource_path(BUILTIN_FILE).resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def _load_file(path: Path, num_examples: int | None) -> DataSource:
    result = read_pairs(path, num_examples)
    label = path.name if result.member is None else f"{path.name} › {result.member}"
    return DataSource(
        pairs=result.pairs, skipped=result.skipped, kind="translation",
        name=f"{label} ({len(result.pairs)} pairs)",
        skipped_lines=result.skipped_lines, path=path.expanduser(),
    )
