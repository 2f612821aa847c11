"""The source viewer to the cell in real Chromium: from an answer's figure to its source,
where the highlighted cell holds that figure, for a spreadsheet, a slide, a Word and a PDF table;
on a phone-width screen no table cell overflows."""

from __future__ import annotations

import pytest

from documents.services import document_ingest
from ingestion.values import value_parse
from tests.browser.support import SHOTS, ask, login
from tests.documents.sample_files import docx_with_table, pdf_with_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _number(text: str):
    parsed = value_parse(text.strip())
    assert parsed is not None, text
    return parsed[0]


def _open_source_of_first_figure(page, shot: str, *, javascript: bool = True) -> tuple[str, str]:
    """The figure the answer shows first, and the text of the cell its source opens on."""
    turn = page.locator("article.turn").last
    inputs = turn.locator("details.answer-inputs")
    if inputs.get_attribute("open") is None:
        inputs.locator("> summary").click()  # the inputs with their sources, collapsed under the answer
    row = inputs.locator("table.facts tbody tr").first
    figure = row.locator("td.num").inner_text()
    with page.expect_navigation():
        row.locator("td.fact-source a[href*='/documents/']").click()
    cell = page.locator("#at")
    cell.wait_for()
    box, viewport = cell.bounding_box(), page.viewport_size
    assert box is not None and viewport is not None
    assert 0 <= box["y"] < viewport["height"] and 0 <= box["x"] < viewport["width"]  # scrolled into view
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / shot))
    return figure, cell.inner_text()


@pytest.mark.parametrize(
    ("question", "kind", "shot"),
    [
        ("集团2024年营收是多少", ".xlsx", "source-xlsx.png"),
        ("集团2025年营收是多少", ".pptx", "source-pptx.png"),
        ("集团2019年营收是多少", ".docx", "source-docx.png"),
        ("集团2017年营收是多少", ".pdf", "source-pdf.png"),
    ],
)
def test_the_source_of_a_figure_opens_on_the_cell_holding_it(browser, site, question, kind, shot) -> None:
    header = ["指标", "FY2019", "FY2018"]
    document_ingest(
        name="ACME集团_2019摘要.docx",
        data=docx_with_table("ACME集团 主要财务指标", header, [["营业收入", "55,555.5", "44,444.4"]]),
    )
    document_ingest(
        name="ACME集团_2017业绩.pdf",
        data=pdf_with_table(
            "ACME集团 主要财务指标（人民币百万元）",
            ["指标", "FY2017", "FY2016"],
            [["营业收入", "33,333.3", "22,222.2"]],
        ),
    )
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    ask(page, question)
    assert kind in page.locator("article.turn").last.locator("details.answer-inputs").text_content()
    figure, cell = _open_source_of_first_figure(page, shot)
    assert _number(cell) == _number(figure)
    assert kind in page.locator("h1").inner_text()
    context.close()


def test_the_viewer_works_without_javascript(browser, site) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 700}, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    page.fill("#question", "集团2024年营收是多少")
    page.click("#ask-form button[type=submit]")
    page.wait_for_url(f"{site}/#turn-0")
    figure, cell = _open_source_of_first_figure(page, "source-xlsx-nojs.png", javascript=False)
    assert _number(cell) == _number(figure)
    context.close()


def test_at_phone_width_no_table_cell_overflows(browser, site) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    for question in ("集团2024年和2025年营收对比", "各子公司2025年营收排名"):
        ask(page, question)
    page.locator("details").evaluate_all("els => els.forEach(e => e.open = true)")
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('article.turn td, article.turn th')]
            .filter(c => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > window.innerWidth + 1)
            .map(c => c.textContent.trim().slice(0, 40))"""
    )
    assert overflowing == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.add_style_tag(content=".ask-form { position: static; }")
    page.screenshot(path=str(SHOTS / "phone-answer.png"), full_page=True)
    context.close()


def test_the_header_switches_the_ui_to_english(browser, site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN")
    page = context.new_page()
    login(page, site)
    assert page.locator("#ask-form button[type=submit]").inner_text() == "提问"
    with page.expect_navigation():
        page.click(".language a[data-language=en]")
    assert page.locator("#ask-form button[type=submit]").inner_text() == "Ask"
    assert "Recent questions" in page.locator("aside.side").inner_text()
    ask(page, "What was ACME Group revenue in FY2024?")
    turn = page.locator("article.turn").last
    turn.locator("details.answer-inputs > summary").click()
    table = turn.locator("details.answer-inputs table.facts")
    headers = ["Entity", "Period", "Metric", "Channel", "Value", "Unit", "Source"]
    assert table.locator("thead th").all_inner_texts() == headers
    assert table.locator("tbody td").nth(0).inner_text() == "ACME Group"  # the glossary's English name
    assert table.locator("tbody td").nth(2).inner_text() == "revenue"
    assert "Export CSV" in turn.inner_text() and turn.locator(".badge").first.inner_text() == "Data"
    page.add_style_tag(content=".ask-form { position: static; }")
    page.screenshot(path=str(SHOTS / "answer-english.png"), full_page=True)
    _open_source_of_first_figure(page, "source-xlsx-en.png")
    assert "Cited cell:" in page.locator("article.document").inner_text()
    page.goto(f"{site}/")
    page.screenshot(path=str(SHOTS / "ui-english.png"), full_page=True)
    context.close()
