"""The answer panel is one typed model (`panel_build`): frozen dataclasses all the way down (a
chart's drawing instructions and a label table aside), built from the typed answer, so that the
text, the cards, the series and the inputs table show the figures the engine wrote."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from agent.models import ConversationTurn
from agent.page.panel import Panel, panel_build
from facts.selectors import glossary_snapshot

pytestmark = pytest.mark.django_db

QUESTIONS = [
    "集团2024年和2025年营收对比",
    "集团2021至2025年各年营收，每年增长多少",
    "Group revenue growth for each year from 2021 to 2025",
    "集团2025年下半年营收",
    "2025年各地区营业利润排名",
    "香港收入为什么下降",
    "集团2025年营收同比增长多少",
    "哪些文件提到了东南亚",
    "营收是多少",
]
DRAWINGS = {"chart", "labels", "scope", "tool_results"}  # mappings by design: geometry, words, a scope


def _mappings(value: Any, path: str = "panel") -> list[str]:
    """Where a mapping stands in the panel outside the fields that hold one by design."""
    found: list[str] = []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        assert value.__dataclass_params__.frozen, f"{path} is not frozen"  # type: ignore[attr-defined]
        for field in dataclasses.fields(value):
            if field.name not in DRAWINGS:
                found += _mappings(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, Mapping):
        found.append(path)
    elif isinstance(value, (list, tuple)):
        assert isinstance(value, tuple), f"{path} is a list"
        for i, item in enumerate(value):
            found += _mappings(item, f"{path}[{i}]")
    return found


@pytest.fixture
def panels(demo: dict[str, Any]) -> list[Panel]:
    client = Client()
    client.force_login(demo["users"]["analyst_cleared"])
    for question in QUESTIONS:
        assert client.post("/ask", {"question": question}).status_code == 302
    glossary = glossary_snapshot()
    return [panel_build(turn, glossary) for turn in ConversationTurn.objects.order_by("position")]


def test_the_panel_is_frozen_dataclasses_all_the_way_down(panels: list[Panel]) -> None:
    assert len(panels) == len(QUESTIONS)
    for panel in panels:
        assert _mappings(panel) == [], panel.question
    assert any(p.computed and p.computed.cards for p in panels)
    assert any(p.series for p in panels) and any(p.computed and p.computed.ranking for p in panels)
    assert any(p.computed and p.computed.decompositions for p in panels)


def test_every_figure_the_panel_shows_is_one_the_engine_wrote(panels: list[Panel]) -> None:
    for panel in panels:
        facts = {f.key: f for f in panel.answer.facts}
        displays = {c.display for c in panel.answer.computed} | {c.signed for c in panel.answer.computed}
        for row in panel.inputs:
            assert facts[row.fact.key] is row.fact and Decimal(row.shown.replace(",", "")) == row.fact.value
        for card in panel.computed.cards if panel.computed else ():
            assert {f.display for f in (card.main, *card.alongside)} <= displays, panel.question
            assert all(i.fact is None or facts[i.fact.key] is i.fact for i in card.inputs)
        if panel.series:
            for row in panel.series.rows:
                assert row.rate in displays | {""} and row.change in displays | {""}
                assert row.fact is None or facts[row.fact.key] is row.fact
