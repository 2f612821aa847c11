"""The analyst flow in real Chromium (Debian's /usr/bin/chromium) through Playwright.

Screenshots land in docs/screenshots/ (docs/using.md shows them).
"""

from __future__ import annotations

import pytest

from tests.browser.support import SHOTS, ask, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_analyst_flow_with_javascript(browser, site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "empty.png"))

    ask(page, "中国内地FY2025的营收是多少")
    first = page.locator("article.turn").nth(0)
    assert "96,120.3" in first.inner_text()
    first.locator("details.answer-inputs > summary").click()
    cell = first.locator("details.answer-inputs table.facts")
    cell.wait_for(state="visible")
    assert "96,120.3" in cell.inner_text() and "ACME_FY2025_Annual_Results.pptx" in first.inner_text()

    ask(page, "营收是多少")
    second = page.locator("article.turn").nth(1)
    assert "【假设】" in second.inner_text()
    second.locator(".banner.assumption button.chip", has_text="ACME香港").click()
    third = page.locator("article.turn").nth(2)
    third.wait_for()
    assert "24,015.8" in third.inner_text() and "ACME香港" in third.inner_text()

    ask(page, "那东南亚呢？")
    fourth = page.locator("article.turn").nth(3)
    assert "8,314.5" in fourth.inner_text() and "【沿用上一问】" in fourth.inner_text()

    seen: list[str] = []
    page.on("response", lambda r: seen.append(r.headers.get("content-type", "")) if r.url.endswith("/ask") else None)
    ask(page, "香港收入为什么下降")
    assert any(kind.startswith("text/event-stream") for kind in seen)  # the answer streamed in
    fifth = page.locator("article.turn").nth(4)
    assert "归因分析" in fifth.inner_text() and "管理层讨论与分析" in fifth.inner_text()
    page.add_style_tag(content=".ask-form { position: static; }")  # a sticky bar would float mid-image
    page.screenshot(path=str(SHOTS / "conversation.png"), full_page=True)

    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN")
    mobile = phone.new_page()
    login(mobile, site)
    ask(mobile, "集团2024年和2025年营收对比")
    assert "10,110.4" in mobile.locator("article.turn").nth(0).inner_text()
    assert mobile.locator("article.turn svg").count() == 1
    mobile.add_style_tag(content=".ask-form { position: static; }")
    mobile.screenshot(path=str(SHOTS / "phone.png"), full_page=True)
    context.close()
    phone.close()


def test_the_basic_ask_works_without_javascript(browser, site) -> None:
    context = browser.new_context(java_script_enabled=False, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    page.fill("#question", "中国内地FY2025的营收是多少")
    page.click("#ask-form button[type=submit]")
    page.wait_for_url(f"{site}/#turn-0")
    assert "96,120.3" in page.locator("article.turn").nth(0).inner_text()
    page.locator("details.answer-inputs > summary").first.click()
    assert page.locator("details.answer-inputs[open]").count() == 1
    context.close()


def test_a_ranking_says_each_figure_once(browser, site) -> None:
    """Say it once: the headline, then the chart; the inputs with their sources collapsed."""
    context = browser.new_context(viewport={"width": 1100, "height": 800}, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    ask(page, "2025年各地区营业利润排名")
    turn = page.locator("article.turn").last
    shown = turn.locator(".answer").inner_text()  # what the eye reads: a closed <details> hides its table
    for figure in ("8,640.1", "1,932.4", "-1,085.2"):
        assert shown.count(figure) == (2 if figure == "8,640.1" else 1), (figure, shown)
    assert turn.locator(".text").inner_text().count("\n") == 0  # the headline is one sentence
    assert not turn.locator("details.answer-inputs table.facts").is_visible()
    turn.locator("details.answer-inputs > summary").click()
    table = turn.locator("details.answer-inputs table.facts")
    assert table.is_visible() and table.locator("tbody tr").count() == 3
    assert "第3张幻灯片" in table.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.add_style_tag(content=".ask-form { position: static; }")
    turn.screenshot(path=str(SHOTS / "ranking-once.png"))
    context.close()
