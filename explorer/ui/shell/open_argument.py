"""``attention-explorer PATH``: a model given on the command line opens in the Transformer studio or the inspector.

A folder holding ``config.json`` is inspected as a Hugging Face model (in the inspector), a run directory (``run.json``) is followed,
a ``.safetensors`` file is opened as the model on offer. Found before argparse sees the arguments, like a lesson.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.ui.shell.panel_access import PanelAccess

#: Our options that take a value (the argument after them is never a model path).
VALUE_OPTIONS = ("--screenshots", "--panel", "--theme", "--language", "--size")
STUDIO = "studio"
INSPECTOR = "inspector"


def model_path_kind(path: str | Path) -> str | None:
    """``"folder"`` (config.json), ``"run"`` (run.json), ``"checkpoint"`` (.safetensors) or None."""
    p = Path(path)
    if p.is_dir():
        if (p / "config.json").is_file():
            return "folder"
        return "run" if (p / "run.json").is_file() else None
    return "checkpoint" if p.suffix.lower() == ".safetensors" else None


def split_model_path(argv: list[str]) -> tuple[str | None, list[str]]:
    """Take the first positional argument that is a folder or a ``.safetensors`` file out of ``argv``.

    The value after one of our value options, or after a single-dash Qt option (``-platform offscreen``), is
    never taken. Returns ``(path or None, the other arguments)``.
    """
    skip = False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg in VALUE_OPTIONS or (arg.startswith("-") and not arg.startswith("--") and len(arg) > 2):
            skip = True
            continue
        if arg.startswith("-"):
            continue
        if Path(arg).is_dir() or arg.lower().endswith(".safetensors"):
            return arg, argv[:i] + argv[i + 1:]
    return None, list(argv)


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot be opened in the studio, or None."""
    if not Path(path).exists():
        return f"attention-explorer: no such file or folder: {path}"
    if model_path_kind(path) is None:
        return (f"attention-explorer: {path} is neither a model folder (config.json), a run directory (run.json) "
                "nor a .safetensors model")
    return None


def panel_for_path(path: str) -> str:
    """The panel that opens ``path``: the inspector for a Hugging Face model folder, else the studio."""
    return INSPECTOR if model_path_kind(path) == "folder" else STUDIO


def open_model_path(panels: PanelAccess, path: str, echo: bool = False) -> None:
    """Show the panel that opens ``path`` (:func:`panel_for_path`) and open it there (in the background); ``echo``:
    print that panel's status messages."""
    key = panel_for_path(path)
    panels.show_panel(key)
    panel = panels.panel(key)
    if panel is None:
        return
    if echo:
        panel.status_message.connect(_print_flushed if key == STUDIO else _print_inspector_flushed)
    kind = model_path_kind(path)
    if kind == "run":
        panel.open_run(path)
    else:
        panel.open_model(path)


def _print_flushed(text: str) -> None:
    print(f"studio: {text}", flush=True)


def _print_inspector_flushed(text: str) -> None:
    print(f"inspector: {text}", flush=True)
