"""Locators said in words: every grammar the ingestion writes (pptx slides and notes, xlsx sheet
cells, pdf pages, paragraphs and paragraph ranges of docx/html/markdown sections, tables and their
cells, imported files' rows, and `; `-joined composites of them), in Chinese and English, each part
once, place first, and never a `key=value` left over."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from documents.locators import (
    CellLabels,
    Named,
    Notes,
    Numbered,
    SheetCell,
    locator_human,
    locator_parse,
    locators_in_words,
)

# The places the demo showed for `哪些文件提到了东南亚`: the chunks that mention 东南亚, joined per
# document by `documents_find`; once said as `第5; slide=5张幻灯片 · 备注` and
# `第1页 · 第5-6; page=1段 · 第1-4段`.
DEMO_SOUTHEAST_ASIA = [
    ("slide=5; slide=5,notes", "第5张幻灯片及其备注", "slide 5 and its notes"),
    ("page=1,para=5-6; page=1,para=1-4", "第1页 · 第5–6段、第1–4段", "page 1 · paragraphs 5–6 and 1–4"),
    (
        "section=财务影响,para=1-2; section=项目概述,para=1; section=风险,para=1",
        "财务影响 · 第1–2段，项目概述 · 第1段，风险 · 第1段",
        "财务影响 · paragraphs 1–2, 项目概述 · paragraph 1, 风险 · paragraph 1",
    ),
]


@pytest.mark.parametrize(("locator", "chinese", "english"), DEMO_SOUTHEAST_ASIA)
def test_the_demo_places_for_southeast_asia_read_as_words(locator: str, chinese: str, english: str) -> None:
    assert locator_human(locator, language="zh") == chinese
    assert locator_human(locator, language="en") == english


@pytest.mark.django_db
def test_the_demo_says_where_southeast_asia_is_mentioned_in_words(demo: dict[str, Any]) -> None:
    from retrieval.models import Chunk
    from retrieval.selectors import OrmNarrativeRetriever

    mentions = set(Chunk.objects.filter(text__contains="东南亚").values_list("locator", flat=True))
    assert {"slide=5", "slide=5,notes", "page=1,para=1-4", "page=1,para=5-6"} <= mentions
    found = {s.locator for s in OrmNarrativeRetriever().documents_find("东南亚", cleared=True)}
    assert {"slide=5; slide=5,notes", "page=1,para=5-6; page=1,para=1-4"} <= found

    web = Client()
    web.force_login(demo["users"]["analyst_cleared"])
    body = web.post("/ask", {"question": "哪些文件提到了东南亚"}, HTTP_HX_REQUEST="true").content.decode()
    words = re.sub(r"<[^>]+>", "", html.unescape(body))
    assert "ACME_FY2025_Annual_Results.pptx · 第5张幻灯片及其备注" in words
    assert "ACME_FY2025_管理层讨论与分析.pdf · 第1页 · 第5–6段、第1–4段" in words
    assert not re.search(r"\b(?:slide|page|section|para)=", words)


@pytest.mark.django_db
def test_every_locator_the_demo_writes_reads_as_words(demo: dict[str, Any]) -> None:
    from facts.models import FactMetric
    from retrieval.models import Chunk

    locators = {*Chunk.objects.values_list("locator", flat=True), *FactMetric.objects.values_list("locator", flat=True)}
    assert any(",notes" in locator for locator in locators) and any("!" in locator for locator in locators)
    for locator in locators:
        for language in ("zh", "en"):
            words = locator_human(locator, language=language)
            assert words and "=" not in words and ";" not in words, (locator, words)


@pytest.mark.parametrize(
    ("locator", "chinese", "english"),
    [
        # pptx: a slide's text, its notes, a table on it and a cell of that table
        ("slide=3", "第3张幻灯片", "slide 3"),
        ("slide=3,notes", "第3张幻灯片备注", "slide 3 notes"),
        ("slide=2,table=1", "第2张幻灯片 · 表1", "slide 2 · table 1"),
        (
            "slide=2,table=1,row=营业收入,col=FY2025",
            "第2张幻灯片 · 表1 · 营业收入 / FY2025",
            "slide 2 · table 1 · 营业收入 / FY2025",
        ),
        # pdf: a page's paragraphs, a table on it and a cell
        ("page=2,para=3", "第2页 · 第3段", "page 2 · paragraph 3"),
        ("page=1,para=1-4", "第1页 · 第1–4段", "page 1 · paragraphs 1–4"),
        ("page=4,table=1", "第4页 · 表1", "page 4 · table 1"),
        (
            "page=3,table=1,row=Revenue,col=FY2025",
            "第3页 · 表1 · Revenue / FY2025",
            "page 3 · table 1 · Revenue / FY2025",
        ),
        # docx, html, markdown and text: a section's paragraphs (a heading keeps its commas), tables
        ("section=一、规则修订,para=1", "一、规则修订 · 第1段", "一、规则修订 · paragraph 1"),
        ("section=Revenue, net,para=2-3", "Revenue, net · 第2–3段", "Revenue, net · paragraphs 2–3"),
        ("para=4", "第4段", "paragraph 4"),
        ("table=2", "表2", "table 2"),
        ("table=2,row=净利润,col=FY2025", "表2 · 净利润 / FY2025", "table 2 · 净利润 / FY2025"),
        # xlsx: a sheet, and a cell of it by its A1 reference
        ("sheet=季度KPI", "季度KPI", None),
        ("sheet=ACME集团!D3", "ACME集团 · D3", None),
        # an imported file's row, a line
        ("file=facts.csv,row=12", "facts.csv · 第12行", "facts.csv · row 12"),
        ("line=4", "第4行", "line 4"),
        # parts in the wrong order or said twice are said in order, once
        ("para=2,page=7", "第7页 · 第2段", "page 7 · paragraph 2"),
        ("slide=5,notes,slide=5", "第5张幻灯片备注", "slide 5 notes"),
        # composites: a shared place once, what differs listed under it
        ("section=目录,para=1; section=目录,para=1", "目录 · 第1段", "目录 · paragraph 1"),
        ("para=3; para=5; para=7-8", "第3段、第5段、第7–8段", "paragraphs 3, 5 and 7–8"),
        ("sheet=ACME集团!D3; sheet=ACME集团!D4", "ACME集团 · D3、D4", "ACME集团 · D3 and D4"),
        ("slide=1; slide=2,notes", "第1张幻灯片，第2张幻灯片备注", "slide 1, slide 2 notes"),
        ("page=2; page=2,para=3", "第2页 · 正文、第3段", "page 2 · body text and paragraph 3"),
        (
            "slide=5,table=1,row=A,col=B; slide=5,table=1,row=C,col=B",
            "第5张幻灯片 · 表1 · A / B、C / B",
            "slide 5 · table 1 · A / B and C / B",
        ),
        # a part no reader writes is said as words; a locator of which nothing parses, as written
        ("page=2,figure=3", "第2页 · figure 3", "page 2 · figure 3"),
        ("odd", "odd", "odd"),
        ("heading", "heading", "heading"),
        ("", "", ""),
    ],
)
def test_a_locator_of_each_grammar_in_words(locator: str, chinese: str, english: str | None) -> None:
    assert locator_human(locator, language="zh") == chinese
    assert locator_human(locator, language="en") == (chinese if english is None else english)


def test_what_is_said_after_a_sheet_cell_only() -> None:
    assert locator_human("sheet=ACME集团!D3", what="营业收入, FY2024") == "ACME集团 · D3 (营业收入, FY2024)"
    assert locator_human("sheet=A, B!C4:D5", language="en", what="x") == "A, B · C4:D5 (x)"
    assert locator_human("slide=5; slide=5,notes", what="营业收入, FY2024") == "第5张幻灯片及其备注"


def test_a_locator_parses_into_typed_parts_place_first_each_once() -> None:
    assert locator_parse("table=1,col=FY2025,row=毛利,page=3,page=3") == (
        Numbered("page", "3", "3"),
        Numbered("table", "1", "1"),
        CellLabels("毛利", "FY2025"),
    )
    assert locator_parse("slide=5,notes") == (Numbered("slide", "5", "5"), Notes())
    assert locator_parse("section=Revenue, net,para=5-6") == (
        Named("section", "Revenue, net"),
        Numbered("para", "5", "6"),
    )
    assert locator_parse("sheet=A!B!C4") == (Named("sheet", "A!B"), SheetCell("C4"))
    assert locator_parse("file=facts.csv,row=12") == (Named("file", "facts.csv"), Numbered("row", "12", "12"))


# -- every grammar, generated -------------------------------------------------------------------
# Names and labels carry no digit, so the only numbers in a locator are its places' own.
SECTIONS = ["财务影响", "二、个人信息出境新规", "Risks, outlook", "物流成本", "Q&A"]
SHEETS = ["ACME集团", "季度KPI", "Summary, FY", "ACME香港"]
LABELS = ["营业收入", "毛利率", "Revenue", "Net income", "FY"]

Pick = Callable[[], str]


def _span(number: Pick, ranged: bool) -> str:
    first, last = sorted((int(number()), int(number())))
    return f"{first}-{last}" if ranged else str(first)


def _pptx(draw: st.DrawFn, number: Pick) -> list[str]:
    written = []
    for _ in range(draw(st.integers(1, 2))):
        slide, table = number(), number()
        row, col = draw(st.sampled_from(LABELS)), draw(st.sampled_from(LABELS))
        written += [f"slide={slide}", f"slide={slide},notes", f"slide={slide},table={table}"]
        written.append(f"slide={slide},table={table},row={row},col={col}")
    return written


def _pdf(draw: st.DrawFn, number: Pick) -> list[str]:
    written = []
    for _ in range(draw(st.integers(1, 2))):
        page, table = number(), number()
        row, col = draw(st.sampled_from(LABELS)), draw(st.sampled_from(LABELS))
        written += [f"page={page},para={_span(number, draw(st.booleans()))}" for _ in range(2)]
        written += [f"page={page},table={table}", f"page={page},table={table},row={row},col={col}"]
    return written


def _sections(draw: st.DrawFn, number: Pick) -> list[str]:
    sections = draw(st.lists(st.sampled_from(SECTIONS), min_size=1, max_size=3, unique=True))
    written = [f"section={s},para={_span(number, draw(st.booleans()))}" for s in sections for _ in range(2)]
    table, row, col = number(), draw(st.sampled_from(LABELS)), draw(st.sampled_from(LABELS))
    return [*written, f"para={number()}", f"table={table}", f"table={table},row={row},col={col}"]


def _xlsx(draw: st.DrawFn, number: Pick) -> list[str]:
    sheets = draw(st.lists(st.sampled_from(SHEETS), min_size=1, max_size=2, unique=True))
    letters = st.sampled_from(["B", "C", "D", "AA"])
    return [f"sheet={s}" for s in sheets] + [f"sheet={s}!{draw(letters)}{number()}" for s in sheets for _ in range(2)]


def _imported(draw: st.DrawFn, number: Pick) -> list[str]:
    return [f"file=facts.csv,row={number()}", f"line={number()}"]


@st.composite
def locators(draw: st.DrawFn) -> str:
    """One locator or a composite of a document's locators, as a reader and `documents_find` write them."""
    numbers = iter(draw(st.lists(st.integers(1, 999), min_size=40, max_size=40, unique=True)))
    reader = draw(st.sampled_from([_pptx, _pdf, _sections, _xlsx, _imported]))
    written = reader(draw, lambda: str(next(numbers)))
    return "; ".join(draw(st.lists(st.sampled_from(written), min_size=1, max_size=4)))


@given(locators(), st.sampled_from(["zh", "en"]))
def test_any_locator_reads_as_words_each_number_once(locator: str, language: str) -> None:
    words = locator_human(locator, language=language)
    assert words and "=" not in words and ";" not in words
    for number in set(re.findall(r"[0-9]+", locator)):
        assert len(re.findall(rf"(?<![0-9]){number}(?![0-9])", words)) == 1, (locator, words)
    for name in SECTIONS + SHEETS:
        if f"={name}," in locator or f"={name}!" in locator or locator.endswith(f"={name}"):
            assert name in words


@given(locators())
def test_a_composite_says_a_locator_it_repeats_once(locator: str) -> None:
    one = locator.split("; ")
    assert locator_human("; ".join(one), language="en") == locator_human("; ".join(dict.fromkeys(one)), language="en")


# -- locators in running text ---------------------------------------------------------------------
def test_the_locators_in_a_documents_list_said_in_words() -> None:
    text = "1. a.pptx（slide=5; slide=5,notes）：…\n2. b.pdf（page=1,para=5-6; page=1,para=1-4）：…"
    places = {locator: locator_human(locator) for locator, _, _ in DEMO_SOUTHEAST_ASIA}
    assert locators_in_words(text, places) == (
        "1. a.pptx（第5张幻灯片及其备注）：…\n2. b.pdf（第1页 · 第5–6段、第1–4段）：…"
    )


@pytest.mark.parametrize(
    ("text", "places", "words"),
    [
        # a shorter locator is not replaced inside a longer one it does not name
        ("见 slide=10", {"slide=1": "S1"}, "见 slide=10"),
        ("见 slide=5,notes。", {"slide=5": "S5"}, "见 slide=5,notes。"),
        ("page=1,para=1-4）", {"page=1,para=1": "P"}, "page=1,para=1-4）"),
        ("sheet=ACME集团!D3", {"sheet=ACME集团": "S"}, "sheet=ACME集团!D3"),
        ("page=1,para=2", {"para=2": "P"}, "page=1,para=2"),
        # where the whole locator stands it is, at an end of text or before punctuation
        ("见slide=1，slide=10。", {"slide=1": "S1", "slide=10": "S10"}, "见S1，S10。"),
        ("(a.pptx · slide=3,table=1,row=A,col=B)", {"slide=3,table=1,row=A,col=B": "T"}, "(a.pptx · T)"),
        ("slide=5; slide=5,notes", {"slide=5": "S", "slide=5,notes": "N"}, "S; N"),
    ],
)
def test_a_locator_in_text_is_replaced_whole_or_not_at_all(text: str, places: dict[str, str], words: str) -> None:
    assert locators_in_words(text, places) == words


@given(st.lists(locators(), min_size=1, max_size=5), st.data(), st.sampled_from(["zh", "en"]))
def test_locators_in_text_leave_no_fragment(written: list[str], data: st.DataObject, language: str) -> None:
    singles = list(dict.fromkeys(one for locator in written for one in [locator, *locator.split("; ")]))
    parts = {one for locator in singles for one in locator.split("; ")}
    known = data.draw(st.lists(st.sampled_from(singles), unique=True))
    places = {locator: locator_human(locator, language=language) for locator in known}
    text = "，".join(f"（a.pdf · {locator}）" for locator in singles)
    said = re.findall(r"（a\.pdf · (.*?)）", locators_in_words(text, places))
    assert len(said) == len(singles)
    for locator, words in zip(singles, said, strict=True):
        if locator in places:
            assert words == places[locator]
        # what is left of a locator no place names is whole locators, never a piece of one
        assert all("=" not in piece or piece in parts for piece in words.split("; ")), (locator, words)
    everything = {one: locator_human(one, language=language) for one in [*singles, *parts]}
    assert "=" not in locators_in_words(text, everything)
