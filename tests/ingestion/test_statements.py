"""Chinese statutory statements as the standards lay them out: labels as printed,
consolidated and parent-company statements, equity changes, headers relative to the report,
balance-sheet dates and single-year tables. Each test is a layout every such report prints."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, MetricInfo, UnitInfo, glossary_build
from core.model.period import Period
from ingestion.ir import ExtractedDocument, Table
from ingestion.statements import CONSOLIDATED, PARENT, header_dated, label_as_printed, statement_of
from ingestion.tables import FactCandidate, document_facts, table_read
from ingestion.tables.concept import same_concept

FY2019 = Period("FY", "2019")
METRICS = {
    "REVENUE": "营业收入",
    "TOTAL_REVENUE": "营业总收入",
    "INVESTMENT_INCOME": "投资收益",
    "OPERATING_PROFIT": "营业利润",
    "NET_PROFIT": "净利润",
    "OTHER_INCOME": "其他收益",
    "CURRENT_ASSETS": "流动资产合计",
    "STAFF": "在职员工的数量合计",
    "EPS": "基本每股收益",
}
UNITS = {"REVENUE": "CNY", "STAFF": "PERSONS", "EPS": "CNY_PER_SHARE"}


def _glossary() -> GlossarySnapshot:
    return glossary_build(
        entities=[EntityInfo("CO", "示例科技", "peer")],
        metrics=[MetricInfo(code, name, UNITS.get(code, "CNY")) for code, name in METRICS.items()],
        channels=[],
        units=[
            UnitInfo("CNY", "元", "CNY"),
            UnitInfo("PERSONS", "人", "persons"),
            UnitInfo("CNY_PER_SHARE", "元/股", ""),
        ],
        aliases=[AliasRecord("entity", "示例科技", "CO"), *(AliasRecord("metric", n, c) for c, n in METRICS.items())],
    )


def read(rows: list[list[str]], *, caption: str = "", period: Period | None = FY2019) -> list[FactCandidate]:
    table = Table("page=1,table=1", "单位：元 币种：人民币", rows, lead="单位：元 币种：人民币", caption=caption)
    return table_read(
        table,
        glossary=_glossary(),
        document_name="r.pdf",
        sensitivity="INTERNAL",
        default_entity="CO",
        report_period=period,
    ).candidates


def approved(facts: list[FactCandidate]) -> set[tuple[str, str, Decimal]]:
    return {(f.metric, f.period_label, f.value) for f in facts if f.status == "approved"}


# -- labels as printed ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("printed", "label"),
    [
        ("一、营业总收入", "营业总收入"),
        ("三、营业利润（亏损以“－”号填列）", "营业利润"),
        ('投资收益（损失以"-"号填列）', "投资收益"),
        ("加：其他收益", "其他收益"),
        ("（一）持续经营净利润（净亏损以“－”号填列）", "持续经营净利润"),
        ("1.持续经营净利润", "持续经营净利润"),
        ("（1）重新计量设定受益计划变动额", "重新计量设定受益计划变动额"),
        ("①其他", "其他"),
        ("货币资金 附注七、1", "货币资金"),
        ("营业收入", "营业收入"),
        ("硕士及以上", "硕士以上"),
    ],
)
def test_a_label_is_read_as_the_item_it_names(printed: str, label: str) -> None:
    assert label_as_printed(printed) == label


def test_a_sign_note_never_flips_the_printed_value() -> None:
    facts = read([["项目", "2019年度"], ["投资收益（损失以“－”号填列）", "-12,558,289.50"]])
    assert approved(facts) == {("INVESTMENT_INCOME", "FY2019", Decimal("-12558289.50"))}


# -- which statement, whose ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("caption", "scope", "kind"),
    [
        ("合并利润表 2019年1—12月 单位：元", CONSOLIDATED, "利润表"),
        ("母公司资产负债表 2019年12月31日 编制单位：示例科技股份有限公司", PARENT, "资产负债表"),
        ("母公司现金流量表", PARENT, "现金流量表"),
        ("合并所有者权益变动表", CONSOLIDATED, "所有者权益变动表"),
        ("七、 近三年主要会计数据和财务指标", None, None),
    ],
)
def test_a_statement_says_what_it_is_and_whose(caption: str, scope: str | None, kind: str | None) -> None:
    found = statement_of(caption)
    assert (found.scope if found else None, found.kind if found else None) == (scope, kind)


def test_a_parent_company_statement_is_never_the_groups_figure() -> None:
    rows = [["项目", "2019年度"], ["一、营业收入", "421,378,931.67"]]
    facts = read(rows, caption="母公司利润表 2019年1—12月")
    assert approved(facts) == set()
    assert all(f.scope == PARENT and "parent-company statement" in f.reason for f in facts)


def test_the_consolidated_statement_rules_over_the_parents_and_a_notes_figure() -> None:
    group = Table(
        "page=63,table=2",
        "单位：元",
        [["项目", "2019年度"], ["其中：营业收入", "1,175,301,034.32"]],
        caption="合并利润表",
    )
    parent = Table(
        "page=65,table=2",
        "单位：元",
        [["项目", "2019年度"], ["一、营业收入", "421,378,931.67"]],
        caption="母公司利润表",
    )
    note = Table("page=130,table=1", "单位：元", [["项目", "本期发生额"], ["营业收入", "1,175,000,000.00"]])
    document = ExtractedDocument("r.pdf", "", "", [group, parent, note], [], 156)
    found = document_facts(
        document, glossary=_glossary(), sensitivity="INTERNAL", default_entity="CO", report_period=FY2019
    ).candidates
    assert approved(found) == {("REVENUE", "FY2019", Decimal("1175301034.32"))}
    (note_fact,) = [f for f in found if f.locator.startswith("page=130")]
    assert note_fact.status == "pending" and "differs from the consolidated statement" in note_fact.reason
    assert "page=63" in note_fact.reason


def test_two_figures_with_no_statement_to_rule_still_hold_each_other_pending() -> None:
    tables = [
        Table(f"page={n},table=1", "单位：元", [["项目", "2019年度"], ["营业收入", value]])
        for n, value in ((5, "100.00"), (9, "101.00"))
    ]
    document = ExtractedDocument("r.pdf", "", "", tables, [], 10)
    found = document_facts(document, glossary=_glossary(), sensitivity="INTERNAL", default_entity="CO").candidates
    assert approved(found) == set() and all("conflicting values in document" in f.reason for f in found)


def test_a_statement_of_changes_in_equity_yields_no_metric_rows() -> None:
    table = Table(
        "page=70,table=1", "", [["项目", "2019年度"], ["一、上年期末余额", "1.00"]], caption="合并所有者权益变动表"
    )
    result = table_read(table, glossary=_glossary(), document_name="r.pdf", sensitivity="INTERNAL")
    assert result.candidates == [] and "changes in equity" in result.problem


# -- headers relative to the report ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("header", "read_as"),
    [
        ("本期发生额", "2019年度"),
        ("上期发生额", "2018年度"),
        ("本期金额", "2019年度"),
        ("上年金额", "2018年度"),
        ("期末余额", "2019年度"),
        ("本年", "2019年度"),
        ("第一季度（1-3月份）", "2019年第1季度"),
        ("第四季度（10-12月份）", "2019年第4季度"),
        ("本期比上年同期增减(%)", "本期比上年同期增减(%)"),
    ],
)
def test_a_header_relative_to_the_report_is_its_period(header: str, read_as: str) -> None:
    assert header_dated(header, FY2019) == read_as


def test_an_opening_balance_is_left_unread_and_so_is_any_header_without_a_report_period() -> None:
    assert "2018" not in header_dated("期初余额", FY2019) and "2019" not in header_dated("期初余额", FY2019)
    assert header_dated("本期发生额", None) == "本期发生额"


def test_relative_and_dated_headers_read_the_statements_columns() -> None:
    income = read([["项目", "本期发生额", "上期发生额"], ["营业收入", "1,175.00", "1,230.00"]])
    assert approved(income) == {
        ("REVENUE", "FY2019", Decimal("1175.00")),
        ("REVENUE", "FY2018", Decimal("1230.00")),
    }
    balance = read([["项目", "附注", "2019年12月31日", "2018年12月31日"], ["流动资产合计", "", "1,639.41", "1,500.00"]])
    assert ("CURRENT_ASSETS", "FY2019", Decimal("1639.41")) in approved(balance)
    opening = read([["项目", "2019年1月1日"], ["流动资产合计", "1,500.00"]])
    assert approved(opening) == set()


def test_a_change_column_is_never_a_period() -> None:
    facts = read(
        [["主要会计数据", "2019年", "2018年", "本期比上年同期增减(%)"], ["营业收入", "100.00", "90.00", "11.11"]]
    )
    assert {f.period_label for f in facts} == {"FY2019", "FY2018"}


def test_a_single_year_table_takes_the_report_period() -> None:
    rows = [["母公司在职员工的数量", "652"], ["在职员工的数量合计", "1,406"], ["专业构成类别", "专业构成人数"]]
    assert ("STAFF", "FY2019", Decimal("1406")) in approved(read(rows))
    assert read(rows, period=None) == []


def test_a_per_share_label_reads_with_its_unit_set_aside() -> None:
    facts = read([["主要财务指标", "2019年"], ["基本每股收益（元／股）", "0.62"]])
    assert approved(facts) == {("EPS", "FY2019", Decimal("0.62"))}


def test_a_staff_category_stands_for_its_headcount_and_the_company_word_for_the_issuer() -> None:
    glossary = glossary_build(
        entities=[EntityInfo("CO", "示例科技", "peer")],
        metrics=[MetricInfo("MASTERS", "硕士人数", "PERSONS"), MetricInfo("RD_STAFF", "研发人员数量", "PERSONS")],
        channels=[],
        units=[UnitInfo("PERSONS", "人", "persons")],
        aliases=[AliasRecord("metric", "硕士人数", "MASTERS"), AliasRecord("metric", "研发人员数量", "RD_STAFF")],
    )
    table = Table(
        "page=52,table=1", "", [["教育程度类别", "数量（人）"], ["硕士", "14"], ["公司研发人员的数量", "172"]]
    )
    facts = table_read(
        table,
        glossary=glossary,
        document_name="r.pdf",
        sensitivity="INTERNAL",
        default_entity="CO",
        report_period=FY2019,
    ).candidates
    assert approved(facts) == {("MASTERS", "FY2019", Decimal("14")), ("RD_STAFF", "FY2019", Decimal("172"))}


@pytest.mark.parametrize(
    ("label", "name", "same"),
    [
        ("支付给职工及为职工支付的现金", "支付给职工以及为职工支付的现金", True),
        ("归属于母公司股东的净利润", "归属于母公司所有者的净利润", True),
        ("归属于上市公司股东的净资产", "归属于上市公司股东的净利润", False),
        ("扣除非经常性损益的净利润", "净利润", False),
        ("经营活动现金流入小计", "经营活动产生的现金流量净额", False),
        ("现金分红金额占合并报表中归属于上市公司普通股股东的净利润的比率", "净利润", False),
    ],
)
def test_an_alias_is_suggested_only_within_one_concept(label: str, name: str, same: bool) -> None:
    assert same_concept(label, name) is same


def test_a_label_of_another_concept_gets_no_suggested_metric() -> None:
    facts = read([["项目", "2019年度"], ["归属于上市公司股东的扣除非经常性损益的净利润", "129,188,735.59"]])
    assert [(f.status, f.metric) for f in facts] == [("pending", "")]


def test_a_relative_header_is_read_as_dated_but_quoted_as_printed() -> None:
    (fact,) = read([["项目", "本期发生额"], ["营业收入", "1,175.00"]])
    assert fact.period_label == "FY2019" and fact.locator.endswith("row=营业收入,col=本期发生额")


def test_a_statement_continued_without_its_title_keeps_it() -> None:
    from ingestion.pdf import _statements_carried

    header = ["项目", "2019年度", "2018年度"]
    first = Table("page=70,table=1", "", [header, ["一、上年期末余额", "1.00", "2.00"]], caption="合并所有者权益变动表")
    second = Table("page=71,table=2", "", [header, ["一、上年期末余额", "3.00", "4.00"]], caption="2019年年度报告")
    note = Table("page=75,table=1", "", [header, ["货币资金", "5.00", "6.00"]], caption="1、货币资金")
    carried = _statements_carried([first, second, note])
    assert [t.caption for t in carried] == ["合并所有者权益变动表", "合并所有者权益变动表", "1、货币资金"]
