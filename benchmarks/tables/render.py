"""TAT-QA tables as a curator would upload them: docx, PDF and xlsx files built in memory.

Takes a TAT-QA item and its index in the file; returns the bytes of one file per format, for
company `Company {i:03d}` (entity `TQ{i:03d}`). The table sits among the item's paragraphs (sorted
by `order`) right after its lead paragraph (`printed.lead_index`: the first paragraph stating a
scale, else the first ending with ":", else the last), the way annual reports print it:

- docx: Heading 1 = the company name; the paragraphs before; the grid exactly as printed, one text
  per cell, style "Table Grid"; the paragraphs after.
- pdf: A4, Helvetica 9 pt; the company name as a larger heading line; paragraphs; a ruled table
  (GRID) whose cells are `Paragraph`s, so long labels wrap, repeating the period header on a
  continuation page; paragraphs after.
- xlsx: one sheet named after the company; A1 the lead paragraph, row 2 blank, the grid from
  row 3. A number cell of the body is a number whose format displays it as printed (`(1,234)`
  → -1234 in `#,##0;(#,##0)`, `21.0%` → 0.21 in `0.0%`, a `$` as a literal); header rows and
  every other cell are text.

No file is written to disk and nothing here changes a printed value.
"""

from __future__ import annotations

import io
import re
import unicodedata
from decimal import Decimal
from typing import Any
from xml.sax.saxutils import escape

from .oracle import table_truth
from .printed import company_name, entity_code, lead_index, paragraphs_sorted

FORMATS = ("xlsx", "docx", "pdf")

_PRINTED_NUMBER = re.compile(
    r"(?P<pre>[$€£¥ ]*)(?P<open>\()?(?P<inner>[$€£¥ ]*)(?P<minus>[-\u2212])?"
    r"(?P<digits>[0-9][0-9,]*|)(?:\.(?P<decimals>[0-9]+))?"
    r"(?P<gap> *)(?P<pct>%)?(?P<space> *)(?P<close>\))?(?P<after> *%)?"
)
# Glyphs Helvetica's WinAnsi encoding lacks, printed as the nearest one it has (never a digit).
_PDF_GLYPHS = str.maketrans({"ﬁ": "fi", "ﬂ": "fl", "‐": "-", "‑": "-", "―": "—"})
_PDF_MARGIN = 42.0
_PDF_PADDING = 8.0
_PDF_MIN_LABEL = 110.0


def document_name(index: int, fmt: str) -> str:
    return f"tatqa-{index:03d}.{fmt}"


def placement(item: dict[str, Any]) -> tuple[list[str], str, list[str]]:
    """(paragraphs before the table, its lead paragraph, paragraphs after); the lead is the last
    of those before."""
    texts = [p["text"] for p in paragraphs_sorted(item.get("paragraphs", []))]
    at = lead_index(item.get("paragraphs", []))
    if at is None:
        return [], "", texts
    return texts[: at + 1], texts[at], texts[at + 1 :]


def xlsx_number(text: str) -> tuple[Decimal, str] | None:
    """(the value to store, a number format that displays it as `text` prints it), or None when
    `text` is no plain printed number."""
    printed = unicodedata.normalize("NFKC", text).strip()
    m = _PRINTED_NUMBER.fullmatch(printed)
    if m is None or not m["digits"] or bool(m["open"]) != bool(m["close"]) or (m["space"] and not m["close"]):
        return None
    if m["pct"] and m["after"]:
        return None
    digits, decimals = m["digits"], m["decimals"] or ""
    if "," in digits and not re.fullmatch(r"[0-9]{1,3}(?:,[0-9]{3})+", digits):
        return None
    value = Decimal(digits.replace(",", "") + (f".{decimals}" if decimals else ""))
    percent = bool(m["pct"] or m["after"])
    if percent:
        value = value.scaleb(-2)
    if bool(m["open"]) != bool(m["minus"]):
        value = -value
    body = ("#,##0" if "," in digits else "0") + (f".{'0' * len(decimals)}" if decimals else "")
    unit = (_literal(m["gap"]) + "%") if m["pct"] else ""
    tail = (_literal(m["after"][:-1]) + "%") if m["after"] else ""
    shown = _literal(m["pre"]) + _literal(m["inner"]) + body + unit + tail
    if not m["open"]:
        return value, shown
    negative = _literal(m["pre"]) + "(" + _literal(m["inner"]) + body + unit + _literal(m["space"]) + ")" + tail
    return value, f"{shown};{negative}"


def _literal(text: str | None) -> str:
    return f'"{text}"' if text else ""


def docx_bytes(item: dict[str, Any], index: int) -> bytes:
    from docx import Document

    before, _, after = placement(item)
    grid = item["table"]["table"]
    document = Document()
    document.add_heading(company_name(index), level=1)
    for text in before:
        document.add_paragraph(text)
    table = document.add_table(rows=len(grid), cols=max(len(row) for row in grid))
    table.style = "Table Grid"
    for row, texts in zip(table.rows, grid, strict=True):
        for cell, text in zip(row.cells, texts, strict=False):
            cell.text = text
    for text in after:
        document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pdf_bytes(item: dict[str, Any], index: int) -> bytes:
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_RIGHT
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    body = ParagraphStyle("body", fontName="Helvetica", fontSize=9, leading=11, spaceAfter=4)
    heading = ParagraphStyle("heading", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceAfter=8)
    label = ParagraphStyle("label", fontName="Helvetica", fontSize=9, leading=11)
    figure = ParagraphStyle("figure", parent=label, alignment=TA_RIGHT)

    def para(text: str, style: ParagraphStyle) -> Paragraph:
        return Paragraph(escape(text.translate(_PDF_GLYPHS)), style)

    before, _, after = placement(item)
    grid = item["table"]["table"]
    width = max(len(row) for row in grid)
    available = A4[0] - 2 * _PDF_MARGIN
    natural = [
        max((stringWidth(" ".join(row[c].split()), "Helvetica", 9) for row in grid if c < len(row)), default=0.0)
        + _PDF_PADDING
        for c in range(width)
    ]
    widths = _column_widths(natural, available)
    story: list[Any] = [para(company_name(index), heading)]
    story += [para(text, body) for text in before]
    data = [[para(text, label if c == 0 else figure) for c, text in enumerate(row)] for row in grid]
    repeat = min(table_truth(item, index).header_rows, len(grid) - 1)
    table = Table(data, colWidths=widths, repeatRows=repeat)
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 3),
                ("RIGHTPADDING", (0, 0), (-1, -1), 3),
            ]
        )
    )
    story += [Spacer(1, 4), table, Spacer(1, 6)]
    story += [para(text, body) for text in after]
    out = io.BytesIO()
    SimpleDocTemplate(
        out,
        pagesize=A4,
        leftMargin=_PDF_MARGIN,
        rightMargin=_PDF_MARGIN,
        topMargin=_PDF_MARGIN,
        bottomMargin=_PDF_MARGIN,
        invariant=1,
        title=company_name(index),
    ).build(story)
    return out.getvalue()


def _column_widths(natural: list[float], available: float) -> list[float]:
    """Value columns as wide as their widest text (shrunk evenly when they cannot all fit); the
    label column takes the rest, so it is the one that wraps."""
    values = natural[1:]
    room = available - min(natural[0], _PDF_MIN_LABEL)
    if sum(values) > room:
        values = [w * room / sum(values) for w in values]
    label = available - sum(values)
    return [label, *values]


def xlsx_bytes(item: dict[str, Any], index: int) -> bytes:
    from openpyxl import Workbook

    _, lead, _ = placement(item)
    truth = table_truth(item, index)
    numbers = {(cell.row, cell.col) for cell in truth.cells}
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = company_name(index)
    if lead:
        sheet.cell(row=1, column=1, value=lead)
    for r, row in enumerate(truth.grid):
        for c, text in enumerate(row):
            if not text:
                continue
            target = sheet.cell(row=r + 3, column=c + 1)
            stored = xlsx_number(text) if (r, c) in numbers else None
            if stored is None:
                target.value = text
                target.data_type = "s"
            else:
                target.value, target.number_format = stored
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


_RENDERERS = {"xlsx": xlsx_bytes, "docx": docx_bytes, "pdf": pdf_bytes}
_CACHE: dict[tuple[str, int, str], bytes] = {}


def render(item: dict[str, Any], index: int, fmt: str) -> bytes:
    """The file of one item in one format (cached for the process: the tests render each once)."""
    key = (fmt, index, repr((item["table"]["table"], paragraphs_sorted(item.get("paragraphs", [])))))
    if key not in _CACHE:
        _CACHE[key] = _RENDERERS[fmt](item, index)
    return _CACHE[key]


def render_all(items: list[dict[str, Any]], fmt: str) -> list[tuple[str, bytes, str]]:
    """(document name, file bytes, entity code) of every item, in file order."""
    return [(document_name(i, fmt), render(item, i, fmt), entity_code(i)) for i, item in enumerate(items)]
