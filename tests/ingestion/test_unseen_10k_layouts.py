"""US Form 10-K statement pages printed without ruling lines, in layouts the four development
filings (Apple, Johnson & Johnson, Oracle, Verizon FY2019) do not show: a statement in
thousands for a January year end with `$` and `%` as tokens of their own and a percent-of-revenue
column; a balance sheet with wrapped labels, a note reference, a footnote mark and an allowance
clause in its labels; a cash-flow statement continued on a page that repeats neither its header
nor its scale, with `)` hanging in a token of its own; a ruled note table on a statement's page.

Each page is drawn token by token at the positions an EDGAR rendering puts them (no line, no
rectangle), read through `extract` and `document_facts`, and checked against what the page
prints: every figure of a line the glossary names, in its period and in the metric's unit, and
nothing approved that the page does not print as that figure.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

import pytest

from core.glossary import AliasRecord, ChannelInfo, EntityInfo, GlossarySnapshot, MetricInfo, UnitInfo, glossary_build
from core.model.period import Period
from ingestion.extract import extract
from ingestion.tables import FactCandidate, document_facts

PAGE_WIDTH, PAGE_HEIGHT = 612.0, 792.0  # US letter, as EDGAR prints
LEFT = 54.0
FONT, BOLD, SIZE, LEADING = "Times-Roman", "Times-Bold", 8.5, 11.5
INDENT = 9.0
TOKEN_GAP = 4.0  # a `%` or hanging `)` stands this far right of its number: a word of its own

Fact = tuple[str, str, Decimal, str]  # metric, period label, value, unit


# -- drawing a statement page ----------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """Where one value column prints: the number's right edge, and the `$` token's left edge."""

    right: float
    dollar: float = 0.0
    percent: bool = False  # a percent column: its `%` is a token after the number


@dataclass(frozen=True)
class Line:
    """One printed line: a label (or a label's wrapped part) and its cells as printed (`$ 1,234`,
    `(1,577)`, `56.9 %`, `—`); a line without cells is a heading or the first part of a label."""

    label: str
    cells: tuple[str, ...] = ()
    indent: int = 0


@dataclass(frozen=True)
class Page:
    """One statement page as EDGAR prints it: titles, header lines, value columns, lines, notes."""

    titles: tuple[str, ...]  # centred lines above the statement: company, statement, scale
    headers: tuple[tuple[tuple[str, float], ...], ...]  # column header lines: (text, centre x)
    columns: tuple[Column, ...]
    lines: tuple[Line, ...]
    notes: tuple[str, ...] = ()  # footnotes under the statement
    folio: str = ""  # the page number at the foot (`F-4`)
    hanging_parens: bool = False  # a negative's `)` in its own token right of the column
    extra: Callable[[Any, float], None] | None = None  # draws more below the statement from y


def _cell_draw(canvas: Any, column: Column, text: str, y: float, *, hanging: bool) -> None:
    text = text.strip()
    if not text:
        return
    if text.startswith("$"):
        canvas.drawString(column.dollar, y, "$")
        text = text[1:].strip()
    if column.percent and text.endswith("%"):
        text = text[:-1].strip()
        canvas.drawString(column.right + TOKEN_GAP, y, "%")
    if hanging and text.endswith(")"):
        text = text[:-1]
        canvas.drawString(column.right + TOKEN_GAP, y, ")")
    canvas.drawRightString(column.right, y, text)


def _page_draw(canvas: Any, page: Page) -> None:
    y = PAGE_HEIGHT - 60
    for title in page.titles:
        canvas.setFont(BOLD, 10)
        canvas.drawCentredString(PAGE_WIDTH / 2, y, title)
        y -= 13
    y -= 8
    canvas.setFont(BOLD, SIZE)
    for header in page.headers:
        for text, x in header:
            canvas.drawCentredString(x, y, text)
        y -= LEADING
    y -= 4
    canvas.setFont(FONT, SIZE)
    for line in page.lines:
        canvas.drawString(LEFT + INDENT * line.indent, y, line.label)
        for column, cell in zip(page.columns, line.cells, strict=False):
            _cell_draw(canvas, column, cell, y, hanging=page.hanging_parens)
        y -= LEADING
    y -= 8
    for note in page.notes:
        canvas.drawString(LEFT, y, note)
        y -= LEADING
    if page.extra is not None:
        page.extra(canvas, y - 12)
    if page.folio:
        canvas.drawCentredString(PAGE_WIDTH / 2, 36, page.folio)


def pdf_bytes(pages: tuple[Page, ...]) -> bytes:
    from reportlab.pdfgen.canvas import Canvas

    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(PAGE_WIDTH, PAGE_HEIGHT), invariant=1)
    for page in pages:
        _page_draw(canvas, page)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


# -- the glossary and the reading ------------------------------------------------------------------

UNITS = ("USD", "USD_K", "USD_M", "USD_B", "PCT")


def glossary(metrics: dict[str, tuple[str, str, tuple[str, ...]]], *, year_end_month: int) -> GlossarySnapshot:
    """XYZ Corp (USD, its year ending in `year_end_month`) and `metrics`: code → (name, unit, aliases)."""
    return glossary_build(
        entities=[EntityInfo("XYZ", "XYZ Corp", "peer", year_end_month=year_end_month, currency="USD")],
        metrics=[MetricInfo(code, name, unit) for code, (name, unit, _) in metrics.items()],
        channels=[ChannelInfo("TOTAL", "合计")],
        units=[UnitInfo(code, code, code) for code in UNITS],
        aliases=[
            AliasRecord("entity", "XYZ Corp", "XYZ"),
            *(AliasRecord("metric", text, code) for code, (name, _, more) in metrics.items() for text in (name, *more)),
        ],
        home_company_name="Home",
    )


def facts_read(pages: tuple[Page, ...], snapshot: GlossarySnapshot, period: Period) -> list[FactCandidate]:
    document = extract("xyz_10k.pdf", pdf_bytes(pages))
    return document_facts(
        document, glossary=snapshot, sensitivity="INTERNAL", default_entity="XYZ", report_period=period
    ).candidates


def approved(facts: list[FactCandidate]) -> set[Fact]:
    return {(f.metric, f.period_label, f.value, f.unit) for f in facts if f.status == "approved"}


def listing(facts: list[FactCandidate]) -> str:
    """What was read, one fact a line, for a failure message."""
    return "\n".join(
        f"  {f.status:8} {f.metric or '-':18} {f.period_label:7} {f.value!s:>12} {f.unit:6} "
        f"{f.raw_label!r} @ {f.locator}" + (f"  [{f.reason}]" if f.reason else "")
        for f in facts
    )


def assert_read(
    facts: list[FactCandidate], required: set[Fact], allowed: frozenset[Fact] | set[Fact] = frozenset()
) -> None:
    """Every `required` fact approved, and nothing approved outside `required` and `allowed`."""
    got = approved(facts)
    missing, wrong = required - got, got - required - allowed
    assert not missing and not wrong, (
        f"missing: {sorted(missing)}\napproved but not printed so: {sorted(wrong)}\nread:\n{listing(facts)}"
    )


def rows_of(facts: list[FactCandidate], label: str) -> list[FactCandidate]:
    return [f for f in facts if " ".join(f.raw_label.split()) == label]


def dec(text: str) -> Decimal:
    return Decimal(text)


def percent_cells(page: Page) -> set[Decimal]:
    """Every figure the page prints in a percent column (`(0.7) %` is -0.7)."""
    figures: set[Decimal] = set()
    for line in page.lines:
        for column, cell in zip(page.columns, line.cells, strict=False):
            text = cell.strip(" %")
            if column.percent and text and text != "—":
                figures.add(-dec(text.strip("()")) if text.startswith("(") else dec(text))
    return figures


# -- 1. an income statement in thousands, January year end, `$` and `%` tokens ----------------------

# Three years, each an amount column (`$` at its left) and a percent-of-revenue column (`%` after it).
_IS_COLUMNS = (
    Column(300, 238),
    Column(336, percent=True),
    Column(418, 356),
    Column(454, percent=True),
    Column(536, 474),
    Column(572, percent=True),
)
_IS_SPAN = (238 + 580) / 2
INCOME_STATEMENT = Page(
    titles=("XYZ CORP.", "CONSOLIDATED STATEMENTS OF OPERATIONS", "(In thousands, except per share data)"),
    headers=(
        (("Fiscal Year Ended", _IS_SPAN),),
        (("January 31,", _IS_SPAN),),
        (("2020", 269), ("2019", 387), ("2018", 505)),
    ),
    columns=_IS_COLUMNS,
    lines=(
        Line("Revenue", ("$ 1,234,567", "100.0 %", "$ 1,105,320", "100.0 %", "$ 982,415", "100.0 %")),
        Line("Cost of revenue", ("701,892", "56.9 %", "652,140", "59.0 %", "601,233", "61.2 %")),
        Line("Gross profit", ("532,675", "43.1 %", "453,180", "41.0 %", "381,182", "38.8 %")),
        Line("Operating expenses:"),
        Line("Research and development", ("187,340", "15.2 %", "170,225", "15.4 %", "152,876", "15.6 %"), 1),
        Line("Sales and marketing", ("142,118", "11.5 %", "131,904", "11.9 %", "120,557", "12.3 %"), 1),
        Line("General and administrative", ("61,205", "5.0 %", "58,713", "5.3 %", "55,020", "5.6 %"), 1),
        Line("Total operating expenses", ("390,663", "31.6 %", "360,842", "32.6 %", "328,453", "33.4 %"), 2),
        Line("Income from operations", ("142,012", "11.5 %", "92,338", "8.4 %", "52,729", "5.4 %")),
        Line("Interest expense", ("(8,214)", "(0.7) %", "(9,032)", "(0.8) %", "(9,875)", "(1.0) %")),
        Line("Other income (expense), net", ("2,417", "0.2 %", "—", "— %", "(1,106)", "(0.1) %")),
        Line("Income before income taxes", ("136,215", "11.0 %", "83,306", "7.5 %", "41,748", "4.2 %")),
        Line("Provision for income taxes", ("29,967", "2.4 %", "18,327", "1.7 %", "10,437", "1.1 %")),
        Line("Net income", ("$ 106,248", "8.6 %", "$ 64,979", "5.9 %", "$ 31,311", "3.2 %")),
        Line("Net income per share:"),
        Line("Basic", ("$ 2.14", "", "$ 1.33", "", "$ 0.65", ""), 1),
        Line("Diluted", ("$ 2.07", "", "$ 1.29", "", "$ 0.63", ""), 1),
        Line("Shares used in per share computation:"),
        Line("Basic", ("49,650", "", "48,857", "", "48,171", ""), 1),
        Line("Diluted", ("51,328", "", "50,372", "", "49,700", ""), 1),
    ),
    notes=("See accompanying notes to consolidated financial statements.",),
    folio="F-5",
)
INCOME_METRICS = {
    "REVENUE": ("Total revenue", "USD_M", ("Revenue", "Revenues")),
    "COGS": ("Cost of goods sold", "USD_M", ("Cost of sales",)),  # `Cost of revenue` is no alias: it waits
    "OPERATING_INCOME": ("Operating income", "USD_M", ("Income from operations",)),
    "NET_INCOME": ("Net income", "USD_K", ()),
    "EPS_DILUTED": ("Diluted EPS", "USD", ("Diluted earnings per share", "Net income per share, diluted")),
}
DILUTED_EPS = {
    ("EPS_DILUTED", "FY2020", dec("2.07"), "USD"),
    ("EPS_DILUTED", "FY2019", dec("1.29"), "USD"),
    ("EPS_DILUTED", "FY2018", dec("0.63"), "USD"),
}
PERCENTS = {value for value in percent_cells(INCOME_STATEMENT) for value in (value, -value)}
FY_JAN = {"FY2020", "FY2019", "FY2018"}


@cache
def income_facts() -> list[FactCandidate]:
    return facts_read((INCOME_STATEMENT,), glossary(INCOME_METRICS, year_end_month=1), Period("FY", "2020"))


def test_income_statement_in_thousands_reads_each_year_into_the_metrics_unit() -> None:
    """`$` at the column's left is the number's; `(In thousands …)` converts into USD millions
    and stays thousands for a metric in USD thousands; `January 31,` / `2020` over three lines
    name the fiscal years; `Income from operations` is the curated alias of operating income.
    (Diluted EPS may be approved too: see the per-share tests.)"""
    required = {
        ("REVENUE", "FY2020", dec("1234.567"), "USD_M"),
        ("REVENUE", "FY2019", dec("1105.320"), "USD_M"),
        ("REVENUE", "FY2018", dec("982.415"), "USD_M"),
        ("OPERATING_INCOME", "FY2020", dec("142.012"), "USD_M"),
        ("OPERATING_INCOME", "FY2019", dec("92.338"), "USD_M"),
        ("OPERATING_INCOME", "FY2018", dec("52.729"), "USD_M"),
        ("NET_INCOME", "FY2020", dec("106248"), "USD_K"),
        ("NET_INCOME", "FY2019", dec("64979"), "USD_K"),
        ("NET_INCOME", "FY2018", dec("31311"), "USD_K"),
    }
    facts = income_facts()
    assert_read(facts, required, DILUTED_EPS)
    assert {f.entity for f in facts if f.status == "approved"} == {"XYZ"}


def test_income_statement_percent_of_revenue_column_is_never_money() -> None:
    """A `%` token is its number's; a percent-of-revenue column is no period's money figure:
    nothing approved from it, and no cell read as a column of its own (`$`, `%`, value None)."""
    facts = income_facts()
    assert facts, "nothing read from the statement"
    assert all(isinstance(f.value, Decimal) for f in facts), listing(facts)
    assert all(f.period_label in FY_JAN for f in facts), listing(facts)
    money = [f for f in facts if f.status == "approved"]
    from_percent = [f for f in money if f.unit == "PCT" or f.value in PERCENTS or f.value * 1000 in PERCENTS]
    assert not from_percent, listing(from_percent)
    # `Cost of revenue` is a line of three amounts, not six: no percent cell beside them.
    cost = rows_of(facts, "Cost of revenue")
    assert sorted(f.period_label for f in cost) == sorted(FY_JAN), listing(facts)


def test_income_statement_a_dash_in_one_year_keeps_the_other_years_figures() -> None:
    """`Other income (expense), net` prints `2,417`, `—` and `(1,106)`: the dash is no figure (or
    zero), and the years beside it keep theirs, in their columns and with their signs."""
    facts = income_facts()
    read = rows_of(facts, "Other income (expense), net")
    figures = {f.period_label: f.value for f in read if f.value != 0}
    assert figures.keys() == {"FY2020", "FY2018"}, listing(facts)
    assert figures["FY2020"] > 0 > figures["FY2018"], listing(read)


def test_income_statement_per_share_and_share_counts_keep_their_own_scale() -> None:
    """`except per share data`: a per-share figure is dollars as printed, never thousands, and
    the share counts under their own heading (`Basic`, `Diluted` again) are read as rows of their
    own; neither is approved at a scale it is not printed in, nor as a per-share figure."""
    facts = income_facts()
    per_share = {dec(t) for t in ["2.14", "1.33", "0.65", "2.07", "1.29", "0.63"]}
    read = {f.value for f in facts if f.raw_label.split()[-1:] in (["Basic"], ["Diluted"])}
    assert per_share <= read, listing(facts)
    scaled = [f for f in facts if f.value / 1000 in per_share]
    assert not scaled, listing(scaled)
    shares = {dec(t) for t in ["49650", "48857", "48171", "51328", "50372", "49700"]}
    counts = [f for f in facts if f.status == "approved" and (f.value in shares or f.value * 1000 in shares)]
    assert not counts, listing(counts)


def test_income_statement_diluted_eps_is_read_under_its_heading() -> None:
    """`Diluted` under `Net income per share:` is diluted EPS (`Net income per share, diluted`, as
    the curator names it), in dollars as printed."""
    facts = income_facts()
    eps = {(f.metric, f.period_label, f.value, f.unit) for f in facts if f.status == "approved"}
    assert eps >= DILUTED_EPS, listing(facts)


def test_income_statement_lines_the_glossary_does_not_name_wait_for_review() -> None:
    """`Cost of revenue` (no alias), `Research and development`, `Total operating expenses`:
    read as rows of three years, each pending with its reason, never approved on a guess."""
    facts = income_facts()
    for label in ("Cost of revenue", "Research and development", "Total operating expenses", "Gross profit"):
        read = rows_of(facts, label)
        assert sorted(f.period_label for f in read) == sorted(FY_JAN), f"{label}:\n{listing(facts)}"
        assert all(f.status == "pending" and f.reason for f in read), listing(read)


# -- 2. a balance sheet: wrapped labels, a note reference, a footnote mark, an allowance clause -------

_BS_COLUMNS = (Column(380, 318), Column(500, 438))
BALANCE_SHEET = Page(
    titles=("XYZ CORP.", "CONSOLIDATED BALANCE SHEETS", "(In millions, except par value)"),
    headers=((("December 31,", 349), ("December 31,", 469)), (("2019", 349), ("2018", 469))),
    columns=_BS_COLUMNS,
    lines=(
        Line("ASSETS"),
        Line("Current assets:"),
        Line("Cash and cash equivalents", ("$ 1,842", "$ 1,517"), 1),
        Line("Short-term investments (Note 4)", ("655", "590"), 1),
        Line("Accounts receivable, net of allowance of $12 and $10", ("1,208", "1,097"), 1),
        Line("Inventories (1)", ("934", "871"), 1),
        Line("Prepaid expenses and other current assets", ("187", "164"), 1),
        Line("Total current assets", ("4,826", "4,239"), 2),
        Line("Property and equipment, net", ("3,115", "2,964")),
        Line("Operating lease right-of-use assets", ("642", "603")),
        Line("Goodwill", ("1,390", "1,390")),
        Line("Other assets", ("477", "674")),
        Line("Total assets", ("$ 10,450", "$ 9,870"), 2),
        Line("LIABILITIES AND STOCKHOLDERS' EQUITY"),
        Line("Current liabilities:"),
        Line("Accounts payable", ("$ 736", "$ 689"), 1),
        Line("Accrued liabilities", ("1,012", "958"), 1),
        Line("Total current liabilities", ("1,748", "1,647"), 2),
        Line("Long-term debt, net of current"),
        Line("portion", ("2,985", "3,240"), 1),
        Line("Other long-term liabilities", ("512", "498")),
        Line("Total liabilities", ("5,245", "5,385"), 2),
        Line("Commitments and contingencies (Note 9)"),
        Line("Stockholders' equity:"),
        Line("Common stock and additional paid-in capital,", (), 1),
        Line("$0.001 par value; 500 shares authorized;", (), 2),
        Line("121 and 119 shares issued and outstanding", ("2,874", "2,712"), 2),
        Line("Retained earnings", ("2,331", "1,773"), 1),
        Line("Total stockholders' equity", ("5,205", "4,485"), 2),
        Line("Total liabilities and stockholders'"),
        Line("equity", ("$ 10,450", "$ 9,870"), 1),
    ),
    notes=(
        "(1) Includes inventory held at third-party locations of $23 and $19 as of December 31, 2019 and 2018.",
        "See accompanying notes to consolidated financial statements.",
    ),
    folio="F-4",
)
BALANCE_METRICS = {
    "CASH": ("Cash and cash equivalents", "USD_M", ()),
    "ST_INVESTMENTS": ("Short-term investments", "USD_M", ()),
    "AR": ("Accounts receivable", "USD_M", ("Accounts receivable, net",)),
    "INVENTORIES": ("Inventories", "USD_M", ("Inventory",)),
    "TOTAL_ASSETS": ("Total assets", "USD_B", ()),
    "TOTAL_LIABILITIES": ("Total liabilities", "USD_M", ()),
    "LONG_TERM_DEBT": ("Long-term debt", "USD_M", ("Long-term debt, net of current portion",)),
    "EQUITY": ("Total stockholders' equity", "USD_M", ("Total shareholders' equity",)),
    "LIABILITIES_AND_EQUITY": (
        "Total liabilities and equity",
        "USD_M",
        ("Total liabilities and stockholders' equity",),
    ),
}
RECEIVABLES = {("AR", "FY2019", dec("1208"), "USD_M"), ("AR", "FY2018", dec("1097"), "USD_M")}
# Figures printed inside labels and footnotes: never a fact's value, whatever its sign or scale.
LABEL_FIGURES = {dec(t) for t in ["1", "4", "9", "12", "10", "0.001", "500", "121", "119", "23", "19"]}


@cache
def balance_facts() -> list[FactCandidate]:
    return facts_read((BALANCE_SHEET,), glossary(BALANCE_METRICS, year_end_month=12), Period("FY", "2019"))


def test_balance_sheet_reads_each_line_at_its_year_end() -> None:
    """`December 31,` over `2019` is FY2019; `(Note 4)` and `(1)` leave the line's metric as it
    is; a wrapped label (`Long-term debt, net of current` / `portion`, `Total liabilities and
    stockholders'` / `equity`) is one label; total assets converts into USD billions."""
    required = {
        ("CASH", "FY2019", dec("1842"), "USD_M"),
        ("CASH", "FY2018", dec("1517"), "USD_M"),
        ("ST_INVESTMENTS", "FY2019", dec("655"), "USD_M"),
        ("ST_INVESTMENTS", "FY2018", dec("590"), "USD_M"),
        ("INVENTORIES", "FY2019", dec("934"), "USD_M"),
        ("INVENTORIES", "FY2018", dec("871"), "USD_M"),
        ("TOTAL_ASSETS", "FY2019", dec("10.450"), "USD_B"),
        ("TOTAL_ASSETS", "FY2018", dec("9.870"), "USD_B"),
        ("TOTAL_LIABILITIES", "FY2019", dec("5245"), "USD_M"),
        ("TOTAL_LIABILITIES", "FY2018", dec("5385"), "USD_M"),
        ("LONG_TERM_DEBT", "FY2019", dec("2985"), "USD_M"),
        ("LONG_TERM_DEBT", "FY2018", dec("3240"), "USD_M"),
        ("EQUITY", "FY2019", dec("5205"), "USD_M"),
        ("EQUITY", "FY2018", dec("4485"), "USD_M"),
        ("LIABILITIES_AND_EQUITY", "FY2019", dec("10450"), "USD_M"),
        ("LIABILITIES_AND_EQUITY", "FY2018", dec("9870"), "USD_M"),
    }
    assert_read(balance_facts(), required, RECEIVABLES)


def test_balance_sheet_allowance_clause_leaves_the_receivables_metric() -> None:
    """`Accounts receivable, net of allowance of $12 and $10` is accounts receivable, net: the
    allowance clause is set aside, its figures are no values."""
    facts = balance_facts()
    got = {(f.metric, f.period_label, f.value, f.unit) for f in facts if f.status == "approved"}
    assert got >= RECEIVABLES, listing(facts)


def test_balance_sheet_figures_inside_labels_and_footnotes_are_no_values() -> None:
    """`(1)` is no -1, `(Note 4)` / `(Note 9)` no -4 / -9, the allowance `$12 and $10`, the par
    value and share counts of a wrapped label and the footnote's `$23 and $19` are no facts; the
    label mark `(1)` makes no column of its own."""
    facts = balance_facts()
    assert facts, "nothing read from the statement"
    from_labels = [f for f in facts if f.value in LABEL_FIGURES or -f.value in LABEL_FIGURES]
    assert not from_labels, listing(from_labels)
    assert all(f.period_label in {"FY2019", "FY2018"} for f in facts), listing(facts)
    for label in ("Inventories (1)", "Short-term investments (Note 4)"):
        read = [f for f in facts if f.raw_label.startswith(label.split(" (")[0])]
        assert sorted(f.period_label for f in read) == ["FY2018", "FY2019"], listing(facts)


def test_balance_sheet_wrapped_label_the_glossary_does_not_name_waits_as_one_row() -> None:
    """The three-line `Common stock and additional paid-in capital, $0.001 par value; …` is one
    row with its two figures (on its last line), pending: the glossary names no such metric."""
    facts = balance_facts()
    read = [f for f in facts if f.value in (dec("2874"), dec("2712"))]
    assert sorted(f.period_label for f in read) == ["FY2018", "FY2019"], listing(facts)
    assert all(f.status == "pending" for f in read), listing(read)
    assert all(f.raw_label.startswith("Common stock and additional paid-in capital") for f in read), listing(read)
    assert all("issued and outstanding" in f.raw_label for f in read), listing(read)


# -- 3. a cash-flow statement continued on a second page ------------------------------------------

_CF_COLUMNS = (Column(390, 330), Column(470, 410), Column(550, 490))
_CF_TITLE = "CONSOLIDATED STATEMENTS OF CASH FLOWS"
CASH_FLOW_FIRST = Page(
    titles=("XYZ CORP.", _CF_TITLE, "(In millions)"),
    headers=((("Year Ended December 31,", 440),), (("2019", 360), ("2018", 440), ("2017", 520))),
    columns=_CF_COLUMNS,
    hanging_parens=True,
    lines=(
        Line("Operating activities"),
        Line("Net income (loss)", ("$ 558", "$ 412", "$ (75)"), 1),
        Line("Adjustments to reconcile net income (loss) to net cash", (), 1),
        Line("provided by operating activities:", (), 2),
        Line("Depreciation and amortization", ("640", "580", "530"), 2),
        Line("Stock-based compensation", ("210", "190", "160"), 2),
        Line("Deferred income taxes", ("(45)", "30", "(12)"), 2),
        Line("Changes in operating assets and liabilities:", (), 2),
        Line("Accounts receivable", ("(111)", "(87)", "(54)"), 3),
        Line("Inventories", ("(63)", "(48)", "(21)"), 3),
        Line("Accounts payable and accrued liabilities", ("101", "77", "93"), 3),
        Line("Net cash provided by operating", (), 1),
        Line("activities", ("1,290", "1,154", "621"), 2),
        Line("Investing activities"),
    ),
    folio="F-6",
)
_CF_REST = (
    Line("Purchases of property and equipment", ("(1,577)", "(1,402)", "(1,210)"), 1),
    Line("Acquisitions, net of cash acquired", ("(310)", "—", "(95)"), 1),
    Line("Proceeds from sales of investments", ("412", "388", "255"), 1),
    Line("Net cash used in investing activities", ("(1,475)", "(1,014)", "(1,050)"), 1),
    Line("Financing activities"),
    Line("Proceeds from issuance of long-term debt", ("500", "—", "750"), 1),
    Line("Repayments of long-term debt", ("(255)", "(200)", "(150)"), 1),
    Line("Repurchases of common stock", ("(120)", "(80)", "—"), 1),
    Line("Dividends paid", ("(98)", "(91)", "(84)"), 1),
    Line("Net cash provided by (used in) financing activities", ("27", "(371)", "516"), 1),
    Line("Net increase (decrease) in cash and cash equivalents", ("(158)", "(231)", "87")),
    Line("Cash and cash equivalents at beginning of year", ("2,000", "2,231", "2,144")),
    Line("Cash and cash equivalents at end of year", ("$ 1,842", "$ 2,000", "$ 2,231")),
    Line("Supplemental cash flow information:"),
    Line("Cash paid for income taxes", ("$ 131", "$ 118", "$ 64"), 1),
    Line("Cash paid for interest", ("$ 88", "$ 92", "$ 97"), 1),
)
# The second page repeats neither the column headers nor the scale: the title `(continued)`, or nothing.
CONTINUATIONS = {
    "continued_title": ("XYZ CORP.", f"{_CF_TITLE} (continued)"),
    "no_title": (),
}
CASH_FLOW_METRICS = {
    "NET_INCOME": ("Net income", "USD_M", ("Net income (loss)",)),
    "CFO": ("Cash from operations", "USD_M", ("Net cash provided by operating activities",)),
    "CAPEX": ("Capital expenditures", "USD_M", ("Purchases of property and equipment",)),
    "DIVIDENDS": ("Dividends paid", "USD_M", ()),
    "CASH": ("Cash and cash equivalents", "USD_M", ()),
}
FY_DEC = {"FY2019", "FY2018", "FY2017"}


@cache
def cash_flow_facts(continuation: str) -> list[FactCandidate]:
    second = Page(
        titles=CONTINUATIONS[continuation],
        headers=(),
        columns=_CF_COLUMNS,
        lines=_CF_REST,
        folio="F-7",
        hanging_parens=True,
    )
    pages = (CASH_FLOW_FIRST, second)
    return facts_read(pages, glossary(CASH_FLOW_METRICS, year_end_month=12), Period("FY", "2019"))


@pytest.mark.parametrize("continuation", sorted(CONTINUATIONS))
def test_cash_flow_statement_reads_both_pages_with_their_negatives(continuation: str) -> None:
    """`(1,577` with its `)` in a token of its own is -1,577; `$ (75 )` is -75; the wrapped
    `Net cash provided by operating` / `activities` is operating cash flow; the second page
    keeps the first page's years and `(In millions)`. `Cash and cash equivalents at end of year`
    may be read as the year-end cash; the balance at the beginning of the year never is."""
    required = {
        ("NET_INCOME", "FY2019", dec("558"), "USD_M"),
        ("NET_INCOME", "FY2018", dec("412"), "USD_M"),
        ("NET_INCOME", "FY2017", dec("-75"), "USD_M"),
        ("CFO", "FY2019", dec("1290"), "USD_M"),
        ("CFO", "FY2018", dec("1154"), "USD_M"),
        ("CFO", "FY2017", dec("621"), "USD_M"),
        ("CAPEX", "FY2019", dec("-1577"), "USD_M"),
        ("CAPEX", "FY2018", dec("-1402"), "USD_M"),
        ("CAPEX", "FY2017", dec("-1210"), "USD_M"),
        ("DIVIDENDS", "FY2019", dec("-98"), "USD_M"),
        ("DIVIDENDS", "FY2018", dec("-91"), "USD_M"),
        ("DIVIDENDS", "FY2017", dec("-84"), "USD_M"),
    }
    year_end_cash = {
        ("CASH", "FY2019", dec("1842"), "USD_M"),
        ("CASH", "FY2018", dec("2000"), "USD_M"),
        ("CASH", "FY2017", dec("2231"), "USD_M"),
    }
    assert_read(cash_flow_facts(continuation), required, year_end_cash)


@pytest.mark.parametrize("continuation", sorted(CONTINUATIONS))
def test_cash_flow_continued_page_keeps_its_periods_scale_and_signs(continuation: str) -> None:
    """Every line of the second page is read, on page 2, in the three years and in millions;
    a hanging `)` makes no column and no positive figure; a dash is no value."""
    facts = cash_flow_facts(continuation)
    assert all(isinstance(f.value, Decimal) for f in facts), listing(facts)
    assert all(f.period_label in FY_DEC for f in facts), listing(facts)
    second = [f for f in facts if f.locator.startswith("page=2")]
    assert second, f"nothing read on the continued page:\n{listing(facts)}"
    signed = {
        "Purchases of property and equipment": {"FY2019": dec("-1577"), "FY2018": dec("-1402"), "FY2017": dec("-1210")},
        "Net cash used in investing activities": {
            "FY2019": dec("-1475"),
            "FY2018": dec("-1014"),
            "FY2017": dec("-1050"),
        },
        "Repayments of long-term debt": {"FY2019": dec("-255"), "FY2018": dec("-200"), "FY2017": dec("-150")},
        "Net cash provided by (used in) financing activities": {
            "FY2019": dec("27"),
            "FY2018": dec("-371"),
            "FY2017": dec("516"),
        },
        "Cash paid for income taxes": {"FY2019": dec("131"), "FY2018": dec("118"), "FY2017": dec("64")},
    }
    for label, by_year in signed.items():
        read = rows_of(second, label)
        got = {f.period_label: f.value for f in read}
        assert got == by_year and len(read) == 3, f"{label}:\n{listing(second)}"
        # a line the glossary does not name waits; if it waits, it says why (never a missing scale)
        assert all("no scale stated" not in f.reason for f in read), listing(read)
    dashes = rows_of(second, "Acquisitions, net of cash acquired")
    assert {f.period_label: f.value for f in dashes if f.value != 0} == {
        "FY2019": dec("-310"),
        "FY2017": dec("-95"),
    }, listing(second)
    beginning = rows_of(second, "Cash and cash equivalents at beginning of year")
    assert len(beginning) == 3 and all(f.status == "pending" for f in beginning), listing(second)


# -- 4. a statement and a ruled note table on one page ---------------------------------------------

_RULED_X = (54.0, 300.0, 420.0, 540.0)
_RULED_ROWS = (("", "2019", "2018"), ("Product revenue", "3,100", "2,905"), ("Service revenue", "1,110", "980"))


def _ruled_table_draw(canvas: Any, top: float) -> None:
    """A note's lead sentence, then a table drawn with its grid lines under it."""
    canvas.setFont(FONT, SIZE)
    canvas.drawString(LEFT, top, "Note 12. Segment information")
    canvas.drawString(LEFT, top - 14, "Revenue by segment was as follows (in millions):")
    height = 16.0
    y0 = top - 24
    bottom = y0 - height * len(_RULED_ROWS)
    for k in range(len(_RULED_ROWS) + 1):
        canvas.line(_RULED_X[0], y0 - k * height, _RULED_X[-1], y0 - k * height)
    for x in _RULED_X:
        canvas.line(x, y0, x, bottom)
    for r, row in enumerate(_RULED_ROWS):
        y = y0 - r * height - 11
        canvas.drawString(_RULED_X[0] + 4, y, row[0])
        for c, text in enumerate(row[1:], start=1):
            canvas.drawRightString(_RULED_X[c + 1] - 6, y, text)


MIXED_PAGE = Page(
    titles=("XYZ CORP.", "CONSOLIDATED STATEMENTS OF INCOME", "(In millions)"),
    headers=((("Year Ended December 31,", 455),), (("2019", 410), ("2018", 500))),
    columns=(Column(440, 380), Column(530, 470)),
    lines=(
        Line("Total revenue", ("$ 4,210", "$ 3,885")),
        Line("Cost of sales", ("2,530", "2,371")),
        Line("Operating income", ("845", "702")),
        Line("Net income", ("$ 612", "$ 498")),
    ),
    extra=_ruled_table_draw,
    folio="F-3",
)
MIXED_METRICS = {
    "REVENUE": ("Total revenue", "USD_M", ("Revenue",)),
    "COGS": ("Cost of goods sold", "USD_M", ("Cost of sales",)),
    "OPERATING_INCOME": ("Operating income", "USD_M", ()),
    "NET_INCOME": ("Net income", "USD_M", ()),
    "PRODUCT_REVENUE": ("Product revenue", "USD_M", ()),
    "SERVICE_REVENUE": ("Service revenue", "USD_M", ()),
}
_SEGMENTS = {
    ("PRODUCT_REVENUE", "FY2019", dec("3100"), "USD_M"),
    ("PRODUCT_REVENUE", "FY2018", dec("2905"), "USD_M"),
    ("SERVICE_REVENUE", "FY2019", dec("1110"), "USD_M"),
    ("SERVICE_REVENUE", "FY2018", dec("980"), "USD_M"),
}


@cache
def mixed_facts() -> list[FactCandidate]:
    return facts_read((MIXED_PAGE,), glossary(MIXED_METRICS, year_end_month=12), Period("FY", "2019"))


def test_mixed_page_the_ruled_table_is_still_read_as_ruled() -> None:
    """The ruled note table under an unruled statement keeps its grid: its four figures, and no
    statement line read into it."""
    facts = mixed_facts()
    got = approved(facts)
    assert got >= _SEGMENTS, listing(facts)
    ruled = {f.locator.split(",row=")[0] for f in facts if f.metric in ("PRODUCT_REVENUE", "SERVICE_REVENUE")}
    assert len(ruled) == 1, listing(facts)
    in_ruled = [f for f in facts if f.locator.split(",row=")[0] in ruled]
    assert {f.metric for f in in_ruled} == {"PRODUCT_REVENUE", "SERVICE_REVENUE"}, listing(in_ruled)


def test_mixed_page_the_unruled_statement_is_read_beside_the_ruled_table() -> None:
    """The statement above the ruled table is read from its word positions, as a table of its own."""
    required = {
        ("REVENUE", "FY2019", dec("4210"), "USD_M"),
        ("REVENUE", "FY2018", dec("3885"), "USD_M"),
        ("COGS", "FY2019", dec("2530"), "USD_M"),
        ("COGS", "FY2018", dec("2371"), "USD_M"),
        ("OPERATING_INCOME", "FY2019", dec("845"), "USD_M"),
        ("OPERATING_INCOME", "FY2018", dec("702"), "USD_M"),
        ("NET_INCOME", "FY2019", dec("612"), "USD_M"),
        ("NET_INCOME", "FY2018", dec("498"), "USD_M"),
        *_SEGMENTS,
    }
    facts = mixed_facts()
    assert_read(facts, required)
    statement = {f.locator.split(",row=")[0] for f in facts if f.metric == "REVENUE"}
    segments = {f.locator.split(",row=")[0] for f in facts if f.metric == "PRODUCT_REVENUE"}
    assert statement and segments and not statement & segments, listing(facts)
