"""What sits around a table, per format: its lead (the text that introduces it), its nearest
heading, and a PDF table continued on the next page read as one with its caption and header."""

from __future__ import annotations

import io
from typing import Any

from ingestion import extract
from ingestion.ir import Table

from .builders import docx_bytes, docx_table, pptx_bytes, sheet_rows, xlsx_bytes

INTRO = (
    "The following table sets out the deferred charges of the group at the end of each of the last two "
    "financial years, which consisted of the following (in thousands):"
)
GRID = [["", "2019", "2018"], ["Deferred rent", "1,204", "1,117"], ["Deferred fees", "310", "295"]]


def context(table: Table) -> tuple[str, str, str]:
    return table.title, table.lead, table.heading


# -- docx ------------------------------------------------------------------------------------------


def test_docx_table_takes_the_nearest_heading_and_the_paragraph_before_it() -> None:
    def build(document: Any) -> None:
        document.add_heading("Annual report 2019", level=0)
        document.add_heading("ACME Hong Kong Limited", level=1)
        document.add_paragraph("Overview of the year.")
        document.add_heading("Deferred charges", level=2)
        document.add_heading("ACME Singapore Pte", level=1)
        document.add_paragraph(INTRO)
        docx_table(document, GRID)
        document.add_paragraph("Revenue by segment")
        docx_table(document, GRID)
        docx_table(document, GRID)

    first, captioned, stacked = extract("report.docx", docx_bytes(build)).tables
    assert context(first) == ("", INTRO, "ACME Singapore Pte")  # a long paragraph is no caption
    assert context(captioned) == ("Revenue by segment", "Revenue by segment", "ACME Singapore Pte")
    assert context(stacked) == ("", "", "ACME Singapore Pte")  # right after a table: nothing introduces it


def test_docx_heading_right_before_a_table_is_its_heading_not_its_lead() -> None:
    def build(document: Any) -> None:
        document.add_paragraph("Preface.")
        document.add_heading("ACME Hong Kong Limited", level=1)
        docx_table(document, GRID)

    (table,) = extract("report.docx", docx_bytes(build)).tables
    assert context(table) == ("", "", "ACME Hong Kong Limited")


# -- pptx ------------------------------------------------------------------------------------------


def test_pptx_lead_is_the_text_above_the_table_however_long_and_heading_the_slide_title() -> None:
    from pptx.util import Inches

    def build(presentation: Any) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[5])
        slide.shapes.title.text = "ACME Hong Kong Limited"
        box = slide.shapes.add_textbox(Inches(0.5), Inches(1.5), Inches(8), Inches(0.5))
        box.text_frame.text = INTRO
        shape = slide.shapes.add_table(3, 3, Inches(0.5), Inches(2.5), Inches(8), Inches(1.5))
        for r, row in enumerate(GRID):
            for c, text in enumerate(row):
                shape.table.cell(r, c).text = text

    (table,) = extract("deck.pptx", pptx_bytes(build)).tables
    assert context(table) == ("ACME Hong Kong Limited", INTRO, "ACME Hong Kong Limited")


# -- xlsx ------------------------------------------------------------------------------------------


def test_xlsx_lead_is_the_title_row_and_a_lone_row_above_it_the_heading() -> None:
    def build(workbook: Any) -> None:
        ws = workbook.create_sheet("Notes")
        sheet_rows(
            ws,
            [
                ["ACME Hong Kong Limited"],
                [],
                ["Deferred charges (in thousands)"],
                *GRID,
                ["Note: unaudited"],
                [],
                ["Deferred fees (in thousands)"],
                *GRID,
            ],
        )

    first, second = extract("book.xlsx", xlsx_bytes(build)).tables
    caption = "Deferred charges (in thousands)"
    # The lead is every lone row above the table: a note, then its caption.
    assert context(first) == (caption, f"ACME Hong Kong Limited {caption}", "ACME Hong Kong Limited")
    # A lone row after a table (a footnote) is not a heading; the sheet's heading still holds.
    assert context(second)[1:] == ("Deferred fees (in thousands)", "ACME Hong Kong Limited")


def test_xlsx_single_title_row_is_title_and_lead_with_no_heading() -> None:
    book = xlsx_bytes(lambda w: sheet_rows(w.create_sheet("S"), [["Deferred charges"], *GRID]))
    (table,) = extract("book.xlsx", book).tables
    assert context(table) == ("Deferred charges", "Deferred charges", "")


# -- pdf -------------------------------------------------------------------------------------------


def pdf_story(items: list[Any], *, running: bool = False) -> bytes:
    """A PDF from ("h", text), ("p", text), ("table", rows, repeat_rows) and ("break",) items."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, TableStyle
    from reportlab.platypus import Table as PdfTable

    body = ParagraphStyle("b", fontName="Helvetica", fontSize=10.5, leading=16, spaceAfter=8)
    heading = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=15, leading=20, spaceAfter=6)
    story: list[Any] = []
    for item in items:
        if item[0] == "h":
            story.append(Paragraph(item[1], heading))
        elif item[0] == "p":
            story.append(Paragraph(item[1], body))
        elif item[0] == "break":
            story.append(PageBreak())
        else:
            table = PdfTable(item[1], repeatRows=item[2], hAlign="LEFT")
            table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, "black")]))
            story += [table, Spacer(1, 6)]

    def page_number(canvas: Any, document: Any) -> None:
        if running:  # a running header and a page number in the footer, on every page
            canvas.setFont("Helvetica", 9)
            canvas.drawString(72, A4[1] - 40, f"ACME Annual Report 2019 | {document.page}")
            canvas.drawString(280, 30, f"- {document.page} -")

    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, invariant=1, title="Annual report").build(
        story, onFirstPage=page_number, onLaterPages=page_number
    )
    return out.getvalue()


def long_grid(count: int, *, header_rows: int = 1) -> list[list[str]]:
    header = [["", "Year ended December 31,", ""], ["", "2019", "2018"]][-header_rows:]
    return [*header, *([f"Item {i}", f"{i + 1},100", f"{i + 1},050"] for i in range(count))]


def test_pdf_lead_is_the_last_paragraph_above_and_heading_the_nearest_large_line() -> None:
    data = pdf_story(
        [
            ("h", "ACME Hong Kong Limited"),
            ("p", "The group recorded a steady year."),
            ("p", INTRO),
            ("table", GRID, 0),
            ("table", GRID, 0),
            ("p", "Fees by segment were as follows:"),
            ("table", GRID, 0),
            ("break",),
            ("h", "Liquidity"),
            ("table", GRID, 0),
            ("break",),
            ("p", "Cash at the end of the year was as follows:"),
            ("table", GRID, 0),
        ]
    )
    tables = extract("report.pdf", data).tables
    assert [(t.locator_prefix, t.lead, t.heading) for t in tables] == [
        ("page=1,table=1", INTRO, "ACME Hong Kong Limited"),
        ("page=1,table=2", "", "ACME Hong Kong Limited"),  # right under another table
        ("page=1,table=3", "Fees by segment were as follows:", "ACME Hong Kong Limited"),
        ("page=2,table=1", "", "Liquidity"),  # a heading, not a paragraph, introduces it
        ("page=3,table=1", "Cash at the end of the year was as follows:", "Liquidity"),  # the heading carries on
    ]
    assert tables[0].title.endswith("(in thousands):")  # the line just above, as before


def test_pdf_table_continued_on_the_next_page_without_repeated_header_gets_the_header() -> None:
    grid = long_grid(70)
    data = pdf_story([("h", "ACME Hong Kong Limited"), ("p", INTRO), ("table", grid, 0), ("p", "After.")])
    first, rest = extract("report.pdf", data).tables
    assert rest.locator_prefix == "page=2,table=1"
    assert (rest.title, rest.lead, rest.heading) == (first.title, INTRO, "ACME Hong Kong Limited")
    assert rest.rows[0] == ["", "2019", "2018"] and rest.rows[1][0] != "Item 0"
    assert first.rows[1:] + rest.rows[1:] == grid[1:]  # every row once, each page under the header


def test_pdf_table_continued_with_repeated_header_rows_is_not_given_them_twice() -> None:
    grid = long_grid(90, header_rows=2)
    data = pdf_story([("p", INTRO), ("table", grid, 2)], running=True)  # a running header is no text above
    tables = extract("report.pdf", data).tables
    assert len(tables) == 3 and [t.locator_prefix for t in tables] == [f"page={n},table=1" for n in (1, 2, 3)]
    for table in tables:
        assert (table.title, table.lead) == (tables[0].title, INTRO)
        assert table.rows[:2] == grid[:2] and table.rows[2][0].startswith("Item")
    assert [row for t in tables for row in t.rows[2:]] == grid[2:]


def test_pdf_table_at_the_top_of_a_page_is_no_continuation_when_text_or_shape_says_otherwise() -> None:
    narrow = [["", "2019"], ["Deferred rent", "1,204"]]
    other = [["", "2017", "2016"], ["Deferred rent", "1,204", "1,117"]]
    data = pdf_story(
        [
            ("p", INTRO),
            ("table", long_grid(34), 0),
            ("break",),
            ("table", narrow, 0),  # another column count
            ("table", long_grid(20), 0),
            ("break",),
            ("p", "Fees were as follows:"),
            ("table", long_grid(2), 0),  # text above it on its page
            ("break",),
            ("table", other, 0),  # a header of its own
        ]
    )
    tables = extract("report.pdf", data).tables
    assert [t.locator_prefix for t in tables] == [
        "page=1,table=1",
        "page=2,table=1",
        "page=2,table=2",
        "page=3,table=1",
        "page=4,table=1",
    ]
    assert [(t.title, t.lead) for t in tables[1:]] == [("", ""), ("", ""), ("Fees were as follows:",) * 2, ("", "")]
    assert [t.rows for t in tables[1:]] == [narrow, long_grid(20), long_grid(2), other]


def test_pdf_continuation_may_open_with_a_section_label_instead_of_a_header() -> None:
    grid = [["", "2019", "2018"], *([f"Asset {i}", "1", "2"] for i in range(34)), ["Liabilities:", "", ""]]
    grid += [[f"Liability {i}", "3", "4"] for i in range(30)]
    data = pdf_story([("p", INTRO), ("table", grid, 0)])
    first, rest = extract("report.pdf", data).tables
    assert rest.title == first.title and rest.rows[:2] == [["", "2019", "2018"], ["Liabilities:", "", ""]]
    assert first.rows + rest.rows[1:] == grid


def test_xlsx_a_spacer_row_inside_a_table_does_not_split_it() -> None:
    def build(workbook: Any) -> None:
        sheet_rows(
            workbook.create_sheet("Taxes"),
            [["(in millions)", "2019", "2018"], ["Inventories", 43, 58], [], ["Intangible assets", 964, 552]],
        )

    (table,) = extract("book.xlsx", xlsx_bytes(build)).tables
    assert table.rows[-1][0] == "Intangible assets" and table.a1(3, 1) == "B4"


# -- what the context gives the facts ----------------------------------------------------------------


def _facts_glossary() -> Any:
    from core.glossary import AliasRecord, ChannelInfo, EntityInfo, MetricInfo, UnitInfo, glossary_build

    items = [f"Item {i}" for i in range(90)]
    return glossary_build(
        entities=[EntityInfo("ACME_HK", "ACME Hong Kong Limited", "subsidiary")],
        metrics=[MetricInfo(f"ITEM_{i}", item, "AS_PRINTED") for i, item in enumerate(items)],
        channels=[ChannelInfo("TOTAL", "合计")],
        units=[UnitInfo("AS_PRINTED", "", "")],
        aliases=[
            AliasRecord("entity", "ACME Hong Kong Limited", "ACME_HK"),
            *(AliasRecord("metric", item, f"ITEM_{i}") for i, item in enumerate(items)),
        ],
        home_company_name="Home",
    )


def test_a_word_table_takes_its_company_from_the_heading_and_its_scale_from_the_sentence_before() -> None:
    from ingestion import document_facts

    def build(document: Any) -> None:
        document.add_heading("ACME Hong Kong Limited", level=1)
        document.add_paragraph(
            "The group's deferred charges at the end of each year consisted of the following (in thousands):"
        )
        docx_table(document, [["", "2019", "2018"], ["Item 1", "1,100", "1,050"]])

    got = document_facts(extract("notes.docx", docx_bytes(build)), glossary=_facts_glossary(), sensitivity="INTERNAL")
    assert {(f.entity, f.metric, f.period_label, str(f.value), f.unit, f.status) for f in got.candidates} == {
        ("ACME_HK", "ITEM_1", "FY2019", "1100", "AMT_K", "approved"),
        ("ACME_HK", "ITEM_1", "FY2018", "1050", "AMT_K", "approved"),
    }


def test_a_pdf_table_continued_on_the_next_page_keeps_its_company_and_scale() -> None:
    from ingestion import document_facts

    grid = long_grid(70)
    data = pdf_story([("h", "ACME Hong Kong Limited"), ("p", INTRO), ("table", grid, 0), ("p", "After.")])
    got = document_facts(extract("report.pdf", data), glossary=_facts_glossary(), sensitivity="INTERNAL")
    on_page_2 = [f for f in got.candidates if f.locator.startswith("page=2")]
    assert on_page_2 and all((f.entity, f.unit, f.status) == ("ACME_HK", "AMT_K", "approved") for f in on_page_2)
    assert len(got.candidates) == 2 * 70
