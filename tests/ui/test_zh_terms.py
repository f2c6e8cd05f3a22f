"""The Chinese catalogue names each concept one way, as the project's glossary says (the terms of the Chinese
edition of the book), keeps formulas on one line and catalogues every text the code translates."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from explorer.paths import resource_path

CATALOGUE = "i18n/attention_explorer_zh_CN.ts"
NO_BREAK = "\u00a0\u2060"  # a no-break space, a word joiner
JOINER = "&#8288;"  # the word joiner as rich text writes it


def _messages() -> list[tuple[str, str, str]]:
    """(context, source, translation) of every message of the zh_CN catalogue."""
    root = ET.parse(resource_path(CATALOGUE)).getroot()
    found = []
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            numerus = [] if translation is None else [n.text or "" for n in translation.iter("numerusform")]
            text = "".join(numerus) if numerus else (translation.text or "") if translation is not None else ""
            found.append((name, message.findtext("source") or "", text))
    return found


MESSAGES = _messages()

#: (what is wrong, does the source concern it, a pattern that must not occur in its translation)
FORBIDDEN = [
    ("masking is 掩蔽, never 遮蔽", lambda source: True, re.compile("遮蔽")),
    ("汇聚 only in parentheses right after 注意力池化", lambda source: True,
     re.compile("(?<!注意力池化（注意力)汇聚")),
    ("cross-attention is 编码器-解码器注意力", lambda source: True, re.compile("交叉")),
    ("the Inspect tab and inspecting are 检查, not 查看", lambda source: "nspect" in source,
     re.compile("“查看”|查看结果|已查看|正在查看|无法查看|可查看的模型|^查看$")),
    ("a run is 训练记录", lambda source: re.search(r"\bruns?\b", source) is not None, re.compile("运行")),
    ("hidden size is 隐藏单元数", lambda source: "hidden" in source, re.compile("隐藏单元(?!数)")),
    ("clumsy wording", lambda source: True, re.compile("最贵|这么多倍|全部头|宽度为 d 的词元|这么多个|词元的宽度")),
]


@pytest.mark.parametrize(("problem", "concerns", "pattern"), FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_one_name_per_concept(problem, concerns, pattern) -> None:
    bad = [(source[:60], translation[:80]) for _, source, translation in MESSAGES
           if concerns(source) and pattern.search(translation)]
    assert not bad, f"{problem}: {bad}"


@pytest.mark.parametrize("formula", ["⌈(n−1)/((k−1)/2)⌉", "LayerNorm(X + sublayer(X))", "X + sublayer(LayerNorm(X))"])
def test_formulas_stay_on_one_line_in_chinese(formula: str) -> None:
    """Chinese text has no spaces to break at, so a line breaks inside a formula unless the formula forbids it."""
    shown = [translation for _, source, translation in MESSAGES if formula in source.replace(JOINER, "")]
    assert shown, f"no message shows {formula}"
    for translation in shown:
        plain = re.sub(f"[{NO_BREAK}]", "", translation.replace(JOINER, ""))
        assert formula.replace(" ", "") in plain.replace(" ", "")
        assert formula not in translation, f"{formula} may wrap in: {translation[:80]}"


def test_the_block_output_tensor_is_catalogued_and_translated() -> None:
    from PySide6.QtCore import QCoreApplication

    from explorer.ui.i18n.translators import language_manager
    from explorer.ui.panels.transformer_anatomy.stage_names import tensor_name

    assert ("StageNames", "block {number} output") in {(c, s) for c, s, t in MESSAGES if t}
    assert QCoreApplication.instance() is not None
    language_manager().apply("zh_CN")
    assert tensor_name("block 2 output") == "块 2 的输出"


def test_head_numbers_have_one_form() -> None:
    """A head is 头 {n} (as the grid's thumbnails say), never 第 {n} 个头 in one place and 头 {n} in another."""
    bad = [t for _, s, t in MESSAGES if "{head}" in s and re.search(r"第 ?\{head\} ?个头", t)]
    assert not bad, bad


def test_attention_kinds_in_tables_and_lists_are_worded_in_chinese(qtbot) -> None:
    from types import SimpleNamespace

    from PySide6.QtCore import Qt

    from explorer.ui.i18n.translators import language_manager
    from explorer.ui.panels.inspector.ablation_widget import SweepTable

    table = SweepTable()
    table.add(None, SimpleNamespace(bleu=0.5, loss=1.0))
    table.add(("cross", 0, 1), SimpleNamespace(bleu=0.25, loss=1.5))
    shown = lambda: table.data(table.index(0, 0), Qt.ItemDataRole.DisplayRole)  # noqa: E731
    assert shown() == "cross"
    language_manager().apply("zh_CN")
    assert shown() == "编码器-解码器"
    assert table.data(table.index(0, 0), Qt.ItemDataRole.UserRole) == "cross"  # sorted and kept by core's key
    language_manager().apply("en")
