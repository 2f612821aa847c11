"""TAT-QA dev tables as companies publish them, rendered as xlsx, docx and PDF, read by the
product and compared with the printed grid cell by cell.

The oracle (`benchmarks.tables.oracle`) reads the ground truth from the grid as printed; the
scorer (`benchmarks.tables.score`) runs `ingestion.extract` and `ingestion.document_facts` on
each rendered file with a glossary naming every row label. The figures are also printed by
`python -m benchmarks.tables_bench` (`manage.py bench --tables`).

Selection rule for the ≥ 95 % assertion: the tables whose scale is decidable from what is printed
near them, i.e. the grid or its lead paragraph states exactly one scale (`printed.scales_stated`:
`in thousands`, `(millions)`, `$'000`, `€m` …, never a figure such as `$6.2 million`) and the
gold scale of the table's questions is that scale or none. That is 211 of the 278 tables today
(asserted ≥ 100). All 278 are rendered and scored for the no-wrong-approved check.

A number cell is either scored (labelled row, fiscal-year column) or in a named class outside
the oracle: a column group or colliding row (both must wait in review), a sub-year column, a
column that is no period (Change, %, Note …), an unlabelled row.
"""

from __future__ import annotations

import io
from decimal import Decimal
from functools import cache
from typing import Any

import pytest

from benchmarks.tables import DATASET, items_load
from benchmarks.tables.oracle import table_truth, truths_build
from benchmarks.tables.printed import (
    COLLIDING,
    COLUMN_GROUP,
    NON_PERIOD,
    SCORED,
    SUB_YEAR,
    UNKNOWN,
    header_period,
    lead_index,
    number_read,
    scales_stated,
)
from benchmarks.tables.render import FORMATS, render, xlsx_number
from benchmarks.tables.score import FormatScore, Tally, format_score, glossary_for, table_tally, unit_scale
from ingestion import FactCandidate, extract
from ingestion.sheets import number_text
from ingestion.values import value_parse


@cache
def _items() -> list[dict[str, Any]]:
    items = items_load()
    if items is None:
        pytest.skip(f"the TAT-QA dev split is not at {DATASET} (CI always has it)")
    return items


@cache
def _score(fmt: str) -> FormatScore:
    items = _items()
    truths = truths_build(items)
    return format_score(items, truths, glossary_for(truths), fmt)


def _item(grid: list[list[str]], paragraphs: tuple[str, ...] = (), scales: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "table": {"uid": "test", "table": grid},
        "paragraphs": [{"uid": str(n), "order": n + 1, "text": text} for n, text in enumerate(paragraphs)],
        "questions": [{"scale": scale, "answer_from": "table"} for scale in scales],
    }


# -- the oracle ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$  1,452.4", (Decimal("1452.4"), False)),
        ("(9,819)", (Decimal("-9819"), False)),
        ("$(89.7)", (Decimal("-89.7"), False)),
        ("21.0%", (Decimal("21.0"), True)),
        ("(248%)", (Decimal("-248"), True)),
        ("(13)%", (Decimal("-13"), True)),
        ("7 %", (Decimal("7"), True)),
        ("€ 5", (Decimal("5"), False)),
        ("\u2212136", (Decimal("-136"), False)),
        ("—", None),
        ("-", None),
        ("–", None),
        ("", None),
        ("$—", None),
        ("3-5", None),
        ("$130,000 (1)", None),
        ("1,2345", None),
        ("- - %", None),
    ],
)
def test_number_cells_as_printed(text: str, expected: tuple[Decimal, bool] | None) -> None:
    assert number_read(text) == expected


@pytest.mark.parametrize(
    ("header", "year"),
    [
        ("2019", 2019),
        ("2 0 1 8", 2018),
        ("December 31, 2019", 2019),
        ("30 June 2019 $’000", 2019),
        ("Fiscal 2019", 2019),
        ("FY19**", 2019),
        ("F19 53 WEEKS", 2019),
        ("FY 2019 `", 2019),
        ("2019/20", 2020),
        ("2017/2018", 2018),
        ("2018 (4)", 2018),
        ("2019¹", 2019),
        ("2019 $’000 RESTATED3", 2019),
        ("Year-ended 31 March 2018 Restated See note 2 $M", 2018),
        ("January 3, 2020", 2019),
        ("Jan 3, 2020", 2019),
        ("January 31, 2020", 2020),
        ("52 weeks ended 30 Mar 2019 £m", 2019),
        ("(in millions, except percentages) 2018", 2018),
    ],
)
def test_a_header_naming_one_year_is_that_fiscal_year(header: str, year: int) -> None:
    assert header_period(header) == (year, "")


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("Change", NON_PERIOD),
        ("F18 CHANGE", NON_PERIOD),
        ("Fiscal Year 2019 % of Total", NON_PERIOD),
        ("Percentage Change 2019 Versus 2018", NON_PERIOD),
        ("2019 vs 2018", NON_PERIOD),
        ("2019 Note", NON_PERIOD),
        ("Increase (Decrease) 2019", NON_PERIOD),
        ("2021-2022", NON_PERIOD),
        ("Amount", NON_PERIOD),
        ("Q4 2019", SUB_YEAR),
        ("Fiscal 2019 First Quarter", SUB_YEAR),
        ("12 Weeks Ended July 7, 2019", SUB_YEAR),
    ],
)
def test_a_header_that_is_no_fiscal_year(header: str, kind: str) -> None:
    assert header_period(header) == (None, kind)


@pytest.mark.parametrize(
    ("text", "scales"),
    [
        ("(in thousands)", {"thousand"}),
        ("Appropriation of earnings (in thousand NT dollars)", {"thousand"}),
        ("(inthousands)", {"thousand"}),
        ("$ in millions", {"million"}),
        ("(Dollars in Millions)", {"million"}),
        ("(thousands)", {"thousand"}),
        ("US$’000", {"thousand"}),
        ("2019 €m", {"million"}),
        ("£m", {"million"}),
        ("USDm", {"million"}),
        ("$ million", {"million"}),
        ("($ in billions)", {"billion"}),
        ("Revenue grew by $6.2 million to $120.5 million in 2019.", set()),
        ("We employ 1,200 people in 12 countries.", set()),
    ],
)
def test_a_scale_is_stated_as_a_unit_never_as_a_figure(text: str, scales: set[str]) -> None:
    assert scales_stated(text) == scales


def test_the_table_follows_the_first_paragraph_stating_a_scale_else_a_colon_else_the_last() -> None:
    def paragraphs(*texts: str) -> list[dict[str, Any]]:
        numbered = [{"order": n, "text": text} for n, text in enumerate(texts, start=1)]
        return numbered[::-1]  # the file does not list them in order; `order` does

    assert lead_index(paragraphs("It grew.", "Sales were as follows:", "Amounts are in thousands.")) == 2
    assert lead_index(paragraphs("Intro.", "Sales were as follows:", "It grew.")) == 1
    assert lead_index(paragraphs("One.", "Two.")) == 1
    assert lead_index([]) is None


def test_sections_qualify_a_repeated_label_and_an_unresolved_one_collides() -> None:
    truth = table_truth(
        _item(
            [
                ["", "2019", "2018"],
                ["Granted", "5", "4"],
                ["RSUs:", "", ""],
                ["Granted", "3", "2"],
                ["Vested", "1", "1"],
                ["PSUs", "", ""],
                ["Granted", "7", "6"],
                ["Vested", "2", "2"],
                ["Total", "9", "8"],
            ]
        ),
        0,
    )
    rows = {cell.row: (cell.alias, cell.kind) for cell in truth.cells if cell.col == 1}
    assert rows == {
        1: ("Granted", COLLIDING),  # repeated, and no section above it
        3: ("RSUs Granted", SCORED),
        4: ("RSUs Vested", SCORED),
        6: ("PSUs Granted", SCORED),
        7: ("PSUs Vested", SCORED),
        8: ("Total", SCORED),
    }


def test_a_repeated_year_is_a_column_group_and_a_caption_spreads_only_over_its_own_kind() -> None:
    truth = table_truth(
        _item(
            [
                ["", "Domestic", "", "International", "", "", "Percent Change", ""],
                ["", "2019", "2018", "2019", "2018", "Actual", "Constant", "2017"],
                ["Discount rate", "4.00%", "3.75%", "1.90%", "2.80%", "1%", "2%", "3.1%"],
            ]
        ),
        0,
    )
    kinds = {cell.col: (cell.year, cell.kind) for cell in truth.cells}
    assert kinds == {
        1: (2019, COLUMN_GROUP),
        2: (2018, COLUMN_GROUP),
        3: (2019, COLUMN_GROUP),
        4: (2018, COLUMN_GROUP),
        5: (None, NON_PERIOD),
        6: (None, NON_PERIOD),
        7: (2017, SCORED),  # `Percent Change` over Actual | Constant does not reach the year beside them
    }
    assert truth.header_rows == 2


def test_the_expected_scale_is_percent_for_a_percent_cell_else_the_gold_one() -> None:
    grid = [["(in thousands)", "2019", "2018"], ["Revenue", "1,200", "1,100"], ["Margin", "21.0%", "20.5%"]]
    gold = table_truth(_item(grid, scales=("million", "percent", "")), 0)
    assert {(c.label, c.scale) for c in gold.cells} == {("Revenue", "million"), ("Margin", "percent")}
    assert not gold.selected  # the grid says thousands, the questions millions: not decidable
    stated = table_truth(_item(grid), 0)
    assert {(c.label, c.scale) for c in stated.cells} == {("Revenue", "thousand"), ("Margin", "percent")}
    assert stated.selected
    silent = table_truth(_item([["", "2019"], ["Revenue", "1,200"]], paragraphs=("Sales were:",)), 0)
    assert [c.scale for c in silent.cells] == [UNKNOWN] and not silent.selected


def test_the_selection_rule_keeps_at_least_100_tables() -> None:
    truths = truths_build(_items())
    selected = sum(t.selected for t in truths)
    assert selected >= 100, f"only {selected} of {len(truths)} tables have a scale decidable from print"


# -- the renderer ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "printed", ["1,452.4", "$  1,452.4", "(9,819)", "$(89.7)", "21.0%", "(248%)", "(13)%", "7 %", "(2.1% )", "4105000"]
)
def test_an_xlsx_number_cell_displays_as_printed(printed: str) -> None:
    stored = xlsx_number(printed)
    assert stored is not None
    value, number_format = stored
    assert value_parse(number_text(float(value), number_format)) == number_read(printed)


def test_every_number_cell_of_the_data_set_reads_back_from_xlsx_as_printed() -> None:
    mismatches = []
    for index, item in enumerate(_items()):
        for cell in table_truth(item, index).cells:
            stored = xlsx_number(cell.text)
            read = None if stored is None else value_parse(number_text(float(stored[0]), stored[1]))
            if read != (cell.value, cell.percent):
                mismatches.append((index, cell.text, read))
    assert not mismatches


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_rendered_table_reads_back_as_its_grid(fmt: str) -> None:
    grid = [
        ["", "", "Years Ended September 30,", ""],
        ["", "2019", "2018", "2017"],
        ["Fixed Price", "$  1,452.4", "$  1,146.2", "(1,036.9)"],
        ["A label long enough to wrap in the narrow first column of the PDF table", "21.0%", "—", "44.1"],
    ]
    lead = "Sales by contract type were as follows (in millions):"
    item = _item(grid, paragraphs=("Sales grew.", lead, "Other contract types are rare."))
    data = render(item, 999, fmt)
    document = extract(f"t.{fmt}", data)
    rows = [row for table in document.tables for row in table.rows]
    if fmt == "xlsx":
        from openpyxl import load_workbook

        sheet = load_workbook(io.BytesIO(data)).active
        assert (sheet.title, sheet["A1"].value, sheet["A2"].value, sheet["C3"].value) == (
            "Company 999",
            lead,
            None,
            "Years Ended September 30,",
        )
        assert sheet["D5"].value == -1036.9 and sheet["D5"].number_format == "#,##0.0;(#,##0.0)"
        assert [row[1:] for row in rows[-2:]] == [["1452.4", "1146.2", "-1036.9"], ["21.0%", "—", "44.1"]]
    else:
        assert rows == [[" ".join(text.split()) for text in row] for row in grid]
        texts = [block.text for block in document.blocks]
        assert texts.index("Sales grew.") < texts.index(lead) < texts.index("Other contract types are rare.")


# -- the scorer ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "scale"),
    [
        ("PCT", "percent"),
        ("USD", "one"),
        ("USD_K", "thousand"),
        ("EUR_M", "million"),
        ("GBP_B", "billion"),
        ("CNY_10K", "ten_thousand"),
        ("CNY_100M", "hundred_million"),
        ("AMT_M", "million"),
        ("AS_PRINTED", "unknown"),
        ("COUNT", "unknown"),
        ("", "unknown"),
    ],
)
def test_a_fact_scale_is_read_from_its_unit_code(code: str, scale: str) -> None:
    assert unit_scale(code) == scale


def test_the_scorer_tells_exact_wrong_pending_and_missing_apart() -> None:
    truth = table_truth(
        _item(
            [["(in millions)", "2019", "2018"], ["Revenue", "1,200", "1,100"], ["Cost", "(300)", "(250)"]],
            scales=("million",),
        ),
        7,
    )
    glossary = glossary_for([truth])
    revenue, cost = glossary.metric("Revenue"), glossary.metric("Cost")
    assert revenue and cost

    def fact(metric: str, year: str, value: str, unit: str, status: str = "approved", reason: str = "") -> Any:
        return FactCandidate(
            "TQ007",
            metric,
            "FY",
            year,
            "TOTAL",
            Decimal(value),
            unit,
            "d",
            f"loc {year}",
            status,
            "",
            "",
            reason=reason,
        )

    candidates = [
        fact(revenue, "2019", "1200", "USD_M"),  # exact
        fact(revenue, "2018", "1100", "USD"),  # right value, wrong scale
        fact(cost, "2019", "-300", "USD_M", "pending", "unknown row label 'Cost'"),  # waits in review
        fact(cost, "2017", "-250", "USD_M"),  # no printed cell has that period
    ]
    tally = Tally()
    table_tally(truth, candidates, glossary, [tally])
    assert (tally.scored, tally.exact, tally.wrong_cells, tally.pending, tally.missing) == (4, 1, 1, 1, 1)
    assert sorted(w.kind for w in tally.wrong) == ["scale", "unmatched"]
    assert tally.reasons == {"unknown row label '…'": 1}


def test_the_benchmark_prints_a_row_per_format_and_table_set() -> None:
    from benchmarks import tables_bench
    from benchmarks.report import markdown as bench_markdown

    _items()
    result = tables_bench.run(limit=5)
    assert (result["tables"], set(result["formats"])) == (5, set(FORMATS))
    assert all(figures["all"]["tables"] == 5 for figures in result["formats"].values())
    rows = tables_bench.markdown(result).splitlines()[2:]
    assert [row.split(" |")[0] for row in rows] == [
        f"| {fmt}, {which}" for which in ("all", "selected") for fmt in FORMATS
    ]
    assert bench_markdown({"tables": result}).count("| TAT-QA tables as ") == 2 * len(FORMATS)


# -- the product on real layouts (slow: every table rendered and read, once per format) -------------


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_no_wrong_approved_fact_in_the_selected_tables(fmt: str) -> None:
    figures = _score(fmt).selected
    listed = "\n".join(str(w) for w in figures.wrong[:40])
    assert not figures.wrong, f"{len(figures.wrong)} wrong approved facts in {fmt}, e.g.:\n{listed}"


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_at_least_95_percent_of_the_selected_cells_are_exact_approved_facts(fmt: str) -> None:
    figures = _score(fmt).selected
    assert figures.exact_share >= 0.95, (
        f"{fmt}: {figures.exact:,} of {figures.scored:,} scored cells are exact approved facts "
        f"({figures.exact_share:.1%}) in {figures.tables} selected tables"
    )


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_other_selected_cell_waits_in_review(fmt: str) -> None:
    figures = _score(fmt).selected
    expected_pending = {k: v for k, v in figures.outside_outcomes.items() if k.split()[0] in (COLLIDING, COLUMN_GROUP)}
    unreviewed = figures.missing + sum(v for k, v in expected_pending.items() if not k.endswith(" pending"))
    assert unreviewed == 0, (
        f"{fmt}: {figures.missing:,} scored cells missing (neither approved nor pending); "
        f"cells that must wait in review: {expected_pending}; "
        f"top pending reasons: {figures.reasons.most_common(5)}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_no_wrong_approved_fact_in_all_278_tables(fmt: str) -> None:
    figures = _score(fmt).all
    listed = "\n".join(str(w) for w in figures.wrong[:40])
    assert not figures.wrong, f"{len(figures.wrong)} wrong approved facts in {fmt}, e.g.:\n{listed}"
