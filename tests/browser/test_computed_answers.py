"""Computed answers in real Chromium: the card with its formula and inputs, and the ranking chart.

Until the pipeline fills `computed`, the turns are seeded into the analyst's session (the store
the page reads) with results from the real pipeline and engine (`tests.agent.computed_results`).
Screenshots land in `RAGSPINE_SCREENSHOTS` (default docs/screenshots/).
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.sessions.backends.db import SessionStore

from agent.conversation import TURNS
from core.compute import growth_compute, rank_compute, sum_compute
from core.periods import period_parse
from core.types import FactRecord, SubTask
from facts.selectors import OrmFactStore, glossary_snapshot
from tests.agent.computed_results import computed_turn
from tests.browser.test_analyst_flow import PASSWORD, browser  # noqa: F401 (a fixture)
from tests.fakes import InMemoryFactStore

SHOTS = Path(os.environ.get("RAGSPINE_SCREENSHOTS") or Path(__file__).resolve().parents[2] / "docs" / "screenshots")
FY2025 = period_parse("FY2025")

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(live_server):
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO())
    user = get_user_model().objects.get(username="analyst_cleared")
    user.set_password(PASSWORD)
    user.save()
    return live_server.url


def turns() -> list[dict]:
    store, glossary = OrmFactStore(), glossary_snapshot()
    regions = [SubTask("NET_PROFIT", e, FY2025) for e in ("ACME_GROUP", "ACME_CN", "ACME_HK", "ACME_SEA")]
    revenue = [SubTask("REVENUE", e, FY2025) for e in ("ACME_CN", "ACME_HK", "ACME_SEA")]
    tied = [SubTask("OPERATING_PROFIT", e, FY2025) for e in ("ACME_GROUP", "ACME_CN", "ACME_HK", "ACME_SEA")]
    generated = InMemoryFactStore(
        [
            FactRecord(t.metric, t.entity, FY2025, "TOTAL", Decimal(v), "CNY_M", "generated.xlsx", f"sheet=gen!B{i}")
            for i, (t, v) in enumerate(zip(tied[1:], ("1200.5", "1200.5", "-310.2"), strict=True), start=2)
        ]
    )
    return [
        computed_turn(
            "集团2025年营收同比增长多少",
            lambda lookup, label: growth_compute(lookup, SubTask("REVENUE", "ACME_GROUP", FY2025), label=label),
            store=store,
            glossary=glossary,
        ),
        computed_turn(
            "2025年香港和东南亚营收合计是多少",
            lambda lookup, label: sum_compute(lookup, revenue[1:], label=label),
            store=store,
            glossary=glossary,
        ),
        computed_turn(
            "2025年哪个地区营收最高",
            lambda lookup, label: rank_compute(lookup, revenue, label=label),
            store=store,
            glossary=glossary,
            looked_up=revenue,
        ),
        computed_turn(
            "2025年各公司净利润排名",
            lambda lookup, label: rank_compute(lookup, regions, label=label),
            store=store,
            glossary=glossary,
            looked_up=regions,
        ),
        computed_turn(
            "2025年各地区营业利润排名",
            lambda lookup, label: rank_compute(lookup, tied, label=label),
            store=generated,
            glossary=glossary,
            looked_up=tied,
        ),
        computed_turn(
            "What was the group's revenue growth in 2025?",
            lambda lookup, label: growth_compute(lookup, SubTask("REVENUE", "ACME_GROUP", FY2025), label=label),
            store=store,
            glossary=glossary,
        ),
    ]


def seeded_page(browser, site: str, width: int, seeded: list[dict]):  # noqa: F811 (fixture)
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    _login(page, site)
    key = next(c["value"] for c in context.cookies() if c["name"] == "sessionid")
    session = SessionStore(session_key=key)
    session[TURNS] = seeded
    session.save()
    page.goto(f"{site}/")
    page.add_style_tag(content=".ask-form { position: static; }")
    return context, page


def _login(page, site: str) -> None:
    """As `analyst_cleared`, who may see the RESTRICTED Southeast Asia net profit ranked here."""
    page.goto(f"{site}/")
    page.fill("#id_username", "analyst_cleared")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/")


def test_computed_cards_and_the_ranking_chart_render(browser, site) -> None:  # noqa: F811 (fixture)
    SHOTS.mkdir(parents=True, exist_ok=True)
    seeded = turns()
    context, page = seeded_page(browser, site, 1280, seeded)
    growth = page.locator("article.turn").nth(0).locator(".computed-card")
    assert growth.count() == 1
    assert "+8.54%" in growth.inner_text() and "+10,110.4" in growth.inner_text()
    inputs = growth.locator("details.computed-inputs")
    assert not inputs.locator("li").first.is_visible()
    inputs.locator("summary").click()
    assert inputs.locator("li").count() == 2 and "128,450.6 百万元" in inputs.inner_text()
    assert inputs.locator("a", has_text="打开文档").count() == 2
    growth.screenshot(path=str(SHOTS / "computed-card.png"))

    ranking = page.locator("article.turn").nth(3).locator("figure.ranking")
    bars = ranking.locator("rect.bar")
    assert bars.count() == 2 and ranking.locator("rect.bar.negative").count() == 1
    assert ranking.locator("text.label").all_text_contents() == ["ACME集团", "ACME东南亚"]
    assert "缺少数据" in ranking.inner_text() and "ACME中国内地" in ranking.inner_text()
    negative, positive = ranking.locator("rect.bar.negative").bounding_box(), bars.first.bounding_box()
    assert negative["x"] + negative["width"] == pytest.approx(positive["x"], abs=1.5)  # both meet at zero
    ranking.screenshot(path=str(SHOTS / "computed-ranking.png"))
    regions = page.locator("article.turn").nth(2).locator("figure.ranking")
    assert regions.locator("text.label").all_text_contents() == ["ACME中国内地", "ACME香港", "ACME东南亚"]
    ties = page.locator("article.turn").nth(4).locator("figure.ranking")
    assert ties.locator("text.rank").all_text_contents() == ["1", "1", "3"]
    assert ties.locator("text.value").all_text_contents() == ["1,200.5 · 并列", "1,200.5 · 并列", "-310.2"]
    assert "缺少数据，未参与排名：ACME集团" in ties.inner_text()
    ties.screenshot(path=str(SHOTS / "computed-ranking-ties.png"))
    english = page.locator("article.turn").nth(5).locator(".computed-card")
    english.locator("summary").click()
    assert "Inputs (2)" in english.inner_text() and "Source: " in english.inner_text()
    assert "(revenue FY2025 − revenue FY2024) ÷ revenue FY2024" in english.inner_text()
    english.screenshot(path=str(SHOTS / "computed-card-en.png"))
    page.screenshot(path=str(SHOTS / "computed-page.png"), full_page=True)
    context.close()


def test_computed_answers_fit_a_phone(browser, site) -> None:  # noqa: F811 (fixture)
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, page = seeded_page(browser, site, 390, turns())
    for details in page.locator("details.computed-inputs").all()[:1]:
        details.locator("summary").click()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    label = page.locator("figure.ranking text.label").first.bounding_box()
    assert label["height"] >= 8  # chart text stays readable once scaled down
    page.screenshot(path=str(SHOTS / "computed-phone.png"), full_page=True)
    context.close()
