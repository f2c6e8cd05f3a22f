"""Help → About: the app and library versions and the compute device in use."""
from __future__ import annotations

import html
import platform
import sys
from importlib import metadata

from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

import explorer


def library_versions() -> list[tuple[str, str]]:
    """``(name, version)`` of Python, Qt and the libraries, read without importing torch."""
    import PySide6

    rows = [
        ("Attention Explorer", explorer.__version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
    ]
    for dist in ("pyqtgraph", "torch", "numpy", "superqt"):
        try:
            rows.append((dist, metadata.version(dist)))
        except metadata.PackageNotFoundError:
            rows.append((dist, "not installed"))
    return rows


def device_description() -> str:
    """The device training would use (``auto``: CUDA, then MPS, then CPU), e.g. ``cuda:0 (NVIDIA H200)``.

    Imports torch: call it off the GUI thread or after the window has painted.
    """
    import torch

    try:
        from explorer.core.training import resolve_device
    except ImportError:  # core's training module not there yet: same rule, written out
        if torch.cuda.is_available():
            device = torch.device("cuda", torch.cuda.current_device())
        elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            device = torch.device("mps")
        else:
            device = torch.device("cpu")
    else:
        device = resolve_device("auto")
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    if device.type == "cpu":
        return f"cpu ({torch.get_num_threads()} threads)"
    return str(device)


class AboutDialog(QDialog):
    """A small dialog listing versions and the device (``device`` may still be "detecting…")."""

    def __init__(self, device: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Attention Explorer")
        rows = "".join(
            f"<tr><td><b>{html.escape(name)}</b>&nbsp;&nbsp;</td><td>{html.escape(version)}</td></tr>"
            for name, version in [*library_versions(), ("Device", device)]
        )
        text = (
            "<h3>Attention Explorer</h3>"
            "<p>The attention chapter of <i>Dive into Deep Learning</i> (§11.1–11.7), made visible: "
            "kernel regression, scoring functions, multi-head attention, positional encoding and a "
            "small Transformer you can train and inspect.</p>"
            f"<table>{rows}</table>"
            f"<p style='color: gray'>{html.escape(sys.platform)}</p>"
        )
        self.label = QLabel(text, self)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(buttons)
        self.setMinimumWidth(420)
