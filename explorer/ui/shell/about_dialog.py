"""Help → About (the app and library versions) and the compute device shown in the status bar."""
from __future__ import annotations

import html
import platform
import sys
from importlib import metadata

from typing import Callable

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal, Slot, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

import explorer
from explorer.ui.i18n.words import Words, again
from explorer.ui.worker import LatestOnlyRunner


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
            rows.append((dist, QCoreApplication.translate("AboutDialog", "not installed")))
    return rows


def device_description() -> str:
    """The device training would use (``auto``: CUDA, then MPS, then CPU), e.g. ``cuda:0 (NVIDIA H200)``.

    Imports torch: call it off the GUI thread or after the window has painted.
    """
    import torch

    try:
        from explorer.core.training.devices import resolve_device
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
        return QCoreApplication.translate("DeviceStatus", "cpu ({count} threads)").format(count=torch.get_num_threads())
    return str(device)


class DeviceStatus(QLabel):
    """Status-bar label "Device: …", filled in by running ``probe`` on a worker thread.

    The probe starts (``maybe_start``) only once ``after_module`` (torch) has been imported by
    someone else, so naming the device never costs the import itself; ``force`` starts it anyway.
    """

    detected = Signal(str)

    def __init__(self, probe: Callable[[], str] | None, after_module: str | None = "torch",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._probe = probe
        self._after_module = after_module
        self._runner: LatestOnlyRunner | None = None
        self._closed = False
        self._show(Words(lambda: self.tr("not detected yet")) if probe else Words(lambda: self.tr("unknown")))

    def maybe_start(self, force: bool = False) -> None:
        """Start the probe if it has not run and (unless ``force``) its module is already loaded."""
        if self._probe is None or self._runner is not None or self._closed:
            return
        if not force and self._after_module and self._after_module not in sys.modules:
            return
        self._show(Words(lambda: self.tr("detecting…")))
        self._runner = LatestOnlyRunner(self)
        self._runner.result_ready.connect(self._on_runner_result_ready)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.submit(self._probe)

    def shutdown(self, timeout_ms: int) -> None:
        """Let a running probe finish (never exit mid-import), waiting at most ``timeout_ms``."""
        self._closed = True
        if self._runner is not None:
            self._runner.shutdown(timeout_ms)

    def _show(self, name: str) -> None:
        self.name = name
        self.retranslate()

    def retranslate(self) -> None:
        """The label in the language in force (on ``LanguageChange``), its device's name worded again."""
        self.setText(self.tr("Device: {name}").format(name=again(self.name)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


    @Slot(object)
    def _on_runner_result_ready(self, name: object) -> None:
        self._show(str(name))
        self.detected.emit(self.name)

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self._show(Words.formatted(lambda: self.tr("unknown ({error})"), error=message))
        self.detected.emit(self.name)


class AboutDialog(QDialog):
    """A small dialog listing versions and the device; ``set_device`` updates it when the probe answers."""

    def __init__(self, device: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About Attention Explorer"))
        self.label = QLabel(self)
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
        self._versions = library_versions()
        self.set_device(device)

    @Slot(str)
    def set_device(self, device: str) -> None:
        """Show ``device`` in the Device row (the probe may answer while the dialog is open)."""
        rows = "".join(
            f"<tr><td><b>{html.escape(name)}</b>&nbsp;&nbsp;</td><td>{html.escape(version)}</td></tr>"
            for name, version in [*self._versions, (self.tr("Device"), device)]
        )
        self.label.setText(
            "<h3>Attention Explorer</h3><p>"
            + self.tr("The attention chapter of <i>Dive into Deep Learning</i> (§11.1–11.7), made visible: "
                      "kernel regression, scoring functions, multi-head attention, positional encoding and a "
                      "small Transformer you can train and inspect.")
            + f"</p><table>{rows}</table>"
            f"<p style='color: gray'>{html.escape(sys.platform)}</p>"
        )
