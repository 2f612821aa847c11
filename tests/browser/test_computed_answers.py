"""Computed answers in real Chromium: the analyst types the questions into the page's form and
reads the computed card (formula, inputs that open their documents) and the ranking chart.

A tie cannot come from the demo data, so one ranking is answered by the same pipeline over
generated figures and stored as a turn of the page's conversation (`turn_seed`).

Screenshots are taken only when `RAGSPINE_SCREENSHOTS` names a folder (`1` means docs/screenshots/):
computed-growth.png and computed-ranking.png (docs/using.md shows them), and their -phone variants.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore

from agent.page.views import CONVERSATION
from facts.selectors import glossary_snapshot
from tests.agent.computed_results import generated_store, pipeline_answer, turn_seed
from tests.browser.support import CLEARED, ask, page_open, shot, static_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_computed_cards_and_the_ranking_chart_render(browser, cleared_site) -> None:
    context, page = page_open(browser, cleared_site, 1280)
    turns = page.locator("article.turn")

    ask(page, "集团2025年营收同比增长多少")
    growth = turns.nth(0).locator(".computed-card")
    assert growth.count() == 1
    assert "+8.54%" in growth.inner_text() and "+10,110.4" in growth.inner_text()
    # the card's inputs are listed once, in the panel's collapsed table of figures and sources
    inputs = turns.nth(0).locator("details.answer-inputs")
    assert not inputs.locator("tbody tr").first.is_visible()
    inputs.locator("> summary").click()
    assert inputs.locator("tbody tr").count() == 2 and "128,450.6" in inputs.inner_text()
    assert inputs.locator("a", has_text="打开文档").count() == 2

    ask(page, "2025年各地区营业利润排名")
    ranking = turns.nth(1).locator("figure.ranking")
    assert ranking.locator("text.label").all_text_contents() == ["ACME中国内地", "ACME香港", "ACME东南亚"]
    assert ranking.locator("text.value").all_text_contents() == ["8,640.1", "1,932.4", "-1,085.2"]
    bars = ranking.locator("rect.bar")
    assert bars.count() == 3 and ranking.locator("rect.bar.negative").count() == 1
    widths = [bars.nth(i).bounding_box()["width"] for i in range(3)]
    assert widths[0] > widths[1] > 0 and widths[2] > 0
    negative, positive = ranking.locator("rect.bar.negative").bounding_box(), bars.first.bounding_box()
    assert negative["x"] + negative["width"] == pytest.approx(positive["x"], abs=1.5)  # both meet at zero
    assert turns.nth(1).locator("svg.chart, figure.chart").count() == 0  # no second, plain chart

    ask(page, "2025年集团、中国内地和东南亚净利润排名")
    missing = turns.nth(2).locator("figure.ranking")
    assert missing.locator("text.label").all_text_contents() == ["ACME集团", "ACME东南亚"]
    assert missing.locator("rect.bar.negative").count() == 1
    assert "缺少数据，未参与排名：ACME中国内地" in missing.inner_text()

    ask(page, "集团2025年营业利润率是多少")
    margin = turns.nth(3).locator(".computed-card")
    assert "7.39%" in margin.inner_text() and "营业利润 FY2025 ÷ 营业收入 FY2025" in margin.inner_text()

    ask(page, "What was the group's revenue growth in 2025?")
    english = turns.nth(4).locator(".computed-card")
    assert "(revenue FY2025 − revenue FY2024) ÷ revenue FY2024" in english.inner_text()
    turns.nth(4).locator("details.answer-inputs > summary").click()
    assert "Figures and sources (2)" in turns.nth(4).inner_text() and "Source" in turns.nth(4).inner_text()

    key = next(c["value"] for c in context.cookies() if c["name"] == "sessionid")
    store = generated_store("OPERATING_PROFIT", {"ACME_CN": "1200.5", "ACME_HK": "1200.5", "ACME_SEA": "-310.2"})
    tied = pipeline_answer("2025年集团、中国内地、香港和东南亚营业利润排名", store=store, glossary=glossary_snapshot())
    user = get_user_model().objects.get(username=CLEARED)
    turn_seed(user=user, external_id=SessionStore(session_key=key)[CONVERSATION], result=tied)
    page.reload()
    ties = turns.nth(5).locator("figure.ranking")
    assert ties.locator("text.rank").all_text_contents() == ["1", "1", "3"]
    assert ties.locator("text.value").all_text_contents() == ["1,200.5 · 并列", "1,200.5 · 并列", "-310.2"]
    assert "缺少数据，未参与排名：ACME集团" in ties.inner_text()

    static_form(page)
    turns.nth(0).locator("details.answer-inputs > summary").click()  # open again after the reload
    shot(turns.nth(0).locator(".answer"), "computed-growth.png")
    shot(turns.nth(1).locator("figure.ranking"), "computed-ranking.png")
    context.close()


def test_computed_answers_fit_a_phone(browser, cleared_site) -> None:
    context, page = page_open(browser, cleared_site, 390)
    ask(page, "集团2025年营收同比增长多少")
    ask(page, "2025年各地区营业利润排名")
    turns = page.locator("article.turn")
    turns.nth(0).locator("details.answer-inputs > summary").click()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    ranking = turns.nth(1).locator("figure.ranking")
    assert ranking.bounding_box()["width"] <= 390
    label = ranking.locator("text.label").first.bounding_box()
    assert label["height"] >= 8  # chart text stays readable once scaled down
    static_form(page)
    shot(turns.nth(0).locator(".answer"), "computed-growth-phone.png")
    shot(ranking, "computed-ranking-phone.png")
    context.close()
