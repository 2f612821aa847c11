"""Extraction per format: tables with cell locators, text blocks with structural locators."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest

from ingestion import ExtractionError, extract, facts_from_table
from ingestion.formats import EXTENSIONS, FORMATS
from ingestion.ir import Table, column_letters
from ingestion.sheets import number_text
from retrieval.chunking import chunks_build
from tests.fakes import demo_glossary

from .builders import (
    docx_bytes,
    docx_table,
    pdf_bytes,
    pptx_bytes,
    sheet_rows,
    slide_with_table,
    type3_pdf,
    with_cached_values,
    xlsx_bytes,
)

GLOSSARY = demo_glossary()


def table_facts(table: Table, name: str = "f") -> dict[tuple[str, str, str, str], tuple[str, str, str]]:
    got = facts_from_table(table, glossary=GLOSSARY, document_name=name, sensitivity="INTERNAL")
    return {(f.entity, f.metric, f.period_label, f.channel): (str(f.value), f.unit, f.locator) for f in got}


# -- pptx ------------------------------------------------------------------------------------------


def test_pptx_tables_text_and_notes() -> None:
    def build(presentation: Any) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = "经营概况"
        frame = slide.placeholders[1].text_frame
        frame.text = "集团营业收入稳步增长。"
        frame.add_paragraph().text = "东南亚仍处于投入期。"
        slide_with_table(
            presentation,
            "ACME香港 — 门店（人民币百万元）",
            [["项目", "FY2025"], ["营业收入", "17,895.4"]],
            notes="门店数据为管理口径。",
        )

    document = extract("deck.pptx", pptx_bytes(build))
    assert document.pages == 2 and document.title == "经营概况"
    assert document.media_type.endswith("presentationml.presentation")
    assert [(b.locator, b.text) for b in document.blocks] == [
        ("slide=1", "经营概况"),
        ("slide=1", "集团营业收入稳步增长。"),
        ("slide=1", "东南亚仍处于投入期。"),
        ("slide=2", "ACME香港 — 门店（人民币百万元）"),
        ("slide=2,notes", "门店数据为管理口径。"),
    ]
    assert {c.locator for c in chunks_build(document.blocks)} == {"slide=1", "slide=2", "slide=2,notes"}
    (table,) = document.tables
    assert table.locator_prefix == "slide=2,table=1" and table.title == "ACME香港 — 门店（人民币百万元）"
    assert table_facts(table) == {
        ("ACME_HK", "REVENUE", "FY2025", "STORE"): ("17895.4", "CNY_M", "slide=2,table=1,row=营业收入,col=FY2025")
    }


def test_pptx_several_tables_on_a_slide_use_their_captions() -> None:
    from pptx.util import Inches

    def build(presentation: Any) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[5])
        slide.shapes.title.text = "分渠道营业收入（人民币百万元）"
        for index, (caption, value) in enumerate([("ACME中国内地 — 线上", "41,230.5"), ("ACME香港 — 线上", "6,120.4")]):
            left = Inches(0.5 + 4.5 * index)
            box = slide.shapes.add_textbox(left, Inches(1.5), Inches(4), Inches(0.5))
            box.text_frame.text = caption
            shape = slide.shapes.add_table(2, 2, left, Inches(2.2), Inches(4), Inches(1))
            for r, row in enumerate([["项目", "FY2025"], ["营业收入", value]]):
                for c, text in enumerate(row):
                    shape.table.cell(r, c).text = text

    document = extract("deck.pptx", pptx_bytes(build))
    assert [t.locator_prefix for t in document.tables] == ["slide=1,table=1", "slide=1,table=2"]
    found = {key: value[0] for t in document.tables for key, value in table_facts(t).items()}
    assert found == {
        ("ACME_CN", "REVENUE", "FY2025", "ONLINE"): "41230.5",
        ("ACME_HK", "REVENUE", "FY2025", "ONLINE"): "6120.4",
    }


def test_pptx_merged_header_cells() -> None:
    def build(presentation: Any) -> None:
        slide = slide_with_table(
            presentation,
            "ACME中国内地（百万元）",
            [["", "2025", ""], ["项目", "H1", "H2"], ["营业收入", "45,210.6", "50,909.7"]],
        )
        table = next(s for s in slide.shapes if s.has_table).table
        table.cell(0, 1).merge(table.cell(0, 2))

    (table,) = extract("deck.pptx", pptx_bytes(build)).tables
    assert table.rows[0] == ["", "2025", "2025"]
    assert {k[2]: v[0] for k, v in table_facts(table).items()} == {"2025H1": "45210.6", "2025H2": "50909.7"}


# -- xlsx ------------------------------------------------------------------------------------------


def test_xlsx_every_sheet_a1_locators_and_merged_title() -> None:
    def build(workbook: Any) -> None:
        ws = workbook.create_sheet("ACME香港")
        sheet_rows(
            ws, [["ACME香港 五年摘要（人民币百万元）"], ["项目", "FY2023", "FY2024"], ["营业收入", 24611.4, 25730.1]]
        )
        ws.merge_cells("A1:C1")
        for cell in ("B3", "C3"):
            ws[cell].number_format = "#,##0.0"
        other = workbook.create_sheet("东南亚")
        sheet_rows(other, [["项目", "FY2024"], ["营业利润", -310.2], ["毛利率", 0.169]], start_row=3, start_col=2)
        other["C4"].number_format = "#,##0.0;(#,##0.0)"
        other["C5"].number_format = "0.0%"

    document = extract("book.xlsx", xlsx_bytes(build))
    assert document.pages == 2 and document.blocks == []
    hk, sea = document.tables
    assert hk.title == "ACME香港 五年摘要（人民币百万元）" and hk.origin == (2, 1) and hk.sheet == "ACME香港"
    assert table_facts(hk) == {
        ("ACME_HK", "REVENUE", "FY2023", "TOTAL"): ("24611.4", "CNY_M", "sheet=ACME香港!B3"),
        ("ACME_HK", "REVENUE", "FY2024", "TOTAL"): ("25730.1", "CNY_M", "sheet=ACME香港!C3"),
    }
    assert table_facts(sea) == {
        ("ACME_SEA", "OPERATING_PROFIT", "FY2024", "TOTAL"): ("-310.2", "CNY_M", "sheet=东南亚!C4"),
        ("ACME_SEA", "GROSS_MARGIN", "FY2024", "TOTAL"): ("16.9", "PCT", "sheet=东南亚!C5"),
    }


def test_xlsx_merged_header_across_a_header_row() -> None:
    def build(workbook: Any) -> None:
        ws = workbook.create_sheet("ACME中国内地")
        sheet_rows(
            ws,
            [["项目", "FY2025", None, None], [None, "线上", "门店", "经销"], ["营业收入", 41230.5, 38904.6, 15985.2]],
        )
        ws.merge_cells("B1:D1")
        ws.merge_cells("A1:A2")

    (table,) = extract("book.xlsx", xlsx_bytes(build)).tables
    assert table.rows[0] == ["项目", "FY2025", "FY2025", "FY2025"] and table.rows[1][0] == "项目"
    assert table_facts(table) == {
        ("ACME_CN", "REVENUE", "FY2025", "ONLINE"): ("41230.5", "CNY_M", "sheet=ACME中国内地!B3"),
        ("ACME_CN", "REVENUE", "FY2025", "STORE"): ("38904.6", "CNY_M", "sheet=ACME中国内地!C3"),
        ("ACME_CN", "REVENUE", "FY2025", "DISTRIBUTOR"): ("15985.2", "CNY_M", "sheet=ACME中国内地!D3"),
    }


def test_xlsx_reads_cached_values_not_formulas() -> None:
    def build(workbook: Any) -> None:
        ws = workbook.create_sheet("ACME集团")
        sheet_rows(ws, [["项目", "FY2024", "FY2025"], ["营业收入", 118340.2, "=B2*1.085"], ["净利润", "=1+1", 7402.3]])

    data = with_cached_values(xlsx_bytes(build), {"C2": "128399.117", "B3": "2"})
    (table,) = extract("book.xlsx", data).tables
    assert table.rows[1][2] == "128399.117" and table.rows[2][1] == "2"
    assert not any(cell.startswith("=") for row in table.rows for cell in row)


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (98215.39999999999, "General", "98215.4"),  # a double written with 17 digits
        (5230, "#,##0.0", "5230.0"),
        (0.297, "0.0%", "29.7%"),
        (412, "#,##0", "412"),
        (-310.2, "#,##0.0;(#,##0.0)", "-310.2"),
        (1234567, "#,##0,", "1235"),  # a thousands-scaling format
        (0.5, '0.00" x"', "0.50"),
        (7, None, "7"),
    ],
)
def test_xlsx_numbers_read_as_displayed(value: float, fmt: str | None, text: str) -> None:
    assert number_text(value, fmt) == text


def test_column_letters() -> None:
    assert [column_letters(n) for n in (1, 3, 26, 27, 52, 703)] == ["A", "C", "Z", "AA", "AZ", "AAA"]


# -- pdf -------------------------------------------------------------------------------------------


def test_pdf_tables_and_paragraphs_by_page_with_cjk() -> None:
    long = "香港营业收入同比下降6.7%。" * 12
    data = pdf_bytes(
        [
            [("h", "一、整体经营情况"), ("p", long), ("p", "集团毛利率由上年的31.9%下降至29.7%。")],
            [
                (
                    "table",
                    "分部营业收入（人民币百万元）",
                    [["分部", "2025H1"], ["ACME香港", "11,809.4"], ["ACME东南亚", "4,184.8"]],
                )
            ],
        ],
        title="中期报告",
    )
    document = extract("report.pdf", data)
    assert document.pages == 2 and document.title == "中期报告"
    page_one = [(b.locator, b.para, b.heading, b.text) for b in document.blocks if b.locator == "page=1"]
    assert page_one == [
        ("page=1", 1, "一、整体经营情况", long),  # wrapped lines joined back, CJK with no spaces
        ("page=1", 2, "一、整体经营情况", "集团毛利率由上年的31.9%下降至29.7%。"),
    ]
    assert [(b.locator, b.para, b.text) for b in document.blocks if b.locator == "page=2"] == [
        ("page=2", 1, "分部营业收入（人民币百万元）")
    ]
    assert chunks_build(document.blocks)[0].locator.startswith("page=1,para=1")
    (table,) = document.tables
    assert table.locator_prefix == "page=2,table=1" and table.title == "分部营业收入（人民币百万元）"
    assert table_facts(table) == {
        ("ACME_HK", "REVENUE", "2025H1", "TOTAL"): ("11809.4", "CNY_M", "page=2,table=1,row=ACME香港,col=2025H1"),
        ("ACME_SEA", "REVENUE", "2025H1", "TOTAL"): ("4184.8", "CNY_M", "page=2,table=1,row=ACME东南亚,col=2025H1"),
    }


def test_pdf_encrypted_with_a_password_is_refused_but_permissions_only_is_read() -> None:
    from reportlab.lib.pdfencrypt import StandardEncryption

    locked = pdf_bytes([[("p", "机密内容")]], encrypt=StandardEncryption("secret", ownerPassword="owner"))
    with pytest.raises(ExtractionError) as caught:
        extract("locked.pdf", locked)
    assert caught.value.code == "encrypted" and "password" in caught.value.message

    # Permissions only (an empty user password): readable, with a warning.
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out, encrypt=StandardEncryption("", ownerPassword="owner"), invariant=1)
    page.drawString(72, 720, "Public annual report text.")
    page.save()
    document = extract("open.pdf", out.getvalue())
    assert [b.text for b in document.blocks] == ["Public annual report text."] and document.warnings


def test_pdf_text_without_unicode_mapping_is_refused_not_indexed_as_garbage() -> None:
    # a Type 3 font with made-up glyph names and no ToUnicode: no reader knows its characters
    error = _refusal("garbled.pdf", type3_pdf())
    assert error.code == "empty" and "no readable text" in error.message


def test_pdf_a_cid_font_whose_system_info_is_garbled_is_still_read() -> None:
    from reportlab.lib.pdfencrypt import StandardEncryption

    # reportlab's encryption garbles the CID font's CIDSystemInfo (pdfminer alone yields
    # `(cid:1796)…`); PDFium maps the glyphs through the font's own CMap
    garbled = pdf_bytes([[("p", "公开内容")]], encrypt=StandardEncryption("", ownerPassword="owner"))
    assert [b.text for b in extract("garbled.pdf", garbled).blocks] == ["公开内容"]


# -- docx ------------------------------------------------------------------------------------------


def test_docx_sections_paragraphs_and_tables() -> None:
    def build(document: Any) -> None:
        document.add_heading("东南亚扩张计划", level=0)
        document.add_paragraph("前言段落。")
        document.add_heading("财务影响", level=2)
        document.add_paragraph("东南亚业务仍在投入期。")
        document.add_paragraph("ACME东南亚 主要财务数据（人民币百万元）", style="Caption")
        docx_table(document, [["项目", "FY2025"], ["净利润", "(1,402.6)"]])
        document.add_paragraph("表后说明。")
        document.add_heading("风险", level=2)
        document.add_paragraph("汇率风险。")

    document = extract("plan.docx", docx_bytes(build))
    assert document.title == "东南亚扩张计划"
    assert [(b.locator, b.para, b.text) for b in document.blocks] == [
        ("", 1, "前言段落。"),
        ("section=财务影响", 1, "东南亚业务仍在投入期。"),
        ("section=财务影响", 2, "ACME东南亚 主要财务数据（人民币百万元）"),
        ("section=财务影响", 3, "表后说明。"),
        ("section=风险", 1, "汇率风险。"),
    ]
    assert [c.locator for c in chunks_build(document.blocks)] == [
        "para=1",
        "section=财务影响,para=1-3",
        "section=风险,para=1",
    ]
    (table,) = document.tables
    assert table.title == "ACME东南亚 主要财务数据（人民币百万元）"
    assert table_facts(table) == {
        ("ACME_SEA", "NET_PROFIT", "FY2025", "TOTAL"): ("-1402.6", "CNY_M", "table=1,row=净利润,col=FY2025")
    }


def test_docx_merged_cells_do_not_duplicate_values() -> None:
    def build(document: Any) -> None:
        document.add_paragraph("ACME集团")
        docx_table(document, [["项目", "FY2024", "FY2025"], ["营业收入", "1.0", ""]])
        table = document.tables[0]
        table.cell(1, 1).merge(table.cell(1, 2))

    (table,) = extract("merged.docx", docx_bytes(build)).tables
    assert table.rows[1] == ["营业收入", "1.0", ""]


# -- md / txt --------------------------------------------------------------------------------------


def test_markdown_and_text() -> None:
    md = "# 标题\n\n## 一、概况\n第一段。\n第二段。\n".encode()
    document = extract("note.md", md)
    assert document.title == "标题" and document.media_type == "text/markdown"
    assert [(b.locator, b.para) for b in document.blocks] == [("section=一、概况", 1), ("section=一、概况", 2)]
    text = extract("note.txt", "\ufeff第一行\n第二行\n".encode())
    assert [(b.locator, b.para, b.text) for b in text.blocks] == [("", 1, "第一行"), ("", 2, "第二行")]


# -- refusals --------------------------------------------------------------------------------------


def _valid(ext: str) -> bytes:
    if ext == ".pptx":
        return pptx_bytes(lambda p: slide_with_table(p, "ACME集团", [["项目", "FY2025"], ["营业收入", "1"]]))
    if ext == ".xlsx":
        return xlsx_bytes(lambda w: sheet_rows(w.create_sheet("S"), [["a", "b"]]))
    if ext == ".docx":
        return docx_bytes(lambda d: d.add_paragraph("正文"))
    return pdf_bytes([[("p", "正文")]])


def _refusal(name: str, data: bytes, **limits: int) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract(name, data, **limits)  # type: ignore[arg-type]
    message = caught.value.message
    assert message.startswith(name + ":") and "Traceback" not in message and "\n" not in message
    return caught.value


@pytest.mark.parametrize("ext", [".pptx", ".xlsx", ".docx", ".pdf"])
def test_corrupt_files_of_each_format(ext: str) -> None:
    good = _valid(ext)
    truncated = good[: len(good) // 2]
    assert _refusal(f"bad{ext}", truncated).code == "corrupt"
    assert _refusal(f"junk{ext}", (b"%PDF-1.7\n" if ext == ".pdf" else b"") + b"\x13\x37 not really" * 50).code == (
        "corrupt"
    )


def test_zip_with_broken_office_parts_is_corrupt() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<Types><Override ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.document.main+xml"/></Types>',
        )
        archive.writestr("word/document.xml", "<not-xml")
    assert _refusal("broken.docx", out.getvalue()).code == "corrupt"


@pytest.mark.parametrize("ext", [".pptx", ".xlsx", ".docx"])
def test_password_protected_and_legacy_office_files(ext: str) -> None:
    from .builders import ole_bytes

    assert _refusal(f"locked{ext}", ole_bytes(encrypted=True)).code == "encrypted"
    legacy = _refusal(f"old{ext}", ole_bytes(encrypted=False))
    assert legacy.code == "mislabelled" and "legacy" in legacy.message


def test_mislabelled_files() -> None:
    pptx, pdf = _valid(".pptx"), _valid(".pdf")
    assert "PowerPoint" in _refusal("really_pptx.pdf", pptx).message
    assert _refusal("really_pdf.docx", pdf).code == "mislabelled"
    wrong = _refusal("really_pptx.xlsx", pptx)
    assert wrong.code == "mislabelled" and ".pptx" in wrong.message
    plain_zip = io.BytesIO()
    with zipfile.ZipFile(plain_zip, "w") as archive:
        archive.writestr("a.txt", "hello")
    assert _refusal("archive.docx", plain_zip.getvalue()).code == "mislabelled"
    assert _refusal("binary.md", pdf).code == "mislabelled"
    assert _refusal("latin.txt", "caf\xe9".encode("latin-1")).code == "corrupt"


def test_empty_files() -> None:
    assert _refusal("empty.pdf", b"").code == "empty"
    assert _refusal("blank.md", b"  \n\n ").code == "empty"
    assert _refusal("no_text.pdf", pdf_bytes([[("p", " ")]])).code == "empty"
    assert _refusal("empty.xlsx", xlsx_bytes(lambda w: w.create_sheet("S"))).code == "empty"


def test_every_registered_format_is_read_with_its_media_type() -> None:
    """The upload checks accept `EXTENSIONS`; each one must also extract (`.markdown` once did not)."""
    assert EXTENSIONS == (".pptx", ".xlsx", ".pdf", ".docx", ".md", ".markdown", ".txt", ".html", ".htm")
    samples = {"text": "# 标题\n## 一\n正文。\n".encode(), "html": "<h1>标题</h1><h2>一</h2><p>正文。</p>".encode()}
    for fmt in FORMATS:
        data = samples.get(fmt.container) or _valid(fmt.extension)
        document = extract(f"sample{fmt.extension}", data)
        assert document.media_type == fmt.media_type and (document.blocks or document.tables), fmt.extension
    markdown = extract("note.markdown", "# 标题\n## 一、概况\n第一段。\n".encode())
    assert markdown.title == "标题" and [b.locator for b in markdown.blocks] == ["section=一、概况"]


def test_unsupported_extension() -> None:
    error = _refusal("data.csv", b"a,b\n")
    assert error.code == "unsupported" and ".pptx" in error.message


def test_size_and_page_limits() -> None:
    pdf = pdf_bytes([[("p", "一")], [("p", "二")], [("p", "三")]])
    big = _refusal("big.pdf", pdf, max_bytes=len(pdf) - 1)
    assert big.code == "too_large" and "KB exceeds the size limit of" in big.message
    assert extract("ok.pdf", pdf, max_bytes=len(pdf), max_pages=3).pages == 3
    assert "3 pages" in _refusal("long.pdf", pdf, max_pages=2).message
    deck = pptx_bytes(lambda p: [p.slides.add_slide(p.slide_layouts[6]) for _ in range(3)])
    assert _refusal("long.pptx", deck, max_pages=2).code == "too_many_pages"
    book = xlsx_bytes(lambda w: [sheet_rows(w.create_sheet(f"S{i}"), [["x"]]) for i in range(3)])
    assert _refusal("wide.xlsx", book, max_pages=2).code == "too_many_pages"


def test_a_zip_that_unpacks_too_far_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<Types><Override ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.document.main+xml"/></Types>',
        )
        archive.writestr("word/document.xml", b"\x00" * 5_000_000)
    data = out.getvalue()
    assert _refusal("bomb.docx", data, max_bytes=len(data) + 10).code == "too_large"
