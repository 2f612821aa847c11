"""Tables → fact candidates: layouts, values, units, entities, channels and the review queue."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.glossary import GlossarySnapshot
from ingestion.ir import Table, is_cell_locator
from ingestion.tables import FactCandidate, facts_from_document, facts_from_table
from ingestion.values import value_parse
from tests.fakes import demo_glossary


@pytest.fixture(scope="module")
def glossary() -> GlossarySnapshot:
    return demo_glossary()


def read(table: Table, glossary: GlossarySnapshot, **kwargs: object) -> list[FactCandidate]:
    options: dict[str, object] = {"document_name": "doc.pptx", "sensitivity": "INTERNAL", **kwargs}
    return facts_from_table(table, glossary=glossary, **options)  # type: ignore[arg-type]


def facts(candidates: list[FactCandidate]) -> set[tuple[str, ...]]:
    return {(f.entity, f.metric, f.period_label, f.channel, str(f.value), f.unit, f.status) for f in candidates}


def test_metric_rows_by_period_columns(glossary: GlossarySnapshot) -> None:
    table = Table(
        "slide=2,table=1",
        "ACME香港 — 主要财务指标（人民币百万元）",
        [
            ["项目", "FY2024", "FY2025", "同比"],
            ["营业收入", "25,730.1", "24,015.8", "-6.7%"],
            ["毛利率", "33.8%", "33.1%", "-0.7"],
            ["营业利润", "2,310.0", "1,932.4", ""],
        ],
    )
    got = read(table, glossary)
    assert facts(got) == {
        ("ACME_HK", "REVENUE", "FY2024", "TOTAL", "25730.1", "CNY_M", "approved"),
        ("ACME_HK", "REVENUE", "FY2025", "TOTAL", "24015.8", "CNY_M", "approved"),
        ("ACME_HK", "GROSS_MARGIN", "FY2024", "TOTAL", "33.8", "PCT", "approved"),
        ("ACME_HK", "GROSS_MARGIN", "FY2025", "TOTAL", "33.1", "PCT", "approved"),
        ("ACME_HK", "OPERATING_PROFIT", "FY2024", "TOTAL", "2310.0", "CNY_M", "approved"),
        ("ACME_HK", "OPERATING_PROFIT", "FY2025", "TOTAL", "1932.4", "CNY_M", "approved"),
    }
    revenue_2025 = next(f for f in got if f.metric == "REVENUE" and f.period == "2025")
    assert revenue_2025.locator == "slide=2,table=1,row=营业收入,col=FY2025"
    assert revenue_2025.period_type == "FY" and revenue_2025.source_doc == "doc.pptx"
    assert all(is_cell_locator(f.locator) for f in got)


def test_transposed_period_rows_by_metric_columns(glossary: GlossarySnapshot) -> None:
    table = Table(
        "sheet=季度KPI",
        "ACME集团 季度经营指标",
        [
            ["期间", "营业收入（百万元）", "毛利率（%）"],
            ["2025Q1", "29,880.1", "30.1"],
            ["2025年第二季度", "31,324.7", "29.5"],
            ["2025Q3", "32118.5", "—"],
        ],
        scheme="a1",
        origin=(2, 1),
        sheet="季度KPI",
    )
    got = read(table, glossary)
    assert facts(got) == {
        ("ACME_GROUP", "REVENUE", "2025Q1", "TOTAL", "29880.1", "CNY_M", "approved"),
        ("ACME_GROUP", "REVENUE", "2025Q2", "TOTAL", "31324.7", "CNY_M", "approved"),
        ("ACME_GROUP", "REVENUE", "2025Q3", "TOTAL", "32118.5", "CNY_M", "approved"),
        ("ACME_GROUP", "GROSS_MARGIN", "2025Q1", "TOTAL", "30.1", "PCT", "approved"),
        ("ACME_GROUP", "GROSS_MARGIN", "2025Q2", "TOTAL", "29.5", "PCT", "approved"),
    }
    q3 = next(f for f in got if f.period == "2025Q3")
    assert q3.locator == "sheet=季度KPI!B5"  # rows[3][1], the grid starting at A2


def test_transposed_labels_locator_names_period_row_and_metric_column(glossary: GlossarySnapshot) -> None:
    table = Table("page=1,table=1", "ACME集团", [["期间", "营业收入"], ["2025H1", "61,204.8"]])
    (fact,) = read(table, glossary)
    assert fact.locator == "page=1,table=1,row=2025H1,col=营业收入"
    assert (fact.period_type, fact.period) == ("HY", "2025H1")


def test_negatives_thousands_and_percentages(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1",
        "ACME东南亚",
        [
            ["项目", "FY2024", "FY2025"],
            ["营业利润", "(310.2)", "-1,085.2"],
            ["净利润", "（1,402.6）", "−12"],
            ["毛利率", "16.9%", "18.2 %"],
            ["净资产收益率", "n/a", "-"],
        ],
    )
    got = {(f.metric, f.period): (str(f.value), f.unit) for f in read(table, glossary)}
    assert got == {
        ("OPERATING_PROFIT", "2024"): ("-310.2", "CNY_M"),
        ("OPERATING_PROFIT", "2025"): ("-1085.2", "CNY_M"),
        ("NET_PROFIT", "2024"): ("-1402.6", "CNY_M"),
        ("NET_PROFIT", "2025"): ("-12", "CNY_M"),
        ("GROSS_MARGIN", "2024"): ("16.9", "PCT"),
        ("GROSS_MARGIN", "2025"): ("18.2", "PCT"),
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1,234.5", ("1234.5", False)),
        ("(1,234)", ("-1234", False)),
        ("29.7%", ("29.7", True)),
        ("96120.3", ("96120.3", False)),
        ("78,915.0", ("78915.0", False)),
        ("¥5,104", ("5104", False)),
        ("—", None),
        ("n/a", None),
        ("", None),
        ("1e5", None),
        ("NaN", None),
        ("Infinity", None),
        ("12 亿", None),
        ("(1,234", None),
    ],
)
def test_value_parse_is_exact(raw: str, expected: tuple[str, bool] | None) -> None:
    parsed = value_parse(raw)
    assert (None if parsed is None else (str(parsed[0]), parsed[1])) == expected


def test_units_in_headers_titles_and_labels(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1",
        "ACME集团 主要指标（单位：人民币亿元）",
        [
            ["项目", "FY2025"],
            ["营业收入", "1,284.506"],  # 亿元 → 百万元, exactly
            ["毛利率", "29.7%"],  # the title's 亿元 does not apply to a ratio
            ["新开门店数（家）", "412"],
            ["活跃会员数（万人）", "5,832"],
            ["资本开支（百万元）", "6,420.0"],  # the label's own unit wins over the title's
        ],
    )
    got = {f.metric: (str(f.value), f.unit, f.status) for f in read(table, glossary)}
    assert got == {
        "REVENUE": ("128450.600", "CNY_M", "approved"),
        "GROSS_MARGIN": ("29.7", "PCT", "approved"),
        "NEW_STORES": ("412", "COUNT", "approved"),
        "ACTIVE_MEMBERS": ("5832", "TEN_THOUSAND_PERSONS", "approved"),
        "CAPEX": ("6420.0", "CNY_M", "approved"),
    }


def test_unit_in_column_header_and_unit_column(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1",
        "ACME香港",
        [
            ["项目", "单位", "FY2025（万元）"],
            ["营业收入", "", "2,401,580"],
            ["营业利润", "百万元", "1,932.4"],
        ],
    )
    got = {f.metric: (str(f.value), f.unit) for f in read(table, glossary)}
    assert got == {"REVENUE": ("24015.80", "CNY_M"), "OPERATING_PROFIT": ("1932.4", "CNY_M")}


def test_a_unit_that_contradicts_the_metric_is_pending(glossary: GlossarySnapshot) -> None:
    table = Table("table=1", "ACME集团", [["项目", "FY2025"], ["营业收入", "8.5%"]])
    (fact,) = read(table, glossary)
    assert fact.status == "pending" and "PCT" in fact.reason and fact.unit == "PCT"


def test_unknown_row_label_is_pending_with_a_suggested_alias(glossary: GlossarySnapshot) -> None:
    table = Table(
        "slide=3,table=1",
        "ACME集团（人民币百万元）",
        [
            ["项目", "FY2025"],
            ["营业总收入（百万元）", "128,450.6"],
            ["经营活动现金流量净额", "9,876.5"],
            ["营业收入", "128,450.6"],
        ],
    )
    got = {f.raw_label: f for f in read(table, glossary)}
    close = got["营业总收入（百万元）"]
    assert close.status == "pending"
    assert close.suggested_alias == "营业总收入"
    assert close.metric == ""  # 营业总收入 is another concept than 营业收入: no suggestion
    assert close.unit == "CNY_M" and close.value == Decimal("128450.6")
    assert close.locator == "slide=3,table=1,row=营业总收入（百万元）,col=FY2025"
    far = got["经营活动现金流量净额"]
    assert far.status == "pending" and far.suggested_alias == "经营活动现金流量净额" and far.metric == ""
    assert got["营业收入"].status == "approved" and got["营业收入"].suggested_alias == ""


def test_a_known_metric_with_extra_words_is_not_approved(glossary: GlossarySnapshot) -> None:
    table = Table("table=1", "ACME集团", [["项目", "FY2025"], ["营业收入同比增长", "8.5"]])
    (fact,) = read(table, glossary)
    assert fact.status == "pending" and fact.suggested_alias == "营业收入同比增长"
    assert fact.metric == ""  # a growth is another concept than the revenue: no metric is suggested


def test_multi_row_merged_headers(glossary: GlossarySnapshot) -> None:
    # `2025` merged over H1 | H2 (a merged cell reads only in its first column outside Excel).
    table = Table(
        "page=2,table=1",
        "ACME中国内地（百万元）",
        [
            ["", "2025", "", "2024", ""],
            ["项目", "H1", "H2", "H1", "H2"],
            ["营业收入", "45,210.6", "50,909.7", "41,000.0", "46,402.6"],
        ],
    )
    got = {(f.period_label, str(f.value)) for f in read(table, glossary)}
    assert got == {("2025H1", "45210.6"), ("2025H2", "50909.7"), ("2024H1", "41000.0"), ("2024H2", "46402.6")}
    first = next(f for f in read(table, glossary) if f.period == "2025H1")
    assert first.locator == "page=2,table=1,row=营业收入,col=2025 H1"


def test_period_over_channel_sub_headers(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1",
        "ACME中国内地 营业收入",
        [
            ["", "FY2025", "FY2025", "FY2025"],
            ["", "线上", "门店", "经销"],
            ["营业收入", "41,230.5", "38,904.6", "15,985.2"],
        ],
    )
    got = {(f.channel, str(f.value)) for f in read(table, glossary)}
    assert got == {("ONLINE", "41230.5"), ("STORE", "38904.6"), ("DISTRIBUTOR", "15985.2")}


def test_channel_from_the_title_and_from_sub_rows(glossary: GlossarySnapshot) -> None:
    titled = Table("slide=6,table=1", "ACME中国内地 — 线上（百万元）", [["项目", "FY2025"], ["营业收入", "41,230.5"]])
    (fact,) = read(titled, glossary)
    assert (fact.entity, fact.channel, fact.status) == ("ACME_CN", "ONLINE", "approved")

    rows = Table(
        "sheet=ACME香港",
        "",
        [
            ["项目（百万元）", "FY2024"],
            ["营业收入", "25,730.1"],
            ["其中：线上", "5,230.0"],
            ["其中：门店", "20,500.1"],
            ["新开门店数", "12"],
        ],
        scheme="a1",
        sheet="ACME香港",
    )
    got = {(f.metric, f.channel, str(f.value)) for f in read(rows, glossary)}
    assert got == {
        ("REVENUE", "TOTAL", "25730.1"),
        ("REVENUE", "ONLINE", "5230.0"),
        ("REVENUE", "STORE", "20500.1"),
        ("NEW_STORES", "TOTAL", "12"),  # 门店 inside 新开门店数 is not a channel
    }


@pytest.mark.parametrize(
    ("title", "sheet", "rows", "default", "entity"),
    [
        ("ACME香港 主要指标（百万元）", "", [["项目", "FY2025"]], None, "ACME_HK"),
        ("主要指标（百万元）", "ACME东南亚", [["项目", "FY2025"]], None, "ACME_SEA"),
        ("主要指标（百万元）", "Sheet1", [["ACME中国内地", "FY2025"]], None, "ACME_CN"),
        ("主要指标（百万元）", "", [["项目", "FY2025"]], "ACME_GROUP", "ACME_GROUP"),
        ("Hong Kong key figures (RMB m)", "", [["Item", "FY2025"]], None, "ACME_HK"),
    ],
)
def test_entity_from_title_sheet_name_first_cell_or_default(
    glossary: GlossarySnapshot, title: str, sheet: str, rows: list[list[str]], default: str | None, entity: str
) -> None:
    table = Table("table=1", title, [*rows, ["营业收入", "1.0"]], sheet=sheet)
    (fact,) = read(table, glossary, default_entity=default)
    assert (fact.entity, fact.status) == (entity, "approved")


def test_no_entity_anywhere_is_pending(glossary: GlossarySnapshot) -> None:
    (fact,) = read(Table("table=1", "主要指标", [["项目", "FY2025"], ["营业收入", "1.0"]]), glossary)
    assert fact.status == "pending" and fact.entity == "" and "no entity" in fact.reason


def test_external_entity_is_pending(glossary: GlossarySnapshot) -> None:
    (fact,) = read(Table("table=1", "竞安 主要指标", [["项目", "FY2025"], ["营业收入", "1.0"]]), glossary)
    assert fact.status == "pending" and fact.entity == "EXT_JINGAN" and "external" in fact.reason


def test_segment_table_entity_rows_metric_from_title(glossary: GlossarySnapshot) -> None:
    table = Table(
        "page=1,table=1",
        "分部营业收入（人民币百万元）",
        [["分部", "2025H1"], ["ACME集团", "61,204.8"], ["ACME香港", "11,809.4"], ["竞安", "9,999.0"]],
    )
    got = {(f.entity, f.metric, str(f.value), f.status) for f in read(table, glossary)}
    assert got == {
        ("ACME_GROUP", "REVENUE", "61204.8", "approved"),
        ("ACME_HK", "REVENUE", "11809.4", "approved"),
        ("EXT_JINGAN", "REVENUE", "9999.0", "pending"),
    }


def test_columns_that_are_not_one_absolute_period_are_ignored(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1",
        "ACME集团（百万元）",
        [["项目", "FY2025", "H1", "FY2025 vs FY2024", "去年", "备注"], ["营业收入", "1.0", "2.0", "3.0", "4.0", "5.0"]],
    )
    assert facts(read(table, glossary)) == {("ACME_GROUP", "REVENUE", "FY2025", "TOTAL", "1.0", "CNY_M", "approved")}


def test_tables_without_a_period_axis_give_nothing(glossary: GlossarySnapshot) -> None:
    assert read(Table("table=1", "ACME集团", [["项目", "说明"], ["营业收入", "增长"]]), glossary) == []
    assert read(Table("table=1", "ACME集团", []), glossary) == []
    assert read(Table("table=1", "ACME集团", [["营业收入", "1.0"]]), glossary) == []


def test_a_title_row_inside_the_table(glossary: GlossarySnapshot) -> None:
    table = Table(
        "slide=1,table=1",
        "",
        [["ACME香港 财务摘要（百万元）"] * 2, ["项目", "FY2025"], ["营业收入", "24,015.8"]],
    )
    (fact,) = read(table, glossary)
    assert (fact.entity, fact.metric, str(fact.value), fact.status) == ("ACME_HK", "REVENUE", "24015.8", "approved")
    assert fact.locator == "slide=1,table=1,row=营业收入,col=FY2025"


def test_sensitivity_and_document_are_carried(glossary: GlossarySnapshot) -> None:
    table = Table("table=1", "ACME东南亚", [["项目", "FY2025"], ["净利润", "(1,402.6)"]])
    (fact,) = read(table, glossary, document_name="东南亚扩张计划_内部.docx", sensitivity="RESTRICTED")
    assert (fact.source_doc, fact.sensitivity, str(fact.value)) == ("东南亚扩张计划_内部.docx", "RESTRICTED", "-1402.6")


def test_document_level_conflicts_become_pending(glossary: GlossarySnapshot) -> None:
    from ingestion.ir import ExtractedDocument

    same = Table("table=1", "ACME香港（百万元）", [["项目", "FY2025"], ["营业收入", "24,015.8"]])
    repeat = Table("table=2", "ACME香港（百万元）", [["项目", "FY2025"], ["营收", "24015.8"]])
    other = Table("table=3", "ACME香港（百万元）", [["项目", "FY2025"], ["销售额", "99.0"]])
    document = ExtractedDocument("x.docx", "", "", [same, repeat], [], 0)
    (kept,) = facts_from_document(document, glossary=glossary, sensitivity="INTERNAL")
    assert kept.status == "approved" and kept.locator.startswith("table=1")
    conflicted = ExtractedDocument("x.docx", "", "", [same, repeat, other], [], 0)
    got = facts_from_document(conflicted, glossary=glossary, sensitivity="INTERNAL")
    assert {f.status for f in got} == {"pending"} and all("conflicting" in f.reason for f in got)


def test_a_text_row_under_the_header_does_not_spoil_it(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1",
        "ACME集团",
        [["项目", "FY2024", "FY2025"], ["备注", "经审计", "未经审计 见附注"], ["营业收入", "118,340.2", "128,450.6"]],
    )
    assert {f.period_label for f in read(table, glossary)} == {"FY2024", "FY2025"}


@pytest.mark.parametrize(
    ("header", "label"),
    [
        ("2025年1-6月", "2025H1"),
        ("2025年7-12月", "2025H2"),
        ("2025年7—9月", "2025Q3"),
        ("2025年1-12月", "FY2025"),
        ("1H2025", "2025H1"),
        ("2H25", "2025H2"),
        ("FY25", "FY2025"),
        ("2025财年", "FY2025"),
        ("2025年度（经审计）", "FY2025"),
    ],
)
def test_report_style_period_headers(glossary: GlossarySnapshot, header: str, label: str) -> None:
    (fact,) = read(Table("table=1", "ACME集团", [["项目", header], ["营业收入", "1.0"]]), glossary)
    assert fact.period_label == label


def test_forecast_and_month_columns_are_not_periods(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1", "ACME集团", [["项目", "FY2026E", "2025年1-9月", "FY2025"], ["营业收入", "9.0", "8.0", "1.0"]]
    )
    assert {f.period_label for f in read(table, glossary)} == {"FY2025"}


def test_a_serial_number_column_is_not_part_of_the_label(glossary: GlossarySnapshot) -> None:
    table = Table(
        "table=1", "ACME集团（百万元）", [["序号", "项目", "FY2025"], ["1", "营业收入", "1.0"], ["2", "净利润", "2.0"]]
    )
    assert {(f.metric, f.status) for f in read(table, glossary)} == {
        ("REVENUE", "approved"),
        ("NET_PROFIT", "approved"),
    }
