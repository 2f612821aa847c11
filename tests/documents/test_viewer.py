"""The source viewer to the cell: a cited cell opens in its table, highlighted, with the
answers' clearance; and locators said in words."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from documents.locators import locator_human, locators_in_words, source_human
from documents.models import Document
from documents.services import document_ingest
from documents.viewer import cell_grid
from facts.models import FactMetric
from ingestion.ir import is_cell_locator
from ingestion.values import value_parse

from .sample_files import docx_with_table, pdf_with_table

HEADER = ["指标", "FY2019", "FY2018"]
ROWS = [["营业收入", "55,555.5", "44,444.4"], ["净利润", "5,555.5", "4,444.4"]]


def _number(text: str) -> Decimal:
    parsed = value_parse(text)
    assert parsed is not None, text
    return parsed[0]


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _highlighted(html: str) -> str:
    match = re.search(r'id="at"[^>]*>([^<]*)<', html)
    assert match is not None, "no highlighted cell"
    return match.group(1)


@pytest.mark.django_db
def test_every_demo_cell_fact_opens_on_the_cell_that_holds_its_figure(demo: dict[str, Any]) -> None:
    facts = [f for f in FactMetric.objects.select_related("document") if f.document and is_cell_locator(f.locator)]
    assert len(facts) > 50
    for fact in facts:
        grid = cell_grid(fact.document, fact.locator, cleared=True)
        assert grid is not None, fact.locator
        assert _number(grid.focus_text) == fact.value, fact.locator


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "make", "locator"),
    [
        ("ACME集团_摘要.docx", docx_with_table, "table=1,row=营业收入,col=FY2019"),
        ("ACME集团_摘要.pdf", pdf_with_table, "page=1,table=1,row=营业收入,col=FY2019"),
    ],
)
def test_a_word_and_a_pdf_table_open_on_the_cell(demo: dict[str, Any], name: str, make: Any, locator: str) -> None:
    outcome = document_ingest(name=name, data=make("ACME集团 2019年主要财务指标", HEADER, ROWS))
    fact = FactMetric.objects.get(document=outcome.document, locator=locator)
    html = _client(demo["users"]["analyst"]).get(f"/documents/{fact.document_id}/?at={quote(locator)}").content.decode()
    assert _number(_highlighted(html)) == fact.value == Decimal("55555.5")


@pytest.mark.django_db
def test_the_spreadsheet_page_shows_its_sheet_with_the_cell_marked(demo: dict[str, Any]) -> None:
    document = Document.objects.get(name="ACME_5yr_Summary.xlsx")
    response = _client(demo["users"]["analyst"]).get(f"/documents/{document.pk}/?at={quote('sheet=ACME集团!D3')}")
    html = response.content.decode()
    assert response.status_code == 200 and "application/vnd" not in html
    assert _number(_highlighted(html)) == FactMetric.objects.get(locator="sheet=ACME集团!D3").value
    assert "ACME集团 · D3 (营业收入, FY2024)" in html
    assert '<tr class="letters">' in html and '<th class="rownum">3</th>' in html  # row and column headers


@pytest.mark.django_db
def test_the_viewer_keeps_the_answers_clearance(demo: dict[str, Any]) -> None:
    secret = Document.objects.get(sensitivity="RESTRICTED")
    analyst, cleared = _client(demo["users"]["analyst"]), _client(demo["users"]["analyst_cleared"])
    assert analyst.get(f"/documents/{secret.pk}/?at=x").status_code == 404
    assert analyst.get("/documents/999999/?at=x").status_code == 404
    # a RESTRICTED figure in a visible sheet is masked for the uncleared, shown to the cleared
    hidden = FactMetric.objects.get(locator="sheet=ACME集团!C3")
    hidden.sensitivity = "RESTRICTED"
    hidden.save()
    url = f"/documents/{hidden.document_id}/?at={quote('sheet=ACME集团!D3')}"
    shown = f">{hidden.value}<"
    assert shown not in analyst.get(url).content.decode() and 'class=" masked"' in analyst.get(url).content.decode()
    assert shown in cleared.get(url).content.decode()
    own = f"/documents/{hidden.document_id}/?at={quote(hidden.locator)}"
    assert 'id="at"' not in analyst.get(own).content.decode()
    assert _number(_highlighted(cleared.get(own).content.decode())) == hidden.value


@pytest.mark.parametrize(
    ("locator", "language", "what", "words"),
    [
        ("sheet=ACME集团!D3", "zh", "营业收入, FY2024", "ACME集团 · D3 (营业收入, FY2024)"),
        ("sheet=ACME集团!D3", "en", "", "ACME集团 · D3"),
        ("page=3,table=1,row=营业收入,col=FY2025", "zh", "", "第3页 · 表1 · 营业收入 / FY2025"),
        ("page=3,table=1,row=Revenue,col=FY2025", "en", "", "page 3 · table 1 · Revenue / FY2025"),
        ("slide=3,table=1,row=营业收入,col=FY2025", "zh", "", "第3张幻灯片 · 表1 · 营业收入 / FY2025"),
        ("table=2,row=净利润,col=FY2025", "zh", "", "表2 · 净利润 / FY2025"),
        ("slide=3,notes", "zh", "", "第3张幻灯片备注"),
        ("slide=3", "en", "", "slide 3"),
        ("page=2", "zh", "", "第2页"),
        ("section=一、规则修订,para=1", "zh", "", "一、规则修订 · 第1段"),
        ("sheet=季度KPI", "zh", "", "季度KPI"),
        ("line=4", "en", "", "line 4"),
        ("odd", "zh", "", "odd"),
        ("", "zh", "", ""),
    ],
)
def test_a_locator_in_words(locator: str, language: str, what: str, words: str) -> None:
    assert locator_human(locator, language=language, what=what) == words


def test_a_source_in_words() -> None:
    assert (
        source_human("ACME_5yr_Summary.xlsx", "sheet=ACME集团!D3", what="营业收入, FY2024")
        == "ACME_5yr_Summary.xlsx · ACME集团 · D3 (营业收入, FY2024)"
    )


def test_the_locators_in_an_answer_said_in_words_in_one_pass() -> None:
    text = "营业收入：1（来源：a.pptx · slide=3,table=1,row=营业收入,col=FY2025）；见 a.pptx · slide=3"
    places = {
        "slide=3": locator_human("slide=3"),
        "slide=3,table=1,row=营业收入,col=FY2025": locator_human("slide=3,table=1,row=营业收入,col=FY2025"),
    }
    assert locators_in_words(text, places) == (
        "营业收入：1（来源：a.pptx · 第3张幻灯片 · 表1 · 营业收入 / FY2025）；见 a.pptx · 第3张幻灯片"
    )
    assert locators_in_words("no locator", places) == "no locator" and locators_in_words("x", {}) == "x"
