"""The panels of the app in the book's order (§11.1 → §11.7), imported lazily when first shown."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import BasePanel


class PanelSpec(NamedTuple):
    """One navigation entry: ``(key, title, "module:Class")``; ``title`` is English, :func:`panel_title`
    translates it."""

    key: str
    title: str
    target: str


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("attention_cues", QT_TRANSLATE_NOOP("Panels", "Queries, keys and values"),
              "explorer.ui.panels.attention_cues.attention_cues_panel:AttentionCuesPanel"),
    PanelSpec("kernel_regression", QT_TRANSLATE_NOOP("Panels", "Kernel regression"),
              "explorer.ui.panels.kernel_regression.kernel_regression_panel:KernelRegressionPanel"),
    PanelSpec("scoring", QT_TRANSLATE_NOOP("Panels", "Scoring functions"),
              "explorer.ui.panels.scoring.scoring_panel:ScoringPanel"),
    PanelSpec("multihead", QT_TRANSLATE_NOOP("Panels", "Multi-head attention"),
              "explorer.ui.panels.multihead.multihead_panel:MultiHeadPanel"),
    PanelSpec("architecture_comparison", QT_TRANSLATE_NOOP("Panels", "CNN vs RNN vs attention"),
              "explorer.ui.panels.architecture_comparison.architecture_panel:ArchitecturePanel"),
    PanelSpec("positional", QT_TRANSLATE_NOOP("Panels", "Positional encoding"),
              "explorer.ui.panels.positional.positional_panel:PositionalPanel"),
    PanelSpec("transformer_anatomy", QT_TRANSLATE_NOOP("Panels", "Transformer anatomy"),
              "explorer.ui.panels.transformer_anatomy.anatomy_panel:AnatomyPanel"),
    PanelSpec("studio", QT_TRANSLATE_NOOP("Panels", "Transformer studio"),
              "explorer.ui.panels.studio.studio_panel:StudioPanel"),
    PanelSpec("inspector", QT_TRANSLATE_NOOP("Panels", "Model inspector"),
              "explorer.ui.panels.inspector.inspector_panel:InspectorPanel"),
)


# The book section each panel follows (navigation tooltips; the Chinese edition numbers the chapter 10).
SECTIONS: dict[str, str] = {
    "attention_cues": QT_TRANSLATE_NOOP("Panels", "§11.1 Queries, keys, and values (attention cues)"),
    "kernel_regression": QT_TRANSLATE_NOOP("Panels", "§11.2 Attention pooling by similarity (Nadaraya–Watson)"),
    "scoring": QT_TRANSLATE_NOOP("Panels", "§11.3 Attention scoring functions"),
    "multihead": QT_TRANSLATE_NOOP("Panels", "§11.5 Multi-head attention"),
    "architecture_comparison": QT_TRANSLATE_NOOP("Panels", "§11.6.2 Comparing CNNs, RNNs, and self-attention"),
    "positional": QT_TRANSLATE_NOOP("Panels", "§11.6 Self-attention and positional encoding"),
    "transformer_anatomy": QT_TRANSLATE_NOOP(
        "Panels", "§11.7.1–11.7.4 The Transformer: FFN, add & norm, encoder and decoder blocks"),
    "studio": QT_TRANSLATE_NOOP("Panels", "§11.7 The Transformer architecture"),
    "inspector": QT_TRANSLATE_NOOP("Panels", "§11.5–11.7 Every head of any model: inspect and debug"),
}


def panel_title(spec: PanelSpec) -> str:
    """The title of ``spec`` in the language in force."""
    return QCoreApplication.translate("Panels", spec.title)


def panel_section(spec: PanelSpec) -> str:
    """The book section ``spec`` follows (its navigation tool tip), in the language in force."""
    section = SECTIONS.get(spec.key)
    return QCoreApplication.translate("Panels", section) if section else panel_title(spec)


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
        raise PanelLoadError(QCoreApplication.translate(
            "Panels", "Malformed panel target {target} (expected 'module:Class').").format(target=repr(target)))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure becomes a readable error page
        raise PanelLoadError(QCoreApplication.translate("Panels", "Could not import {module}: {error}").format(
            module=module_name, error=f"{type(exc).__name__}: {exc}")) from exc
    try:
        return getattr(module, class_name)
    except AttributeError as exc:
        raise PanelLoadError(QCoreApplication.translate("Panels", "Module {module} has no class {name}.").format(
            module=module_name, name=class_name)) from exc
