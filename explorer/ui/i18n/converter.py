"""Converting texts on screen between languages through the translation catalogues (the ``.ts`` files): a text
that is the old language's rendering of a message, placeholders filled in, becomes the new language's rendering
with the same values. Used by :mod:`explorer.ui.i18n.retranslate` when the language changes while the app runs."""
from __future__ import annotations

import re
import string
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from explorer.ui.i18n.translators import BASENAME, LANGUAGE_NAMES, SOURCE_LANGUAGE, i18n_dir

_QT_ARG = re.compile(r"%L?(\d{1,2})")


# ---------------------------------------------------------------------------------------------- catalogues
@dataclass(frozen=True)
class Message:
    """One message of a ``.ts`` file: its context, source text and the renderings in one language (one per
    plural form for a ``%n`` message)."""

    context: str
    source: str
    numerus: bool
    forms: tuple[str, ...]


def read_ts(path: Path) -> list[Message]:
    """The finished messages of a Qt Linguist file (unfinished, obsolete and vanished ones are skipped)."""
    messages = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") in ("unfinished", "obsolete", "vanished"):
                continue
            numerus = message.get("numerus") == "yes"
            forms = tuple(f.text or "" for f in translation.iter("numerusform")) if numerus else (
                translation.text or "",)
            if all(forms):
                messages.append(Message(name, message.findtext("source", ""), numerus, forms))
    return messages


def plural_form(language: str, n: int) -> int:
    """Which plural form ``n`` takes: English has two (1 / other), Chinese one."""
    return 0 if language != SOURCE_LANGUAGE or n == 1 else 1


@lru_cache(maxsize=None)
def _catalogue(language: str, folder: str) -> dict[tuple[str, str], Message]:
    path = Path(folder) / f"{BASENAME}_{language}.ts"
    return {(m.context, m.source): m for m in read_ts(path)} if path.is_file() else {}


def renderings(language: str, folder: Path | None = None) -> dict[tuple[str, str], tuple[str, ...]]:
    """Every message (``(context, source)``) of the translation catalogues, rendered in ``language``: the source
    text in English (its plural forms from the English catalogue), the translation otherwise."""
    folder = str(folder or i18n_dir())
    sources: dict[tuple[str, str], Message] = {}
    for other in LANGUAGE_NAMES:
        sources.update(_catalogue(other, folder))
    own = _catalogue(language, folder)
    out = {}
    for key, message in sources.items():
        if key in own:
            out[key] = own[key].forms
        elif language == SOURCE_LANGUAGE:
            out[key] = (message.source,)
    return out


# ---------------------------------------------------------------------------------------------- patterns
def _fields(text: str, numerus: bool) -> list[tuple[str, str | None]] | None:
    """``text`` as (literal, field) pairs; fields are Python format fields (``{name}``, ``{0:.2f}``, ``{}`` as
    ``0``, ``1`` …), Qt's ``%1`` … and, in a plural message, ``%n``. None if ``text`` has no field at all."""
    parts: list[tuple[str, str | None]] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:  # stray braces: no Python fields
        parsed = [(text, None, None, None)]
    auto = 0
    for literal, name, _spec, _conversion in parsed:
        parts.extend(_split_qt(literal, numerus))
        if name is not None:
            if name == "":
                name, auto = str(auto), auto + 1
            parts.append(("", f"py:{name}"))
    if all(field is None for _, field in parts):
        return None
    return parts


def _split_qt(literal: str, numerus: bool) -> list[tuple[str, str | None]]:
    pattern = re.compile(r"%L?(\d{1,2})|%n") if numerus else _QT_ARG
    out: list[tuple[str, str | None]] = []
    last = 0
    for match in pattern.finditer(literal):
        out.append((literal[last:match.start()], None))
        out.append(("", "qt:n" if match.group(0) == "%n" else f"qt:{match.group(1)}"))
        last = match.end()
    out.append((literal[last:], None))
    return out


@dataclass
class _Pattern:
    regex: re.Pattern[str]
    groups: dict[str, str]  # field -> regex group name
    longest: str  # its longest literal chunk (a cheap test before the regex)
    weight: int  # literal characters: the more, the more specific
    target: list[tuple[str, str | None]]  # the new rendering
    target_forms: tuple[str, ...]
    numerus: bool


def _compile(old: str, numerus: bool) -> tuple[re.Pattern[str], dict[str, str], str, int] | None:
    parts = _fields(old, numerus)
    if parts is None:
        return None
    groups: dict[str, str] = {}
    regex, literals = [], []
    for literal, field in parts:
        if literal:
            regex.append(re.escape(literal))
            literals.append(literal)
        if field is not None:
            if field in groups:
                regex.append(f"(?P={groups[field]})")
            else:
                groups[field] = f"g{len(groups)}"
                regex.append(f"(?P<{groups[field]}>\\d+)" if field == "qt:n" else f"(?P<{groups[field]}>.+?)")
    weight = sum(map(len, literals))
    if weight == 0:
        return None  # "{0}" alone would match every text
    return re.compile("".join(regex), re.DOTALL), groups, max(literals, key=len), weight


class Converter:
    """Converts texts rendered in ``old`` into ``new`` (see the module docstring); ``convert`` returns None for a
    text that is no rendering of any message."""

    def __init__(self, old: str, new: str, folder: Path | None = None) -> None:
        self.old, self.new = old, new
        old_r, new_r = renderings(old, folder), renderings(new, folder)
        self.exact: dict[str, str] = {}
        self.conflicts: dict[str, set[str]] = {}
        self.patterns: list[_Pattern] = []
        for key, old_forms in old_r.items():
            new_forms = new_r.get(key)
            if new_forms is None:
                continue
            numerus = len(old_forms) > 1 or len(new_forms) > 1 or "%n" in key[1]
            for index, old_text in enumerate(old_forms):
                compiled = _compile(old_text, numerus)
                if compiled is None:
                    if not numerus:
                        self._add_exact(old_text, new_forms[min(index, len(new_forms) - 1)])
                    continue
                regex, groups, longest, weight = compiled
                target = new_forms[min(index, len(new_forms) - 1)]
                self.patterns.append(_Pattern(regex, groups, longest, weight, _fields(target, numerus) or [],
                                              new_forms, numerus))
        self.patterns.sort(key=lambda p: -p.weight)

    def _add_exact(self, old_text: str, new_text: str) -> None:
        known = self.exact.setdefault(old_text, new_text)
        if known != new_text:
            self.conflicts.setdefault(old_text, {known}).add(new_text)

    def convert(self, text: str) -> str | None:
        """``text`` in the new language, or None if it is no rendering of a message in the old one."""
        if not text or self.old == self.new:
            return None
        found = self._whole(text)
        if found is None and "&&" in text:  # a button's text with its "&" escaped
            found = self._whole(text.replace("&&", "&"))
            found = None if found is None else found.replace("&", "&&")
        if found is not None:
            return found
        symbol, space, rest = text.partition(" ")  # a symbol before a message: pyqtgraph's "X axis"
        if space and 0 < len(symbol) <= 2 and rest in self.exact:
            return f"{symbol} {self.exact[rest]}"
        for separator in ("\n", "<br>"):  # messages joined line by line
            if separator in text:
                parts = text.split(separator)
                converted = [self._whole(part) for part in parts]
                if any(c is not None for c in converted):
                    return separator.join(part if c is None else c for part, c in zip(parts, converted))
        return None

    def _whole(self, text: str, depth: int = 0) -> str | None:
        exact = self.exact.get(text)
        if exact is not None:
            return exact
        if depth > 2:
            return None
        for pattern in self.patterns:
            if pattern.longest not in text:
                continue
            match = pattern.regex.fullmatch(text)
            if match is None:
                continue
            values = {field: match.group(group) for field, group in pattern.groups.items()}
            target = pattern.target
            if pattern.numerus and "qt:n" in values:
                form = pattern.target_forms[min(plural_form(self.new, int(values["qt:n"])),
                                                len(pattern.target_forms) - 1)]
                target = _fields(form, True) or [(form, None)]
            out = []
            for literal, field in target:
                out.append(literal)
                if field is not None:
                    value = values.get(field, "")
                    inner = self._whole(value, depth + 1) if value else None  # a translated text inside: a title
                    out.append(value if inner is None else inner)
            return "".join(out)
        return None


@lru_cache(maxsize=8)
def converter_for(old: str, new: str) -> Converter:
    """The :class:`Converter` from ``old`` to ``new`` over the app's catalogues (built once)."""
    return Converter(old, new)
