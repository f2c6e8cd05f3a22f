"""What ``train`` shows while it runs (book §11.7): the progress bar, Ctrl-C that stops between steps, and the
book's four probe translations at the end; no Qt."""
from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

#: The book's four probe sentences and their reference translations (§11.7, BLEU with k=2).
PROBES: tuple[tuple[str, str], ...] = (
    ("go .", "va !"),
    ("i lost .", "j'ai perdu ."),
    ("he's calm .", "il est calme ."),
    ("i'm home .", "je suis chez moi ."),
)
PROBE_BLEU_K = 2


class Progress:
    """A small progress bar on a terminal; otherwise one plain line every ``every`` epochs. ``show_lr``: the lines
    carry the learning rate of the newest step (a run with a warm-up or a schedule, whose rate changes)."""

    def __init__(self, stream: TextIO, num_epochs: int, width: int = 28, show_lr: bool = False) -> None:
        self.stream = stream
        self.num_epochs = num_epochs
        self.width = width
        self.show_lr = show_lr
        self._lr = float("nan")  # the newest step's rate
        isatty = getattr(stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.every = max(1, num_epochs // 20)
        self._last_draw = 0.0
        self._drawn = False

    def on_step(self, ev: Any) -> None:
        """Redraw the bar (terminal only, at most ~10 times a second) from a ``StepEvent``."""
        self._lr = float(getattr(ev, "lr", float("nan")))
        now = time.monotonic()
        frac = min(max(float(ev.progress), 0.0), 1.0)
        if not self.tty or (now - self._last_draw < 0.1 and frac < 1.0):  # ~10 redraws/s, and the last
            return
        self._last_draw = now
        filled = int(round(frac * self.width))
        eta = ev.elapsed_s * (1.0 - frac) / frac if frac > 0 else float("nan")
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {100 * frac:5.1f}%  epoch {ev.epoch_fraction:6.1f}/{self.num_epochs}"
                          f"  loss {ev.loss:.4f}{self._rate()}  {ev.tokens_per_s / 1000:6.1f}k tok/s"
                          f"  ETA {_clock(eta)} ")
        self.stream.flush()
        self._drawn = True

    def on_epoch(self, ev: Any) -> None:
        """Print one line for an ``EpochEvent`` every ``every`` epochs (and the last), when not a terminal."""
        if self.tty or not (ev.epoch % self.every == 0 or ev.epoch >= self.num_epochs):
            return
        self.stream.write(f"epoch {ev.epoch:>4}/{self.num_epochs}  loss {ev.loss:.4f} "
                          f"(book {ev.book_loss:.4f}){self._rate()}  {ev.tokens_per_s:,.0f} tok/s  "
                          f"{ev.elapsed_s:.1f} s\n")
        self.stream.flush()

    def _rate(self) -> str:
        """``"  lr 3.2e-4"`` (two figures, a short exponent) where the rate is shown, else ``""``."""
        if not self.show_lr or not math.isfinite(self._lr):
            return ""
        mantissa, exponent = f"{self._lr:.1e}".split("e")
        return f"  lr {mantissa}e{int(exponent)}"

    def close(self) -> None:
        """End the bar's line."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


@contextmanager
def stop_on_sigint(trainer: Any, stream: TextIO) -> Iterator[dict[str, bool]]:
    """First Ctrl-C asks the trainer to stop between steps; a second one interrupts at once."""
    state = {"stopped": False}
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        state["stopped"] = True
        trainer.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        stream.write("\nstopping after this step (Ctrl-C again to abort)...\n")
        stream.flush()

    signal.signal(signal.SIGINT, handler)
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)


def run_probes(model: Any, src_vocab: Any, tgt_vocab: Any, num_steps: int) -> list[dict[str, Any]]:
    """The book's four :data:`PROBES` translated greedily by ``model``, each with its BLEU (k = 2)."""
    from explorer.core.model.decoding import translate
    from explorer.core.model.metrics import bleu

    out = []
    for src, ref in PROBES:
        result = translate(model, src_vocab, tgt_vocab, src, num_steps)
        out.append({"src": src, "translation": result.text, "reference": ref,
                    "bleu": float(bleu(result.text, ref, PROBE_BLEU_K))})
    return out
