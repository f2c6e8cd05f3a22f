"""Everything the Transformer-anatomy panel shows for one model and one set of typed sentences (d2l §11.7.1–11.7.4),
computed in one call (it runs on a worker thread); a bad sentence spoils only its own view, with a message."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from explorer.core.chapter.anatomy_model import AnatomyError, AnatomyModel
from explorer.core.chapter.block_trace import BlockTrace, trace_blocks
from explorer.core.chapter.sublayer_demos import (BatchNorms, BookNorms, FFNDemo, book_norms, ffn_demo, sentence_batch,
                                          split_sentences)


@dataclass(frozen=True)
class AnatomyInputs:
    """What the user typed and chose: the pair for the blocks, the FFN sentence, the batch (``|``-separated),
    whether the FFN's input carries positions, and the encoder block (0-based) whose FFN is shown."""

    source: str = "he's calm ."
    target: str = "il est calme ."
    ffn_sentence: str = "he's calm , she's calm ."
    batch: str = "go . | i lost . | he's calm . | i'm home ."
    positions: bool = False
    layer: int = 0
    num_steps: int = 6


@dataclass
class AnatomyViews:
    """The model used and each view's numbers (None with its message in ``errors`` when it cannot be drawn)."""

    model: AnatomyModel
    trace: BlockTrace | None
    ffn: FFNDemo | None
    batch: BatchNorms | None
    book: BookNorms
    errors: dict[str, str] = field(default_factory=dict)  # "blocks" | "ffn" | "norms" -> message


def anatomy_views(model: AnatomyModel | Callable[[], AnatomyModel], inputs: AnatomyInputs) -> AnatomyViews:
    """Compute every view; ``model`` may be a loader (called here, e.g. to build the untrained model).

    Loader failures propagate (``CheckpointError``, ``OSError``, ``DatasetError``): without a model there is
    nothing to show.
    """
    m = model if isinstance(model, AnatomyModel) else model()
    views = AnatomyViews(m, None, None, None, book_norms())
    layer = min(max(inputs.layer, 0), m.config.num_layers - 1)
    jobs = (("blocks", "trace", lambda: trace_blocks(m, inputs.source, inputs.target)),
            ("ffn", "ffn", lambda: ffn_demo(m, inputs.ffn_sentence, layer, inputs.positions)),
            ("norms", "batch", lambda: sentence_batch(m, split_sentences(inputs.batch), inputs.num_steps)))
    for name, attribute, job in jobs:
        try:
            setattr(views, attribute, job())
        except AnatomyError as err:
            views.errors[name] = str(err)
    return views
