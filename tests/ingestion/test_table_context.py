"""What sits around a table, per format: its lead (the text that introduces it) and its nearest
heading."""

from __future__ import annotations

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
    assert context(first) == (caption, caption, "ACME Hong Kong Limited")
    # A lone row after a table (a footnote) is not a heading; the sheet's heading still holds.
    assert context(second)[1:] == ("Deferred fees (in thousands)", "ACME Hong Kong Limited")


def test_xlsx_single_title_row_is_title_and_lead_with_no_heading() -> None:
    book = xlsx_bytes(lambda w: sheet_rows(w.create_sheet("S"), [["Deferred charges"], *GRID]))
    (table,) = extract("book.xlsx", book).tables
    assert context(table) == ("Deferred charges", "Deferred charges", "")
