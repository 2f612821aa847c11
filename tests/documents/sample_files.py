"""A small Word file and a small PDF, each with one table of figures, made in the test."""

from __future__ import annotations

import io


def docx_with_table(title: str, header: list[str], rows: list[list[str]]) -> bytes:
    import docx

    document = docx.Document()
    document.add_heading(title, level=1)
    document.add_paragraph(f"{title}（人民币百万元）")
    table = document.add_table(rows=1 + len(rows), cols=len(header))
    for c, text in enumerate(header):
        table.cell(0, c).text = text
    for r, row in enumerate(rows, start=1):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pdf_with_table(title: str, header: list[str], rows: list[list[str]]) -> bytes:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    styles = getSampleStyleSheet()
    styles["Title"].fontName = "STSong-Light"
    out = io.BytesIO()
    grid = Table([header, *rows])
    grid.setStyle(
        TableStyle([("FONTNAME", (0, 0), (-1, -1), "STSong-Light"), ("GRID", (0, 0), (-1, -1), 0.5, colors.black)])
    )
    SimpleDocTemplate(out, pagesize=A4).build([Paragraph(title, styles["Title"]), grid])
    return out.getvalue()
