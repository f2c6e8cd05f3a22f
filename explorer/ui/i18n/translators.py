"""The app's languages: English (the source texts) and 简体中文 (``resources/i18n/*.ts``, compiled to ``.qm``).

The build compiles each ``.ts`` into a ``.qm`` beside it (``setup.py``); a source checkout or an editable install
compiles it on first use into a cache folder, again whenever the ``.ts`` changes. :class:`LanguageManager`
installs and removes the ``QTranslator`` objects; Qt then sends ``QEvent.Type.LanguageChange`` to every widget,
and each widget re-sets its texts in its ``retranslate()``; texts built from values are
:class:`~explorer.ui.i18n.words.Words`, worded again from the values they keep.
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QLibraryInfo, QLocale, QObject,
                            QTranslator, Signal)

from explorer.core.atomic_file import atomic_path
from explorer.paths import resources_dir
from explorer.ui.settings import LANGUAGES

__all__ = ["LANGUAGES", "LANGUAGE_NAMES", "LanguageManager", "QT_TRANSLATE_NOOP", "compiled_qm", "language_manager",
           "lrelease_command", "resolve_language", "translate", "ts_path"]

log = logging.getLogger(__name__)

#: Each language by its own name (never translated: a reader finds their language in any UI language).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}
SOURCE_LANGUAGE = "en"
BASENAME = "attention_explorer"
CACHE_DIR_ENV = "ATTENTION_EXPLORER_CACHE_DIR"
#: An installer writes a wheel's files one after the other: a build's .qm may look a moment older than its .ts.
INSTALL_SLACK_S = 2.0
#: English has a catalogue too, of plural forms only (``%n`` messages: "1 step", "3 steps").
_CATALOGUES = {"en": ("en",), "zh_CN": ("zh_CN",)}
_QT_CATALOGUES = {"zh_CN": ("qtbase_zh_CN",)}  # Qt's own texts: standard buttons, file dialogs

translate = QCoreApplication.translate  # ``translate("Context", "text")`` outside QObject subclasses

_test_cache: Path | None = None


def i18n_dir() -> Path:
    """The folder holding the ``.ts`` sources (and, in an installed wheel, the compiled ``.qm`` files)."""
    return resources_dir() / "i18n"


def ts_path(language: str) -> Path:
    """The Qt Linguist source of ``language``, e.g. ``resources/i18n/attention_explorer_zh_CN.ts``."""
    return i18n_dir() / f"{BASENAME}_{language}.ts"


def resolve_language(choice: str, locale: QLocale | None = None) -> str:
    """The language to show for ``choice`` (``system``, ``en`` or ``zh_CN``): ``system`` is 简体中文 for a
    Chinese system locale, English otherwise; an unknown choice is English."""
    if choice == "system":
        locale = locale or QLocale.system()
        return "zh_CN" if locale.language() == QLocale.Language.Chinese else SOURCE_LANGUAGE
    return choice if choice in LANGUAGE_NAMES else SOURCE_LANGUAGE


def lrelease_command() -> list[str] | None:
    """The ``lrelease`` that PySide6 ships (in its package folder or as ``pyside6-lrelease``), or None."""
    try:
        import PySide6

        folder = Path(PySide6.__file__).parent
        for name in ("lrelease", "lrelease.exe"):
            if (folder / name).is_file() and os.access(folder / name, os.X_OK):
                return [str(folder / name)]
    except ImportError:  # pragma: no cover - PySide6 is a dependency
        pass
    for name in ("pyside6-lrelease", "lrelease"):
        found = shutil.which(name)
        if found:
            return [found]
    return None


class _LreleaseFailed(Exception):
    """lrelease ran but wrote no catalogue (the message is its output)."""


def compile_ts(ts: Path, qm: Path) -> bool:
    """Compile ``ts`` into ``qm`` (through a temporary file, renamed when complete); False if that failed."""
    command = lrelease_command()
    if command is None:
        log.warning("cannot compile %s: lrelease (shipped with PySide6) was not found", ts.name)
        return False
    qm.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(qm) as tmp:  # renamed to ``qm`` only when lrelease wrote a whole catalogue
            result = subprocess.run([*command, "-silent", str(ts), "-qm", str(tmp)], capture_output=True, text=True,
                                    timeout=120)
            if result.returncode != 0 or not tmp.stat().st_size:
                raise _LreleaseFailed((result.stderr or result.stdout).strip())
        return True
    except (OSError, subprocess.SubprocessError, _LreleaseFailed) as exc:
        log.warning("lrelease failed on %s: %s", ts.name, exc)
        return False


def cache_dir() -> Path:
    """Where ``.qm`` files compiled on first use are kept (``ATTENTION_EXPLORER_CACHE_DIR`` overrides it; a test
    run uses a temporary folder of its own)."""
    global _test_cache
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override) / "i18n"
    if os.environ.get("ATTENTION_EXPLORER_TEST"):
        if _test_cache is None:
            _test_cache = Path(tempfile.mkdtemp(prefix="attention-explorer-cache-"))
        return _test_cache / "i18n"
    from PySide6.QtCore import QStandardPaths

    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(location or Path.home() / ".cache" / "attention-explorer") / "i18n"


def compiled_qm(catalogue: str) -> Path | None:
    """A ``.qm`` for ``catalogue`` (``zh_CN``, ``en``) as new as its ``.ts``: the one the build put beside it, else
    one compiled now (or earlier) into :func:`cache_dir`, named by the ``.ts`` content. None if there is none."""
    ts = ts_path(catalogue)
    packaged = ts.with_suffix(".qm")
    if not ts.is_file():  # a build that ships only the compiled file
        return packaged if packaged.is_file() else None
    if packaged.is_file() and packaged.stat().st_mtime >= ts.stat().st_mtime - INSTALL_SLACK_S:
        return packaged
    digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
    cached = cache_dir() / f"{ts.stem}-{digest}.qm"
    if cached.is_file() or compile_ts(ts, cached):
        return cached
    return packaged if packaged.is_file() else None  # older than its source, better than none


class LanguageManager(QObject):
    """Installs the translators of one language at a time.

    ``language`` is the language in force (``en`` or ``zh_CN``), ``choice`` what was asked for (``system`` too).

    Signals
    -------
    language_changed(str): the language in force changed (after the translators were swapped).
    """

    language_changed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.choice = "system"
        self.language = SOURCE_LANGUAGE
        self._installed: str | None = None  # the language whose catalogues are installed
        self._translators: list[QTranslator] = []

    def apply(self, choice: str) -> str:
        """Show ``choice`` (``system``, ``en`` or ``zh_CN``) from now on; returns the language in force.

        The ``LanguageChange`` events Qt posts are delivered before this returns, so every widget has re-set its
        texts by then.
        """
        self.choice = choice if choice in LANGUAGES else "system"
        language = resolve_language(self.choice)
        if language == self._installed:
            return language
        app = QCoreApplication.instance()
        for translator in self._translators:
            app.removeTranslator(translator)
        self._translators = []
        for path in self._catalogue_files(language):
            translator = QTranslator(self)
            if translator.load(str(path)):
                app.installTranslator(translator)
                self._translators.append(translator)
            else:
                log.warning("could not load the translation %s", path)
        self.language = self._installed = language
        if language != SOURCE_LANGUAGE and not self._translators:
            log.warning("no translation for %s could be loaded; the app stays in English", language)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
        self.language_changed.emit(language)
        return language

    @staticmethod
    def _catalogue_files(language: str) -> list[Path]:
        files = [qm for name in _CATALOGUES.get(language, ()) if (qm := compiled_qm(name)) is not None]
        qt_folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
        files += [qt_folder / f"{name}.qm" for name in _QT_CATALOGUES.get(language, ())
                  if (qt_folder / f"{name}.qm").is_file()]
        return files


_manager: LanguageManager | None = None


def language_manager() -> LanguageManager:
    """The application's one :class:`LanguageManager` (created with the ``QCoreApplication`` as its parent)."""
    global _manager
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("language_manager() needs a QApplication")
    try:
        alive = _manager is not None and _manager.parent() is app
    except RuntimeError:  # its C++ side went with an earlier application
        alive = False
    if not alive:
        _manager = LanguageManager(app)
    return _manager
