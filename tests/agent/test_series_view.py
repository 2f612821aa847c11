"""Series answers in the analyst UI and the CSV export: a table and a line
chart over every period of the range in order, a missing period named in its row and marked in
the line, growth per step in the table when it was asked, English labels for an English question.

Every turn comes from the real pipeline (`answer_question`) over the demo facts or generated ones;
the page tests ask through the ask view over the demo database.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.page.charts import chart_line, figure_width, label_box
from agent.page.export import SERIES_HEADER, answer_export
from agent.page.series import answer_series, period_previous
from agent.serialize import answer_from_json
from core.language.periods import period_parse
from tests.agent.computed_results import pipeline_answer, series_of, turn_of
from tests.core.support.computing import fact
from tests.fakes import InMemoryFactStore

ZH_GROWTH = "集团2021至2025年各年营收，每年增长多少"
EN_GROWTH = "Southeast Asia revenue growth for each year from 2022 to 2025"


def series_turn(question, store, glossary):
    turn = turn_of(pipeline_answer(question, store=store, glossary=glossary))
    series = answer_series(answer_from_json(turn["result"]))
    return turn, series


def revenue_store(figures: dict[str, str]) -> InMemoryFactStore:
    return InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v) for p, v in figures.items()])


# -- the series (no database) ----------------------------------------------------------------------


def test_a_range_lists_every_period_in_order_with_the_missing_one_and_each_step(store, glossary) -> None:
    turn, series = series_turn(ZH_GROWTH, store, glossary)
    assert series is not None and (series.metric, series.entity, series.channel) == ("REVENUE", "ACME_GROUP", "TOTAL")
    assert [(r.period.label, r.status, None if r.value is None else str(r.value)) for r in series.rows] == [
        ("FY2021", "missing", None),
        ("FY2022", "found", "98215.4"),
        ("FY2023", "found", "106872.9"),
        ("FY2024", "found", "118340.2"),
        ("FY2025", "found", "128450.6"),
    ]
    assert [r.rate.display if r.rate else None for r in series.rows] == [None, None, "8.81%", "10.73%", "8.54%"]
    assert [r.change.value_text if r.change else None for r in series.rows] == [
        None,
        None,
        "8657.5",
        "11467.3",
        "10110.4",
    ]
    assert series.steps == tuple(range(len(turn["result"]["computed"])))  # every step sits in the table
    assert all(r.fact.doc and r.fact.locator for r in series.rows if r.fact)


def test_the_first_steps_base_leads_as_a_base_row(store, glossary) -> None:
    _, series = series_turn("集团近三年营收每年增长多少", store, glossary)
    assert [(r.period.label, r.base) for r in series.rows] == [
        ("FY2022", True),
        ("FY2023", False),
        ("FY2024", False),
        ("FY2025", False),
    ]
    assert series.rows[0].rate is None and series.rows[1].rate.display == "8.81%"


@pytest.mark.parametrize(
    "question",
    [
        "集团2024年和2025年营收对比",  # two periods: a comparison, its bar chart and difference line
        "集团2025年营收同比增长多少",  # one step
        "集团近三年哪一年营收最高",  # a ranking keeps its bar chart
        "集团近三年营收的复合增长率",  # the range's ends only
        "2025年香港和东南亚营收合计是多少",  # several entities
    ],
)
def test_what_is_no_series_gets_none(question: str, store, glossary) -> None:
    assert series_turn(question, store, glossary)[1] is None


def test_a_question_asked_back_shows_no_series(store, glossary) -> None:
    turn, series = series_turn(ZH_GROWTH, store, glossary)
    assert series is not None
    for mode in ("ask_first", "out_of_scope_entity"):
        asked = {**turn["result"], "clarification": {**turn["result"]["clarification"], "mode": mode}}
        assert answer_series(answer_from_json(asked)) is None


def test_a_year_not_stored_is_derived_in_its_row_and_two_that_disagree_are_both_kept(glossary) -> None:
    quarters = {"2024Q1": "10", "2024Q2": "20", "2024Q3": "30", "2024Q4": "40"}
    agreeing = revenue_store({"FY2023": "90", "FY2025": "120", **quarters})
    _, series = series_turn("集团2023到2025年每年的营收", agreeing, glossary)
    derived = series.rows[1]
    assert (derived.period.label, derived.status, str(derived.value)) == ("FY2024", "derived", "100")
    assert [d.formula for d in derived.derived] == [
        "REVENUE[2024Q1] + REVENUE[2024Q2] + REVENUE[2024Q3] + REVENUE[2024Q4]"
    ]
    disagreeing = revenue_store({"FY2023": "90", "FY2025": "120", "2024H1": "25", "2024H2": "70", **quarters})
    turn, series = series_turn("集团2023到2025年每年的营收", disagreeing, glossary)
    row = series.rows[1]
    assert row.status == "derived" and row.value is None  # neither is picked
    assert sorted(d.value_text for d in row.derived) == ["100", "95"]
    view = series_of(turn, series, glossary)
    shown = view.rows[1]
    assert shown.disagree and [d.display for d in shown.derived] == ["95", "100"]
    assert [p["missing"] for p in view.chart["points"]] == [False, True, False]  # no value drawn for it


def test_period_previous_steps_back_one_period_of_its_type() -> None:
    labels = {"FY2024": "FY2023", "2025H1": "2024H2", "2025H2": "2025H1", "2025Q1": "2024Q4", "2025Q3": "2025Q2"}
    assert {k: period_previous(period_parse(k)).label for k in labels} == labels


# -- the view ---------------------------------------------------------------------------------------


def test_the_view_names_the_missing_period_and_breaks_the_line_there(glossary) -> None:
    store = revenue_store({"FY2021": "80.5", "FY2022": "90", "FY2024": "110", "FY2025": "120"})
    turn, series = series_turn("集团2021到2025年每年的营收", store, glossary)
    view = series_of(turn, series, glossary)
    assert [r.period for r in view.rows] == ["FY2021", "FY2022", "FY2023", "FY2024", "FY2025"]
    assert [r.shown for r in view.rows] == ["80.5", "90", "", "110", "120"]
    assert view.rows[2].missing and view.missing == "缺失 1 期：FY2023"
    assert view.subject == "ACME集团营业收入" and view.range == "FY2021–FY2025"
    assert view.value_unit == "（百万元）" and not view.rates and not view.changes
    chart = view.chart
    assert len(chart["segments"]) == 2  # FY2021–FY2022, then FY2024–FY2025
    assert [p["label"] for p in chart["points"]] == [r.period for r in view.rows]
    assert chart["points"][2]["missing"] and chart["missing_mark"] == "缺失"


def test_an_english_question_gets_english_labels(store, glossary) -> None:
    turn, series = series_turn(EN_GROWTH, store, glossary)
    view = series_of(turn, series, glossary)
    assert view.language == "en" and view.subject == "Southeast Asia revenue"
    assert (view.labels["period"], view.labels["source"], view.labels["rate"]) == (
        "Period",
        "Source",
        "Growth",
    )
    assert view.value_unit == " (CNY m)" and view.change_unit == " (CNY m)"
    assert view.missing == "1 missing: FY2022" and view.chart["missing_mark"] == "missing"
    assert [(r.period, r.rate, r.change) for r in view.rows] == [
        ("FY2022", "", ""),
        ("FY2023", "", ""),
        ("FY2024", "+55.61%", "+1,861.0"),
        ("FY2025", "+59.66%", "+3,107.0"),
    ]
    assert view.rows[2].rate_formula == "(revenue FY2024 − revenue FY2023) ÷ revenue FY2023"
    assert view.steps_label == "Formulas of the growth per step (2)"


def test_a_percentage_series_shows_its_change_in_points_and_no_rate(store, glossary) -> None:
    turn, series = series_turn("集团2022到2025年毛利率每年变化多少", store, glossary)
    if series is None:
        pytest.skip("the parser reads no per-step change of a margin here")
    view = series_of(turn, series, glossary)
    assert not view.rates and view.change_unit == ""
    assert all(r.change.endswith("个百分点") for r in view.rows[1:] if r.change)


# -- the line chart ---------------------------------------------------------------------------------


def points(values: list[str | None]) -> list[dict]:
    return [
        {
            "label": f"FY{2000 + i}",
            "value": Decimal(v) if v is not None else None,
            "display": f"{Decimal(v):,f}" if v is not None else "",
        }
        for i, v in enumerate(values)
    ]


def test_a_chart_of_nothing_is_none_and_negative_values_draw_below_zero() -> None:
    assert chart_line(points([None, None]), missing_mark="缺失") is None
    chart = chart_line(points(["-50", "100", "-20"]), missing_mark="缺失")
    ys = [p["y"] for p in chart["points"]]
    assert ys[0] > chart["zero_y"] > ys[1] and ys[2] > chart["zero_y"]
    assert all(p["value_y"] <= chart["height"] - 24 for p in chart["points"])  # clear of the period labels


def boxes_of(chart: dict) -> list[tuple[float, float, float, float]]:
    return [
        label_box(p["value_x"], p["value_y"], p["value_anchor"], figure_width(p["display"]))
        for p in chart["points"]
        if p["value_shown"]
    ]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.none(), st.decimals(-(10**6), 10**6, places=1)), min_size=2, max_size=12))
def test_every_period_is_placed_in_order_gaps_break_the_line_and_labels_never_overlap(values) -> None:
    given_points = points([str(v) if v is not None else None for v in values])
    chart = chart_line(given_points, missing_mark="missing")
    if all(v is None for v in values):
        assert chart is None
        return
    marks = chart["points"]
    assert [m["label"] for m in marks] == [p["label"] for p in given_points]  # each once, in order
    assert [m["missing"] for m in marks] == [v is None for v in values]
    xs = [m["x"] for m in marks]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    runs = len([run for run in re.split(r"n", "".join("v" if v is not None else "n" for v in values)) if run])
    assert len(chart["segments"]) == runs
    assert all(0 <= m["x"] <= chart["width"] for m in marks)
    assert 13 * chart["phone"] / chart["width"] >= 9.5  # shrunk on a phone, its text stays readable
    assert any(m["value_shown"] for m in marks)
    assert all(m["label_shown"] for m in marks if m["missing"]) or len(values) > 8
    boxes = boxes_of(chart)
    for i, a in enumerate(boxes):
        assert a[0] >= -1 and a[2] <= chart["width"] + 1 and a[1] >= 0  # inside the drawing
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


# -- CSV export -------------------------------------------------------------------------------------


def test_the_csv_holds_the_series_in_order_with_sources_and_each_step(store, glossary) -> None:
    result = turn_of(pipeline_answer(ZH_GROWTH, store=store, glossary=glossary))["result"]
    rows = answer_export(answer_from_json(result))
    at = rows.index(SERIES_HEADER)
    assert rows[at - 1] == []
    series = rows[at + 1 : at + 6]
    assert [r[:3] for r in series] == [
        ["FY2021", "missing", ""],
        ["FY2022", "found", "98215.4"],
        ["FY2023", "found", "106872.9"],
        ["FY2024", "found", "118340.2"],
        ["FY2025", "found", "128450.6"],
    ]
    assert rows[at + 6] == []  # then the computed section, with every step's inputs
    head = dict(zip(SERIES_HEADER, series[2], strict=True))
    stored = next(f for f in result["facts"] if f["period"] == "FY2023")
    assert (head["unit"], head["source_doc"], head["locator"]) == (
        "CNY_M",
        stored["source"]["doc"],
        stored["source"]["locator"],
    )
    assert head["source_doc"] and head["locator"]
    assert (
        head["growth_display"] == "8.81%"
        and head["growth_formula"] == "(REVENUE[FY2023] - REVENUE[FY2022]) / REVENUE[FY2022]"
    )
    assert head["change"] == "8657.5" and Decimal(series[2][2]) - Decimal(series[1][2]) == Decimal(head["change"])
    rate = (Decimal(series[2][2]) - Decimal(series[1][2])) / Decimal(series[1][2])
    assert abs(Decimal(head["growth"]) - rate) < Decimal("1e-20")  # recomputable from the rows above


def test_the_csv_lists_a_sum_over_the_range_with_its_formula(store, glossary) -> None:
    result = turn_of(pipeline_answer("集团2022到2025年营收合计", store=store, glossary=glossary))["result"]
    rows = answer_export(answer_from_json(result))
    at = rows.index(SERIES_HEADER)
    assert [r[0] for r in rows[at + 1 : at + 5]] == ["FY2022", "FY2023", "FY2024", "FY2025"]
    [total] = [r for r in rows if len(r) > 2 and r[1] == "computed"]
    assert total[2] == "sum" and total[4].count("+") == 3
    assert Decimal(total[5]) == sum(Decimal(r[2]) for r in rows[at + 1 : at + 5])


def test_a_derived_period_exports_each_derivation_with_its_formula(glossary) -> None:
    quarters = {"2024Q1": "10", "2024Q2": "20", "2024Q3": "30", "2024Q4": "40", "2024H1": "25", "2024H2": "70"}
    store = revenue_store({"FY2023": "90", "FY2025": "120", **quarters})
    result = turn_of(pipeline_answer("集团2023到2025年每年的营收", store=store, glossary=glossary))["result"]
    rows = answer_export(answer_from_json(result))
    at = rows.index(SERIES_HEADER)
    derived = [dict(zip(SERIES_HEADER, r, strict=True)) for r in rows[at + 1 :] if r and r[1] == "derived"]
    assert {(d["series_period"], d["value"]) for d in derived} == {("FY2024", "95"), ("FY2024", "100")}
    assert all(d["formula"] and not d["source_doc"] for d in derived)


# -- pages (Django client, demo database) ----------------------------------------------------------


@pytest.fixture
def web(demo) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst"])
    return client


def ask_fragment(client: Client, question: str) -> str:
    response = client.post("/ask", {"question": question}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_the_page_shows_the_series_table_and_line_instead_of_the_facts_table(web: Client) -> None:
    body = ask_fragment(web, ZH_GROWTH)
    assert "<html" not in body  # only the fragment
    series = body[
        body.index('<section class="series"') : body.index("</section>", body.index('<section class="series"'))
    ]
    assert re.findall(r'<tr class="series-row [^"]*" data-period="([^"]+)"', series) == [
        "FY2021",
        "FY2022",
        "FY2023",
        "FY2024",
        "FY2025",
    ]
    assert '<span class="missing-mark">缺失</span>' in series and "缺失 1 期：FY2021" in series
    assert series.count('<polyline class="line"') == 1 and series.count('<circle class="point"') == 4
    assert "+8.81%" in series and "+10,110.4" in series and "每期增长的公式（3 项）" in series
    assert re.search(r'href="/documents/\d+/\?at=sheet%3DACME', series)
    assert '<table class="facts">' not in body and '<figure class="chart">' not in body
    assert 'class="computed-card' not in body  # the steps are in the table, not a card each


@pytest.mark.django_db
def test_the_page_keeps_the_bar_chart_for_a_comparison_and_a_ranking(web: Client) -> None:
    assert '<figure class="chart">' in ask_fragment(web, "集团2024年和2025年营收对比")
    ranking = ask_fragment(web, "集团近三年哪一年营收最高")
    assert '<figure class="ranking">' in ranking and '<section class="series"' not in ranking


@pytest.mark.django_db
def test_an_english_answer_labels_its_panel_in_english(web: Client) -> None:
    body = ask_fragment(web, EN_GROWTH)
    series = body[body.index('<section class="series"') :]
    assert '<section class="series" lang="en"' in body
    assert '<th scope="col">Period</th>' in series and ">Source</th>" in series and ">Growth</th>" in series
    assert '<span class="missing-mark">missing</span>' in series and "1 missing: FY2022" in series
    assert ">Export CSV</a>" in body and ">Data</span>" in body
    assert "导出 CSV" not in body and "来源" not in re.sub(r"<code>[^<]*</code>|sheet=[^\"<]*", "", series)


@pytest.mark.django_db
def test_the_csv_download_of_a_series_holds_its_rows(web: Client) -> None:
    web.post("/ask", {"question": ZH_GROWTH})
    rows = list(csv.reader(io.StringIO(web.get("/turns/0/facts.csv").content.decode("utf-8-sig"))))
    at = rows.index(SERIES_HEADER)
    assert [r[:2] for r in rows[at + 1 : at + 6]] == [
        ["FY2021", "missing"],
        ["FY2022", "found"],
        ["FY2023", "found"],
        ["FY2024", "found"],
        ["FY2025", "found"],
    ]
