"""Banks, insurers and securities firms print their statements as the financial-enterprise formats
lay them out (财会〔2018〕36号, with CSRC's special disclosure rules for listed banks and
insurers): the group's and the parent's figures side by side, `本集团` over two columns and `本行`
(`本公司`, `母公司`) over two, under one title that may name both (`合并及母公司资产负债表`).

- **Grids** (`Table`s as a converter returns them): the group's columns are the group's figures,
  of consolidated scope; the parent's wait for review as the parent's alone, never the group's
  figure, and hold none of the group's back. Columns that share a period under any other words
  still wait as a dimension the glossary does not name.
- **Text lines** (an HTML conversion that prints a statement as lines of aligned text, not a
  `<table>`): the same statements, read with their periods, their scale converted, the
  `本集团 | 本行` pair as above and the report's period from its title. The reader of such lines
  is being built (`ingestion/html.py`); these tests say what it must do.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, MetricInfo, UnitInfo, glossary_build
from core.model.period import Period
from ingestion import extract
from ingestion.context import document_context
from ingestion.ir import ExtractedDocument, Table
from ingestion.statements import CONSOLIDATED, PARENT
from ingestion.tables import FactCandidate, document_facts, table_read

FY2019, FY2018 = Period("FY", "2019"), Period("FY", "2018")
MILLION = Decimal(1_000_000)
METRICS = {
    # a bank's statements
    "NET_INTEREST_INCOME": "利息净收入",
    "NET_FEE_INCOME": "手续费及佣金净收入",
    "LOANS": "发放贷款和垫款",
    "DEPOSITS": "吸收存款",
    "CASH_CENTRAL_BANK": "现金及存放中央银行款项",
    "DEBT_INVESTMENTS": "债权投资",
    # an insurer's
    "EARNED_PREMIUMS": "已赚保费",
    "GROSS_PREMIUMS": "保险业务收入",
    "CLAIMS": "赔付支出",
    "INVESTMENT_INCOME": "投资收益",
    # both
    "REVENUE": "营业收入",
    "NET_PROFIT": "净利润",
}


def _glossary(*extra: tuple[EntityInfo, str]) -> GlossarySnapshot:
    entities = [
        (EntityInfo("BANK", "中国示例银行", "peer"), "中国示例银行股份有限公司"),
        (EntityInfo("INSURER", "示例人寿", "peer"), "示例人寿保险股份有限公司"),
        *extra,
    ]
    return glossary_build(
        entities=[info for info, _ in entities],
        metrics=[MetricInfo(code, name, "CNY") for code, name in METRICS.items()],
        channels=[],
        units=[UnitInfo("CNY", "元", "CNY")],
        aliases=[
            *(AliasRecord("entity", name, info.code) for info, name in entities),
            *(AliasRecord("metric", name, code) for code, name in METRICS.items()),
        ],
    )


GLOSSARY = _glossary()
Fact = tuple[str, str, Decimal]


def facts_of(found: list[FactCandidate], *, status: str = "approved") -> set[Fact]:
    return {(f.metric, f.period_label, f.value) for f in found if f.status == status}


def millions(*rows: tuple[str, str, int]) -> set[Fact]:
    return {(metric, period, Decimal(value) * MILLION) for metric, period, value in rows}


# -- a bank's statements as grids ------------------------------------------------------------------
# (group 2019, group 2018, parent 2019, parent 2018), in millions of yuan
BALANCE = {
    "LOANS": ("发放贷款和垫款", "五、8", (1_010_901, 863_977, 1_009_693, 862_947)),
    "DEPOSITS": ("吸收存款", "五、20", (1_405_118, 1_257_380, 1_394_215, 1_246_789)),
}
INCOME = {
    "REVENUE": ("一、营业收入", "", (45_017, 35_043, 44_101, 34_332)),
    "NET_INTEREST_INCOME": ("利息净收入", "五、30", (31_021, 27_031, 30_445, 26_520)),
    "NET_FEE_INCOME": ("手续费及佣金净收入", "五、31", (4_532, 3_721, 4_501, 3_698)),
    "NET_PROFIT": ("五、净利润", "", (14_959, 13_369, 14_478, 12_998)),
}
DATES = ["2019年12月31日", "2018年12月31日"]
YEARS = ["2019年度", "2018年度"]
UNIT = "单位：人民币百万元"


def paired(
    items: dict[str, tuple[str, str, tuple[int, ...]]],
    periods: list[str],
    *,
    group: str = "本集团",
    parent: str = "本行",
    merged: str = "repeated",
) -> list[list[str]]:
    """A statement's grid with the group's and the parent's columns. `merged`: how a converter
    returns the merged header cells: `repeated` (a merged text cell's text in each cell it covers,
    `项目` / `附注` spanning both header rows, as HTML and docx give them), `blank` (the text in its
    first cell only, as a PDF table finder gives them)."""
    if merged == "repeated":
        top = ["项目", "附注", group, group, parent, parent]
        header = ["项目", "附注", *periods, *periods]
    else:
        top = ["项目", "附注", group, "", parent, ""]
        header = ["", "", *periods, *periods]
    body = [[label, note, *(f"{value:,}" for value in values)] for label, note, values in items.values()]
    return [top, header, *body]


def statement(rows: list[list[str]], caption: str, *, number: int = 1) -> Table:
    return Table(f"page={80 + number},table=1", "", rows, lead=UNIT, caption=f"{caption} {UNIT}")


def read(table: Table, glossary: GlossarySnapshot = GLOSSARY) -> list[FactCandidate]:
    return table_read(
        table,
        glossary=glossary,
        document_name="bank_2019.pdf",
        sensitivity="INTERNAL",
        default_entity="BANK",
        report_period=FY2019,
    ).candidates


def group_figures(items: dict[str, tuple[str, str, tuple[int, ...]]]) -> set[Fact]:
    return millions(
        *((code, "FY2019", values[0]) for code, (_, _, values) in items.items()),
        *((code, "FY2018", values[1]) for code, (_, _, values) in items.items()),
    )


def parent_figures(items: dict[str, tuple[str, str, tuple[int, ...]]]) -> set[Fact]:
    return millions(
        *((code, "FY2019", values[2]) for code, (_, _, values) in items.items()),
        *((code, "FY2018", values[3]) for code, (_, _, values) in items.items()),
    )


@pytest.mark.parametrize("merged", ["repeated", "blank"])
@pytest.mark.parametrize(
    ("items", "periods"), [(BALANCE, DATES), (INCOME, YEARS)], ids=["balance_sheet", "income_statement"]
)
def test_the_groups_columns_are_the_groups_figures(
    items: dict[str, tuple[str, str, tuple[int, ...]]], periods: list[str], merged: str
) -> None:
    found = read(statement(paired(items, periods, merged=merged), "资产负债表"))
    assert facts_of(found) == group_figures(items)
    assert not any("add their groups as channels" in f.reason for f in found)
    assert all(f.entity == "BANK" and f.unit == "CNY" for f in found)


@pytest.mark.parametrize("merged", ["repeated", "blank"])
def test_the_parents_columns_wait_as_the_parents_alone(merged: str) -> None:
    found = read(statement(paired(INCOME, YEARS, merged=merged), "利润表"))
    assert facts_of(found, status="pending") == parent_figures(INCOME)
    parents = [f for f in found if f.status == "pending"]
    assert parents and all("parent" in f.reason and "alone" in f.reason for f in parents)
    assert all("本行" in f.locator for f in parents)
    assert all("本集团" in f.locator for f in found if f.status == "approved")


@pytest.mark.parametrize(
    ("group", "parent"),
    [
        ("本集团", "本行"),
        ("本集团", "本银行"),
        ("本集团", "本公司"),  # an insurer's or a securities firm's parent
        ("集团", "母公司"),
        ("合并", "母公司"),
        ("合并", "公司"),
        ("本公司及子公司", "本公司"),
        ("本集团合并", "本行"),
    ],
)
def test_every_pair_of_scope_words(group: str, parent: str) -> None:
    found = read(statement(paired(BALANCE, DATES, group=group, parent=parent), "资产负债表"))
    assert facts_of(found) == group_figures(BALANCE)
    assert facts_of(found, status="pending") == parent_figures(BALANCE)


def test_the_cells_carry_whose_figures_they_are() -> None:
    found = read(statement(paired(BALANCE, DATES), "资产负债表"))
    assert {f.scope for f in found if f.status == "approved"} == {CONSOLIDATED}
    assert {f.scope for f in found if f.status == "pending"} == {PARENT}


@pytest.mark.parametrize("title", ["合并资产负债表", "合并及母公司资产负债表", "合并及公司资产负债表", "资产负债表"])
def test_the_columns_say_whose_figures_they_are_whatever_the_title_says(title: str) -> None:
    """A title over both (`合并及母公司资产负债表`) names the parent too, and `合并资产负债表` over a
    `本行` column does not make the parent's figures the group's."""
    found = read(statement(paired(BALANCE, DATES), title))
    assert facts_of(found) == group_figures(BALANCE)
    assert all(f.scope == PARENT for f in found if f.status == "pending")
    assert all(f.scope == CONSOLIDATED for f in found if f.status == "approved")


def test_the_parents_figures_hold_none_of_the_groups_back() -> None:
    """Across the statements of one report: the group's figures of the balance sheet and the income
    statement are approved; the parent's, printed beside them for the same keys, only wait."""
    tables = [
        statement(paired(BALANCE, DATES), "合并及母公司资产负债表", number=1),
        statement(paired(INCOME, YEARS), "合并及母公司利润表", number=2),
    ]
    document = ExtractedDocument("bank_2019.pdf", "application/pdf", "", tables, [], 200)
    found = document_facts(
        document, glossary=GLOSSARY, sensitivity="INTERNAL", default_entity="BANK", report_period=FY2019
    ).candidates
    assert facts_of(found) == group_figures(BALANCE) | group_figures(INCOME)
    assert not any("conflicting values" in f.reason or "differs from" in f.reason for f in found)


def test_the_groups_columns_alone_are_the_groups_figures() -> None:
    rows = [
        ["项目", "附注", "本集团", "本集团"],
        ["项目", "附注", *DATES],
        ["吸收存款", "五、20", "1,405,118", "1,257,380"],
    ]
    found = read(statement(rows, "资产负债表"))
    assert facts_of(found) == millions(("DEPOSITS", "FY2019", 1_405_118), ("DEPOSITS", "FY2018", 1_257_380))


def test_the_company_word_alone_is_the_issuer_not_its_parent() -> None:
    """`本公司` over a company's own years, with no group beside it, is the issuer itself."""
    rows = [["项目", "本公司", "本公司"], ["项目", *YEARS], ["营业收入", "45,017", "35,043"]]
    found = read(statement(rows, "主要会计数据"))
    assert facts_of(found) == millions(("REVENUE", "FY2019", 45_017), ("REVENUE", "FY2018", 35_043))
    assert all(f.scope != PARENT for f in found)


def test_columns_sharing_a_period_under_other_words_still_wait() -> None:
    rows = [
        ["项目", "境内", "境内", "境外", "境外"],
        ["项目", *YEARS, *YEARS],
        ["营业收入", "40,000", "30,000", "5,017", "5,043"],
    ]
    found = read(statement(rows, "营业收入地区分布"))
    assert found and all(f.status == "pending" and "add their groups as channels" in f.reason for f in found)


def test_a_group_word_that_is_an_alias_names_no_entity() -> None:
    """A glossary may call its home company `集团`; `本集团` over a bank's column is still the bank."""
    glossary = _glossary((EntityInfo("HOME", "集团", "home"), "集团"))
    found = read(statement(paired(BALANCE, DATES), "资产负债表"), glossary)
    assert facts_of(found) == group_figures(BALANCE)
    assert {f.entity for f in found} == {"BANK"}


@pytest.mark.parametrize("scope_row", [["", "", "本集团", ""], ["", "", "本行", "本行"]])
def test_a_scope_over_the_columns_alone_is_no_title(scope_row: list[str]) -> None:
    """`本集团` or `本行` over all the value columns, with no label beside it, says whose figures
    they are: it is no title naming an entity (`集团`), and the parent's wait."""
    glossary = _glossary((EntityInfo("HOME", "集团", "home"), "集团"))
    rows = [scope_row, ["项目", "附注", *DATES], ["吸收存款", "五、20", "1,405,118", "1,257,380"]]
    found = read(statement(rows, "资产负债表"), glossary)
    figures = millions(("DEPOSITS", "FY2019", 1_405_118), ("DEPOSITS", "FY2018", 1_257_380))
    assert {f.entity for f in found} == {"BANK"}
    assert facts_of(found, status="approved" if "本集团" in scope_row else "pending") == figures


def test_an_insurers_group_and_company_columns() -> None:
    items = {
        "REVENUE": ("一、营业收入", "", (1_168_867, 976_832, 31_548, 29_013)),
        "EARNED_PREMIUMS": ("已赚保费", "八、40", (757_599, 694_880, 0, 0)),
        "CLAIMS": ("赔付支出", "八、44", (130_283, 120_287, 0, 0)),
        "NET_PROFIT": ("五、净利润", "", (164_365, 120_452, 29_426, 25_376)),
    }
    found = read(statement(paired(items, YEARS, parent="本公司"), "合并及公司利润表"))
    assert facts_of(found) == group_figures(items)
    assert facts_of(found, status="pending") == parent_figures(items)


# -- statements printed as lines of text (an HTML conversion) ---------------------------------------
# A filed report converted to HTML as the FinGLM contest data holds them: bare `<h>` cover lines,
# `<p>` paragraphs, `<br/>` between; a statement printed as lines of text whose columns are aligned
# with spaces as a monospace font shows them (a wide CJK character two columns, figures flush
# right), not as a `<table>`.
BANK_NAME, INSURER_NAME = "中国示例银行股份有限公司", "示例人寿保险股份有限公司"


def cover(company: str) -> str:
    """The cover and the first page's running header, the year in Chinese numerals."""
    return (
        f"<h>{company}</h><br/><h>2019年年度报告</h><br/><h>二〇二〇年三月</h><br/><h>重要提示</h><br/>"
        "<p>董事会、监事会及董事、监事、高级管理人员保证年度报告内容的真实、准确、完整。</p><br/>"
        f"<p>{company} 二〇一九年年度报告</p><br/>"
    )


# 1. One `<p>` per line, the columns padded with runs of spaces (which HTML collapses to one).
BALANCE_LINES = [
    "                              合并资产负债表",
    "                              2019年12月31日",
    "编制单位：中国示例银行股份有限公司                      单位：人民币百万元",
    "项目                        附注          2019年12月31日    2018年12月31日",
    "资产：",
    "现金及存放中央银行款项      五、1                132,252           143,645",
    "发放贷款和垫款              五、8              1,010,901           863,977",
    "债权投资                    五、9              3,135,144         3,187,178",
    "负债：",
    "吸收存款                    五、20             1,405,118         1,257,380",
]

# 2. One `<pre>` block: the group's and the parent's columns, `本集团` and `本行` centred over theirs.
INCOME_PRE = """
                                              合并及母公司利润表
                                                   2019年度
                                                                                            单位：人民币百万元
                                                     本集团                               本行
项目                        附注                2019年度          2018年度          2019年度          2018年度
一、营业收入                                      45,017            35,043            44,101            34,332
利息净收入                  五、30                31,021            27,031            30,445            26,520
手续费及佣金净收入          五、31                 4,532             3,721             4,501             3,698
五、净利润                                        14,959            13,369            14,478            12,998
"""

# 3. An insurer's: one `<p>` per line, the columns padded with `&nbsp;` (which a converter writes
#    to keep the spacing), `本集团` and `本公司` over the group's and the company's columns.
INSURER_LINES = [
    "                                               合并及公司利润表",
    "                                                   2019年度",
    "                                                                                            单位：人民币百万元",
    "                                                     本集团                              本公司",
    "项目                        附注                2019年度          2018年度          2019年度          2018年度",
    "一、营业收入                                   1,168,867           976,832            31,548            29,013",
    "已赚保费                    八、40               757,599           694,880                 -                 -",
    "保险业务收入                八、40               797,880           742,994                 -                 -",
    "投资收益                    八、42               114,271            24,090            29,410            27,028",
    "赔付支出                    八、44               130,283           120,287                 -                 -",
    "五、净利润                                       164,365           120,452            29,426            25,376",
]


def paragraphs(lines: list[str], *, nbsp: bool = False) -> str:
    return "".join(f"<p>{line.replace(' ', '&nbsp;') if nbsp else line}</p><br/>" for line in lines)


def converted(body: str, *, company: str = BANK_NAME) -> tuple[list[FactCandidate], Period | None, str | None]:
    """The facts of an HTML conversion, read as ingestion reads them: in its own context."""
    document = extract("report_2019.html", (cover(company) + body).encode())
    context = document_context(document, GLOSSARY)
    found = document_facts(
        document,
        glossary=GLOSSARY,
        sensitivity="INTERNAL",
        default_entity=context.issuer,
        report_period=context.period,
    ).candidates
    return found, context.period, context.issuer


def test_text_lines_the_report_period_and_the_issuer_come_from_the_title() -> None:
    _, period, issuer = converted(paragraphs(BALANCE_LINES))
    assert (period, issuer) == (FY2019, "BANK")


def test_text_lines_a_balance_sheet_in_paragraphs() -> None:
    found, _, _ = converted(paragraphs(BALANCE_LINES))
    assert facts_of(found) == millions(
        ("CASH_CENTRAL_BANK", "FY2019", 132_252),
        ("CASH_CENTRAL_BANK", "FY2018", 143_645),
        ("LOANS", "FY2019", 1_010_901),
        ("LOANS", "FY2018", 863_977),
        ("DEBT_INVESTMENTS", "FY2019", 3_135_144),
        ("DEBT_INVESTMENTS", "FY2018", 3_187_178),
        ("DEPOSITS", "FY2019", 1_405_118),
        ("DEPOSITS", "FY2018", 1_257_380),
    )
    assert all(f.entity == "BANK" and f.unit == "CNY" and f.scope == CONSOLIDATED for f in found)


def test_text_lines_a_pre_block_with_the_group_and_the_parent() -> None:
    found, _, _ = converted(f"<pre>{INCOME_PRE}</pre>")
    assert facts_of(found) == group_figures(INCOME)
    assert facts_of(found, status="pending") == parent_figures(INCOME)
    assert all(f.scope == PARENT and "parent" in f.reason for f in found if f.status == "pending")


def test_text_lines_an_insurers_statement_padded_with_nbsp() -> None:
    found, _, _ = converted(paragraphs(INSURER_LINES, nbsp=True), company=INSURER_NAME)
    assert facts_of(found) == millions(
        ("REVENUE", "FY2019", 1_168_867),
        ("REVENUE", "FY2018", 976_832),
        ("EARNED_PREMIUMS", "FY2019", 757_599),
        ("EARNED_PREMIUMS", "FY2018", 694_880),
        ("GROSS_PREMIUMS", "FY2019", 797_880),
        ("GROSS_PREMIUMS", "FY2018", 742_994),
        ("INVESTMENT_INCOME", "FY2019", 114_271),
        ("INVESTMENT_INCOME", "FY2018", 24_090),
        ("CLAIMS", "FY2019", 130_283),
        ("CLAIMS", "FY2018", 120_287),
        ("NET_PROFIT", "FY2019", 164_365),
        ("NET_PROFIT", "FY2018", 120_452),
    )
    parents = [f for f in found if f.status == "pending"]
    assert facts_of(parents, status="pending") == millions(
        ("REVENUE", "FY2019", 31_548),
        ("REVENUE", "FY2018", 29_013),
        ("INVESTMENT_INCOME", "FY2019", 29_410),
        ("INVESTMENT_INCOME", "FY2018", 27_028),
        ("NET_PROFIT", "FY2019", 29_426),
        ("NET_PROFIT", "FY2018", 25_376),
    )
    assert all(f.scope == PARENT for f in parents)
