"""A document's own context: its issuer, report type and period,
read where statutory reports and filings print them, never from a name mentioned in passing.

Each test builds a small `ExtractedDocument` in the layout a class of reports prints; the last one
reads the real Sifang 2019 annual report from the shared bench (skipped when absent)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, glossary_build
from core.model.period import Period
from ingestion.context import DocumentContext, document_context
from ingestion.ir import Block, ExtractedDocument, Table
from tests.fakes import demo_glossary

REPORTS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "reports"


def _glossary() -> GlossarySnapshot:
    entities = [
        EntityInfo("SH603339", "四方科技", "peer"),
        EntityInfo("SZ002099", "海翔药业", "peer"),
        EntityInfo("SIFANG_TANK", "四方罐储", "subsidiary", parent="SH603339"),
        EntityInfo("ACME_GROUP", "ACME集团", "home"),
        EntityInfo("APPLE", "Apple", "peer", year_end_month=9),
        EntityInfo("MSFT", "Microsoft", "peer", year_end_month=6),
    ]
    aliases = [
        AliasRecord("entity", "四方科技集团股份有限公司", "SH603339"),
        AliasRecord("entity", "浙江海翔药业股份有限公司", "SZ002099"),
        AliasRecord("entity", "南通四方罐式储运设备制造有限公司", "SIFANG_TANK"),
        AliasRecord("entity", "集团", "ACME_GROUP"),
        AliasRecord("entity", "Apple Inc.", "APPLE"),
        AliasRecord("entity", "Microsoft Corporation", "MSFT"),
    ]
    return glossary_build(entities=entities, metrics=[], channels=[], units=[], aliases=aliases)


GLOSSARY = _glossary()


def document(
    *pages: list[str], tables: Sequence[Table] = (), name: str = "report.pdf", title: str = ""
) -> ExtractedDocument:
    """A paginated document: each argument is one page's lines, numbered as the PDF reader does."""
    blocks = [
        Block(line, f"page={number}", para)
        for number, lines in enumerate(pages, start=1)
        for para, line in enumerate(lines, start=1)
    ]
    return ExtractedDocument(name, "application/pdf", title or Path(name).stem, list(tables), blocks, len(pages))


def read(doc: ExtractedDocument, glossary: GlossarySnapshot = GLOSSARY) -> DocumentContext:
    return document_context(doc, glossary)


def summary(context: DocumentContext) -> tuple[str | None, str | None, str | None]:
    return context.issuer, context.report_type, context.period.label if context.period else None


BODY = [
    "报告期内，公司向浙江海翔药业股份有限公司销售冷冻设备，海翔药业为公司前五名客户之一。",
    "南通四方罐式储运设备制造有限公司为公司全资子公司。",
]


# -- Chinese statutory reports ---------------------------------------------------------------------
def test_the_cover_names_the_issuer_the_report_and_its_year() -> None:
    doc = document(["四方科技集团股份有限公司", "2019年年度报告"], ["2019年年度报告", *BODY, *BODY])
    context = read(doc)
    assert summary(context) == ("SH603339", "annual", "FY2019")
    assert context.period == Period("FY", "2019")
    assert "page=1" in context.evidence and "SH603339" in context.evidence


@pytest.mark.parametrize(
    ("cover", "report_type", "period"),
    [
        ("2019年半年度报告", "half_year", "2019H1"),
        ("2019 年 半年度报告摘要", "half_year", "2019H1"),
        ("2019年第一季度报告", "quarterly", "2019Q1"),
        ("2019年第三季度报告正文", "quarterly", "2019Q3"),
        ("2019年三季度报告", "quarterly", "2019Q3"),
        ("2019年度报告", "annual", "FY2019"),
        ("四方科技集团股份有限公司2020年年度报告摘要", "annual", "FY2020"),
        ("四方科技 2019H1 中期报告", "half_year", "2019H1"),
        ("四方科技 FY2019 年报", "annual", "FY2019"),
    ],
)
def test_every_statutory_report_title(cover: str, report_type: str, period: str) -> None:
    doc = document(["公司代码：603339 公司简称：四方科技", cover], BODY)
    assert summary(read(doc)) == ("SH603339", report_type, period)
    assert summary(read(document([cover], BODY)))[1:] == (report_type, period)


def test_a_report_title_in_a_sentence_is_no_cover() -> None:
    """An annual report refers to the half-year report it published; its own title is the cover's."""
    doc = document(["2019年年度报告"], ["具体内容详见公司于2019年8月披露的2019年半年度报告。", "2019年半年度报告"])
    assert summary(read(doc))[1:] == ("annual", "FY2019")


def test_the_running_header_outweighs_a_list_of_other_reports() -> None:
    """Unpaginated text with no cover region to speak of: the title repeated on every page wins."""
    pages = [["2019年第三季度报告", f"第{n}页正文。"] for n in range(1, 8)]
    pages[4].append("2019年半年度报告")
    blocks = [Block(line, "", None) for lines in pages for line in lines]
    doc = ExtractedDocument("q3.docx", "application/docx", "", [], [Block("目录", "", None)] * 40 + blocks, 0)
    assert summary(read(doc))[1:] == ("quarterly", "2019Q3")


def test_the_company_profile_table_names_the_issuer() -> None:
    profile = Table(
        "page=4,table=2",
        "一、 公司信息",
        [["公司的中文名称", "四方科技集团股份有限公司"], ["公司的中文简称", "四方科技"], ["公司的法定代表人", "黄杰"]],
    )
    shares = Table(
        "page=5,table=2",
        "五、 公司股票简况",
        [
            ["公司股票简况", "", "", ""],
            ["股票种类", "股票上市交易所", "股票简称", "股票代码"],
            ["A股", "上海证券交易所", "四方科技", "603339"],
        ],
    )
    doc = document(["2019年年度报告"], BODY, BODY, tables=[profile, shares])
    context = read(doc)
    assert summary(context) == ("SH603339", "annual", "FY2019")
    assert "公司的中文名称" in context.evidence and "page=4,table=2" in context.evidence


def test_the_preparer_line_above_a_statement_names_the_issuer() -> None:
    doc = document(["2019年半年度报告"], ["合并资产负债表", "编制单位：四方科技集团股份有限公司 单位：元 币种：人民币"])
    assert summary(read(doc)) == ("SH603339", "half_year", "2019H1")


def test_a_stock_code_names_the_entity_whose_code_it_qualifies() -> None:
    """`SH603339` is the glossary's code of the company whose stock code `603339` the cover prints."""
    doc = document(["证券代码：603339", "2019年第一季度报告"], BODY)
    assert read(doc).issuer == "SH603339"


def test_a_printed_code_is_read_whole() -> None:
    """`ACME_GROUP_HK` is no `ACME` (an alias of the home company) followed by something else."""
    glossary = glossary_build(
        entities=[*GLOSSARY.entities.values(), EntityInfo("ACME_GROUP_HK", "ACME香港", "subsidiary")],
        metrics=[],
        channels=[],
        units=[],
        aliases=[*GLOSSARY.aliases, AliasRecord("entity", "ACME", "ACME_GROUP")],
    )
    assert read(document(["公司代码：ACME_GROUP_HK", "2019年年度报告"]), glossary).issuer == "ACME_GROUP_HK"


def test_names_mentioned_in_passing_are_no_issuer() -> None:
    """Customers and subsidiaries are named far more often than the issuer, but not where an
    issuer is printed; a subsidiary table's `公司名称` column or `子公司名称` is no profile."""
    subsidiaries = Table(
        "page=9,table=1",
        "主要控股参股公司分析",
        [["公司名称", "业务性质", "注册资本"], ["南通四方罐式储运设备制造有限公司", "制造", "5000"]],
    )
    owned = Table("page=9,table=2", "", [["子公司名称", "南通四方罐式储运设备制造有限公司"]])
    pages = [["2019年年度报告"], *[BODY] * 6, ["编制单位：四方科技集团股份有限公司"]]
    doc = document(*pages, tables=[subsidiaries, owned])
    assert read(doc).issuer == "SH603339"
    assert read(document(["2019年年度报告"], *[BODY] * 6)).issuer is None


def test_a_generic_word_inside_an_unknown_name_is_no_issuer() -> None:
    """`集团` is an alias of the home company, but `海天集团股份有限公司` is somebody else."""
    doc = document(["海天集团股份有限公司", "2019年年度报告"], ["编制单位：海天集团股份有限公司"])
    context = read(doc)
    assert context.issuer is None
    assert summary(context)[1:] == ("annual", "FY2019")


def test_the_most_frequent_authoritative_name_wins() -> None:
    """A report that prints another company's name once on its cover (a sponsor, a parent) and
    its own at every statement."""
    statements = [[f"编制单位：四方科技集团股份有限公司 第{n}表"] for n in range(3)]
    doc = document(["浙江海翔药业股份有限公司", "2019年年度报告"], *statements)
    assert read(doc).issuer == "SH603339"


# -- English filings -------------------------------------------------------------------------------
def test_a_form_10k_cover() -> None:
    doc = document(
        [
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "FORM 10-K",
            "☒ ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            "For the fiscal year ended September 28, 2019",
            "☐ TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            "Apple Inc.",
            "(Exact name of Registrant as specified in its charter)",
        ],
        ["Net sales for the year ended September 29, 2018 were higher than in 2017. Microsoft is a competitor."],
    )
    context = read(doc)
    assert summary(context) == ("APPLE", "annual", "FY2019")
    assert "registrant" in context.evidence.lower()


def test_a_form_10q_cover_takes_the_fiscal_quarter_of_its_company() -> None:
    """Microsoft's fiscal year ends in June: the quarter ended December 31, 2019 is its 2020Q2."""
    doc = document(
        [
            "FORM 10-Q",
            "☒ QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            "For the Quarterly Period Ended December 31, 2019",
            "MICROSOFT CORPORATION",
            "(Exact name of registrant as specified in its charter)",
        ]
    )
    assert summary(read(doc)) == ("MSFT", "quarterly", "2020Q2")


@pytest.mark.parametrize(
    ("cover", "report_type", "period"),
    [
        ("Apple Inc. Annual Report 2019", "annual", "FY2019"),
        ("2019 Annual Report", "annual", "FY2019"),
        ("Interim Report 2019", "half_year", "2019H1"),
        ("for the six months ended June 30, 2019", "half_year", "2019H1"),
    ],
)
def test_english_covers(cover: str, report_type: str, period: str) -> None:
    assert summary(read(document([cover], ["Revenue grew."])))[1:] == (report_type, period)


def test_a_prior_year_in_the_body_does_not_move_the_period() -> None:
    pages = [["Annual Report 2019"], ["Overview."], ["More."], ["for the fiscal year ended December 31, 2018"] * 5]
    assert read(document(*pages)).period == Period("FY", "2019")


# -- the file name, last -----------------------------------------------------------------------------
def test_the_file_name_is_the_last_resort() -> None:
    doc = document(["经营情况讨论与分析", "报告期内收入增长。"], name="四方科技_2019年年度报告.pdf")
    context = read(doc)
    assert summary(context) == ("SH603339", "annual", "FY2019")
    assert "file name" in context.evidence


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sifang_2019_annual_report.pdf", (None, "annual", "FY2019")),
        ("Apple_10-Q_2019Q3.pdf", ("APPLE", "quarterly", "2019Q3")),
        ("海翔药业2019H1.pdf", ("SZ002099", None, "2019H1")),  # a period alone names no report
        ("notes.md", (None, None, None)),
    ],
)
def test_file_names(name: str, expected: tuple[str | None, str | None, str | None]) -> None:
    assert summary(read(document(["正文。"], name=name))) == expected


def test_the_document_itself_outranks_its_file_name() -> None:
    doc = document(["四方科技集团股份有限公司", "2019年年度报告"], name="海翔药业_2018年半年度报告.pdf")
    assert summary(read(doc)) == ("SH603339", "annual", "FY2019")


def test_nothing_read_is_none_and_says_so() -> None:
    context = read(document(["正文。"], name="x.md"))
    assert (context.issuer, context.report_type, context.period) == (None, None, None)
    assert context.evidence == ""


# -- the real report ---------------------------------------------------------------------------------
@pytest.mark.skipif(not (REPORTS / "sifang_2019_annual_report.pdf").exists(), reason="shared bench reports absent")
def test_the_sifang_2019_annual_report() -> None:
    from ingestion import extract

    path = REPORTS / "sifang_2019_annual_report.pdf"
    doc = extract(path.name, path.read_bytes())
    context = document_context(doc, demo_glossary(REPORTS / "glossary.csv", with_home=False))
    assert summary(context) == ("SH603339", "annual", "FY2019")
    assert "page=1" in context.evidence
