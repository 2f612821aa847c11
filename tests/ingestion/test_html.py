"""HTML (`.html`, `.htm`): headings and paragraphs as blocks with section locators, `<table>` as a
grid with cell locators (spans expanded), the text decoded from UTF-8 or GB18030, and a file that
is not HTML refused with a clear error."""

from __future__ import annotations

import pytest

from ingestion import ExtractionError, extract, facts_from_table
from retrieval.chunking import chunks_build
from tests.fakes import demo_glossary

from .builders import pdf_bytes, xlsx_bytes

REPORT = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>ACME集团 2025年年度报告</title>
<style>p { color: red } /* 样式里的字不是正文 */</style>
<script>var x = "<p>脚本里的段落</p>";</script></head>
<body>
<h1>ACME集团 2025年年度报告</h1>
<p>前言段落。</p>
<h2>一、公司简介</h2>
<p>研发&amp;生产&nbsp;基地位于&#20013;&#x56FD;。</p>
<p>第二段
  跨行的文字。</p>
<div>一段<b>没有</b>段落标签的文字</div>
<h2>二、风险</h2>
<ul><li>汇率风险。</li><li>原料价格风险。</li></ul>
<!-- <p>注释里的段落</p> -->
</body></html>
"""


def html(body: str) -> bytes:
    return f"<html><body>{body}</body></html>".encode()


def test_headings_open_sections_and_paragraphs_are_numbered_within() -> None:
    document = extract("report.html", REPORT.encode())
    assert document.title == "ACME集团 2025年年度报告" and document.media_type == "text/html"
    assert [(b.locator, b.para, b.text) for b in document.blocks] == [
        ("", 1, "前言段落。"),
        ("section=一、公司简介", 1, "研发&生产 基地位于中国。"),
        ("section=一、公司简介", 2, "第二段跨行的文字。"),  # a line break between CJK characters is no space
        ("section=一、公司简介", 3, "一段没有段落标签的文字"),
        ("section=二、风险", 1, "汇率风险。"),
        ("section=二、风险", 2, "原料价格风险。"),
    ]
    assert all(b.heading == b.locator.removeprefix("section=") for b in document.blocks)
    assert [c.locator for c in chunks_build(document.blocks)] == [
        "para=1",
        "section=一、公司简介,para=1-3",
        "section=二、风险,para=1-2",
    ]
    assert document.tables == [] and document.pages == 0


def test_script_style_head_and_comments_are_not_read() -> None:
    document = extract("report.htm", REPORT.encode())
    text = " ".join(b.text for b in document.blocks)
    for hidden in ("脚本", "样式", "color", "注释", "utf-8"):
        assert hidden not in text


def test_the_title_falls_back_to_the_first_h1_then_the_file_name() -> None:
    headed = extract("a.html", html("<h1>年度报告</h1><h2>一、概况</h2><p>正文。</p>"))
    assert headed.title == "年度报告" and [b.locator for b in headed.blocks] == ["section=一、概况"]
    plain = extract("annual_2019.html", html("<p>正文。</p>"))
    assert plain.title == "annual_2019"


def test_a_converted_reports_bare_h_is_a_heading_unless_it_reads_as_a_sentence() -> None:
    """Converters of filed reports write `<h>` for any bold line: a sentence in one is a paragraph."""
    body = (
        "<h>六、主要会计数据和财务指标</h><br/>"
        "<h>公司董事会保证年度报告内容的真实、准确、完整。</h><br/>"
        "<p>公司是否需追溯调整或重述以前年度会计数据</p>"
        "<h>（1）执行新金融工具准则的主要影响如下：</h>"
    )
    document = extract("report.html", html(body))
    assert [(b.locator, b.para, b.text) for b in document.blocks] == [
        ("section=六、主要会计数据和财务指标", 1, "公司董事会保证年度报告内容的真实、准确、完整。"),
        ("section=六、主要会计数据和财务指标", 2, "公司是否需追溯调整或重述以前年度会计数据"),
        ("section=六、主要会计数据和财务指标", 3, "（1）执行新金融工具准则的主要影响如下："),
    ]


# -- tables ----------------------------------------------------------------------------------------

SPANNED = """
<h2>六、主要会计数据</h2>
<p>单位：元&nbsp; 币种：人民币</p>
<table border="1">
  <tr><th rowspan="2">项目</th><th colspan="2">2025年</th><th>2024年</th></tr>
  <tr><th>上半年</th><th>下半年</th><th>全年</th></tr>
  <tr><td>营业收入&nbsp;</td><td>1,000.5</td><td>2,000</td><td>2,900</td></tr>
  <tr><td>归属于上市公司股东的扣除非经
常性损益的净利润（元）</td><td colspan="2">30</td><td rowspan="5">不适用</td></tr>
  <tr><td>研发费用<br>其中：人工</td><td>1 &amp; 2</td><td></td></tr>
</table>
"""


def test_a_table_is_a_grid_with_spans_expanded_text_repeated_and_values_kept_once() -> None:
    (table,) = extract("report.html", html(SPANNED)).tables
    assert table.rows == [
        ["项目", "2025年", "2025年", "2024年"],
        ["项目", "上半年", "下半年", "全年"],
        ["营业收入", "1,000.5", "2,000", "2,900"],
        ["归属于上市公司股东的扣除非经常性损益的净利润（元）", "30", "", "不适用"],
        ["研发费用 其中：人工", "1 & 2", "", "不适用"],  # `<br>` in a cell is a space; a rowspan stops at the last row
    ]
    assert table.locator_prefix == "table=1" and table.cell_locator(2, 1) == "table=1,row=营业收入,col=2025年"
    assert (table.heading, table.lead) == ("六、主要会计数据", "单位：元 币种：人民币")


def test_a_tables_title_lead_and_heading_are_read_as_in_word() -> None:
    body = (
        "<h2>一、概况</h2><p>ACME东南亚 主要财务数据（人民币百万元）</p>"
        "<table><tr><td>项目</td><td>FY2025</td></tr><tr><td>净利润</td><td>(1,402.6)</td></tr></table>"
        "<table><tr><td>项目</td><td>FY2024</td></tr><tr><td>净利润</td><td>1</td></tr></table>"
        "<h2>二、分部</h2>"
        "<table><caption>分部收入</caption><tr><td>项目</td><td>FY2025</td></tr></table>"
        "<p>下表列示了本集团在过去两个财政年度末的递延费用明细，金额单位为千元，具体如下。</p>"
        "<table><tr><td>项目</td><td>FY2025</td></tr></table>"
    )
    first, stacked, captioned, long_lead = extract("plan.html", html(body)).tables
    assert (first.title, first.lead, first.heading) == (
        "ACME东南亚 主要财务数据（人民币百万元）",
        "ACME东南亚 主要财务数据（人民币百万元）",
        "一、概况",
    )
    assert (stacked.title, stacked.lead, stacked.heading) == ("", "", "一、概况")  # right after a table
    assert (captioned.title, captioned.lead, captioned.heading) == ("分部收入", "", "二、分部")
    assert long_lead.title == "" and long_lead.lead.startswith("下表列示了")  # a sentence is no caption
    assert [t.locator_prefix for t in (first, stacked, captioned, long_lead)] == [f"table={n}" for n in range(1, 5)]
    facts = facts_from_table(first, glossary=demo_glossary(), document_name="plan.html", sensitivity="INTERNAL")
    assert [(f.entity, f.metric, f.period_label, str(f.value), f.unit, f.locator) for f in facts] == [
        ("ACME_SEA", "NET_PROFIT", "FY2025", "-1402.6", "CNY_M", "table=1,row=净利润,col=FY2025")
    ]


def test_a_table_in_a_cell_is_a_table_of_its_own_and_empty_tables_are_dropped() -> None:
    body = (
        "<table><tr><td>外层<table><tr><td>内层</td><td>1</td></tr></table></td><td>2</td></tr></table>"
        "<table><tr><td>&nbsp;</td></tr></table>"
    )
    outer, inner = extract("nested.html", html(body)).tables
    assert (outer.locator_prefix, outer.rows) == ("table=1", [["外层", "2"]])
    assert (inner.locator_prefix, inner.rows) == ("table=2", [["内层", "1"]])


def test_unclosed_tags_are_recovered() -> None:
    document = extract("loose.html", b"<p>Revenue <b>grew<p>Costs fell<table><tr><td>A<td>1<tr><td>B<td>2")
    assert [b.text for b in document.blocks] == ["Revenue grew", "Costs fell"]
    assert document.tables[0].rows == [["A", "1"], ["B", "2"]]
    stray = extract("stray.html", b"<table><tr><td>A</td><td>1</td></tr><td>B</td><td>2</td></table>")
    assert stray.tables[0].rows == [["A", "1"], ["B", "2"]]  # a cell after `</tr>` opens a row


def test_spans_that_would_blow_up_the_grid_are_refused() -> None:
    row = '<tr><td colspan="1000">1</td></tr>'
    with pytest.raises(ExtractionError) as caught:
        extract("wide.html", html("<table>" + row * 3000 + "</table>"))
    assert caught.value.code == "too_large"


# -- encodings -------------------------------------------------------------------------------------

GBK_PAGE = "<html><head>{meta}</head><body><h2>一、概况</h2><p>单位：元 币种：人民币</p><p>{word}</p></body></html>"


@pytest.mark.parametrize(
    "meta",
    [
        '<meta charset="gbk">',
        '<meta http-equiv="Content-Type" content="text/html; charset=gb2312">',
        "",  # no declaration: not UTF-8, so GB18030
    ],
)
def test_gbk_encoded_files_are_decoded(meta: str) -> None:
    data = GBK_PAGE.format(meta=meta, word="浙江海翔药业股份有限公司").encode("gbk")
    document = extract("report.html", data)
    assert [b.text for b in document.blocks] == ["单位：元 币种：人民币", "浙江海翔药业股份有限公司"]


def test_a_byte_order_mark_and_a_gb18030_only_character_are_read() -> None:
    bom = extract("bom.html", "\ufeff<p>正文</p>".encode())
    assert [b.text for b in bom.blocks] == ["正文"]
    rare = extract("rare.html", GBK_PAGE.format(meta='<meta charset="GB18030">', word="𠀀字").encode("gb18030"))
    assert rare.blocks[-1].text == "𠀀字"
    utf16 = extract("utf16.html", "<p>正文</p>".encode("utf-16"))
    assert [b.text for b in utf16.blocks] == ["正文"]


# -- refusals --------------------------------------------------------------------------------------


def refusal(name: str, data: bytes) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract(name, data)
    message = caught.value.message
    assert message.startswith(name + ":") and "Traceback" not in message and "\n" not in message
    return caught.value


def test_files_that_are_not_html_are_refused() -> None:
    pdf = refusal("really_pdf.html", pdf_bytes([[("p", "正文")]]))
    assert pdf.code == "mislabelled" and "PDF" in pdf.message
    assert refusal("really_xlsx.htm", xlsx_bytes(lambda w: w.create_sheet("S"))).code == "mislabelled"
    assert refusal("image.html", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))).code == "mislabelled"
    plain = refusal("notes.html", "只是一段文字，没有任何标签。\n第二行。\n".encode())
    assert plain.code == "mislabelled" and "HTML" in plain.message
    undecodable = refusal("latin.html", b"<p>caf\xe9 \xff\xfe</p>")
    assert undecodable.code == "corrupt" and "GB18030" in undecodable.message


def test_empty_html_is_refused() -> None:
    assert refusal("empty.html", b"").code == "empty"
    assert refusal("blank.htm", b" \n ").code == "empty"
    assert refusal(
        "shell.html", b"<html><head><title>t</title><script>x()</script></head><body></body></html>"
    ).code == ("empty")
