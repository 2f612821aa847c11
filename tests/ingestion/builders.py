"""Small office files built in memory for the ingestion tests (no binary fixtures are committed)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from typing import Any

CJK_FONT = "STSong-Light"


def pptx_bytes(build: Callable[[Any], None]) -> bytes:
    from pptx import Presentation

    presentation = Presentation()
    build(presentation)
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def slide_with_table(presentation: Any, title: str, rows: list[list[str]], *, notes: str = "") -> Any:
    from pptx.util import Inches

    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = title
    shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(0.5), Inches(2), Inches(8), Inches(3))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            shape.table.cell(r, c).text = text
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    return slide


def xlsx_bytes(build: Callable[[Any], None]) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)
    build(workbook)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def sheet_rows(ws: Any, rows: list[list[Any]], *, start_row: int = 1, start_col: int = 1) -> None:
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if value is not None and value != "":
                ws.cell(row=start_row + r, column=start_col + c, value=value)


def with_cached_values(data: bytes, values: dict[str, str]) -> bytes:
    """An xlsx whose formula cells carry cached values (what Excel writes; openpyxl writes none)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            blob = source.read(info.filename)
            if info.filename.startswith("xl/worksheets/"):
                text = blob.decode()
                for ref, value in values.items():
                    text = re.sub(
                        rf'(<c r="{ref}"[^>]*>\s*<f>[^<]*</f>)\s*(?:<v\s*/>|<v>[^<]*</v>)?',
                        rf"\g<1><v>{value}</v>",
                        text,
                    )
                blob = text.encode()
            target.writestr(info, blob)
    return out.getvalue()


def docx_bytes(build: Callable[[Any], None]) -> bytes:
    from docx import Document

    document = Document()
    build(document)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def docx_table(document: Any, rows: list[list[str]]) -> None:
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.cell(r, c).text = text


def pdf_bytes(pages: list[list[Any]], *, encrypt: Any = None, title: str = "") -> bytes:
    """A digital PDF; each page is a list of ("h", text), ("p", text) or ("table", caption, rows)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))
    body = ParagraphStyle("b", fontName=CJK_FONT, fontSize=10.5, leading=16, spaceAfter=8, wordWrap="CJK")
    heading = ParagraphStyle("h", fontName=CJK_FONT, fontSize=15, leading=20, spaceAfter=6, wordWrap="CJK")
    story: list[Any] = []
    for index, page in enumerate(pages):
        if index:
            story.append(PageBreak())
        for item in page:
            if item[0] == "h":
                story.append(Paragraph(item[1], heading))
            elif item[0] == "p":
                story.append(Paragraph(item[1], body))
            else:
                _, caption, rows = item
                table = Table(rows, hAlign="LEFT")
                table.setStyle(
                    TableStyle([("FONTNAME", (0, 0), (-1, -1), CJK_FONT), ("GRID", (0, 0), (-1, -1), 0.5, "black")])
                )
                story += [Spacer(1, 6), Paragraph(caption, body), table, Spacer(1, 6)]
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, invariant=1, encrypt=encrypt, title=title).build(story)
    return out.getvalue()


def ole_bytes(*, encrypted: bool) -> bytes:
    """The start of an OLE compound file, as encrypted OOXML and legacy .doc/.xls/.ppt files are."""
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504
    directory = ("EncryptionInfo" if encrypted else "WordDocument").encode("utf-16-le")
    return header + directory + b"\x00" * 1024


def type3_pdf() -> bytes:
    """A one-page PDF whose only text is set in a Type 3 font with made-up glyph names and no
    ToUnicode map: no reader can tell which characters its glyphs are."""
    glyph = b"0 0 d0 0 0 m 500 0 l 500 500 l 0 500 l f"
    font = (
        b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 500 500] /FontMatrix [0.001 0 0 0.001 0 0]"
        b" /CharProcs << /g1 6 0 R /g2 6 0 R /g3 6 0 R /g4 6 0 R >>"
        b" /Encoding << /Type /Encoding /Differences [1 /g1 /g2 /g3 /g4] >> /FirstChar 1 /LastChar 4"
        b" /Widths [500 500 500 500] >>"
    )
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]"
        b" /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
    )
    streams = {4: b"BT /F1 24 Tf 72 700 Td <01020304> Tj ET", 6: glyph}
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, b"", font, b""]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        if number in streams:
            data = streams[number]
            body = b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
