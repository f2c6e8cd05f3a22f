"""The panels of the app in the book's order (§11.1 → §11.7), imported lazily when first shown."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import BasePanel


class PanelSpec(NamedTuple):
    """One navigation entry: ``(key, title, "module:Class")``."""

    key: str
    title: str
    target: str


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("attention_cues", "Queries, keys and values",
              "explorer.ui.panels.attention_cues.attention_cues_panel:AttentionCuesPanel"),
    PanelSpec("kernel_regression", "Kernel regression",
              "explorer.ui.panels.kernel_regression.kernel_regression_panel:KernelRegressionPanel"),
    PanelSpec("scoring", "Scoring functions", "explorer.ui.panels.scoring.scoring_panel:ScoringPanel"),
    PanelSpec("multihead", "Multi-head attention", "explorer.ui.panels.multihead.multihead_panel:MultiHeadPanel"),
    PanelSpec("architecture_comparison", "CNN vs RNN vs attention",
              "explorer.ui.panels.architecture_comparison.architecture_panel:ArchitecturePanel"),
    PanelSpec("positional", "Positional encoding", "explorer.ui.panels.positional.positional_panel:PositionalPanel"),
    PanelSpec("transformer_anatomy", "Transformer anatomy",
              "explorer.ui.panels.transformer_anatomy.anatomy_panel:AnatomyPanel"),
    PanelSpec("studio", "Transformer studio", "explorer.ui.panels.studio.studio_panel:StudioPanel"),
)


# The book section each panel follows (navigation tooltips).
SECTIONS: dict[str, str] = {
    "attention_cues": "§11.1 Queries, keys, and values (attention cues)",
    "kernel_regression": "§11.2 Attention pooling by similarity (Nadaraya–Watson)",
    "scoring": "§11.3 Attention scoring functions",
    "multihead": "§11.5 Multi-head attention",
    "architecture_comparison": "§11.6.2 Comparing CNNs, RNNs, and self-attention",
    "positional": "§11.6 Self-attention and positional encoding",
    "transformer_anatomy": "§11.7.1–11.7.4 The Transformer: FFN, add & norm, encoder and decoder blocks",
    "studio": "§11.7 The Transformer architecture",
}


class PanelLoadError(RuntimeError):
    """A panel's module or class could not be loaded; the message is fit for the error page."""


def panel_spec(key: str, panels: tuple[PanelSpec, ...] = PANELS) -> PanelSpec:
    """Return the entry of ``panels`` whose key is ``key`` (``KeyError`` if none)."""
    for spec in panels:
        if spec.key == key:
            return spec
    raise KeyError(key)


def load_panel_class(target: str) -> type[BasePanel]:
    """Import ``"package.module:Class"`` and return the class.

    Raises
    ------
    PanelLoadError
        If the module cannot be imported (including errors raised while importing it) or has no
        such class. The original exception is chained.
    """
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise PanelLoadError(f"Malformed panel target {target!r} (expected 'module:Class').")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure becomes a readable error page
        raise PanelLoadError(f"Could not import {module_name}: {type(exc).__name__}: {exc}") from exc
    try:
        return getattr(module, class_name)
    except AttributeError as exc:
        raise PanelLoadError(f"Module {module_name} has no class {class_name}.") from exc
