"""Computed answers in the analyst UI: cards, the ranking chart, CSV export, language.

Result dicts come from the real engine over demo or generated facts (`computed_results`).
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import pytest
from django.test import Client

from agent.charts import chart_ranking
from agent.computed_view import computed_cards, formula_words
from agent.conversation import TURNS
from agent.export import answer_export, cell_neutralise
from core.compute import growth_compute, rank_compute, share_compute, sum_compute
from core.periods import period_parse
from core.types import FactRecord, SubTask
from facts.selectors import OrmFactStore, glossary_snapshot
from tests.agent.computed_results import computed_turn
from tests.fakes import InMemoryFactStore

FY2025, FY2024 = period_parse("FY2025"), period_parse("FY2024")


def growth_turn(question, store, glossary, metric="REVENUE", entity="ACME_GROUP"):
    return computed_turn(
        question,
        lambda lookup, label: growth_compute(lookup, SubTask(metric, entity, FY2025), label=label),
        store=store,
        glossary=glossary,
    )


def rank_turn(question, store, glossary, metric, entities, *, cleared=True):
    tasks = [SubTask(metric, e, FY2025) for e in entities]
    return computed_turn(
        question,
        lambda lookup, label: rank_compute(lookup, tasks, label=label),
        store=store,
        glossary=glossary,
        cleared=cleared,
        looked_up=tasks,
    )


def tied_store() -> InMemoryFactStore:
    """Generated figures with a tie at the top and a negative one."""
    values = {"E1": "500", "E2": "500", "E3": "120.5", "E4": "-80"}
    return InMemoryFactStore(
        [
            FactRecord("REVENUE", code, FY2025, "TOTAL", Decimal(v), "CNY_M", "gen.xlsx", f"sheet=gen!B{i}")
            for i, (code, v) in enumerate(values.items(), start=2)
        ]
    )


# -- cards (no database) ---------------------------------------------------------------------------


def test_growth_shows_its_rate_and_absolute_change_on_one_card(store, glossary) -> None:
    view = computed_cards(growth_turn("集团2025年营收同比增长多少", store, glossary), glossary)
    assert view["language"] == "zh" and view["ranking"] is None
    [card] = view["cards"]
    assert card["name"] == "营业收入同比增长率" and card["subject"] == "ACME集团"
    assert card["main"]["display"] == "+8.54%" and card["main"]["exact"].startswith("0.0854350423")
    [change] = card["alongside"]
    assert (change["label"], change["display"], change["unit_name"]) == ("变动额", "+10,110.4", "百万元")
    assert card["formulas"][0]["words"] == "(营业收入 FY2025 − 营业收入 FY2024) ÷ 营业收入 FY2024"
    assert card["formulas"][1]["words"] == "营业收入 FY2025 − 营业收入 FY2024"
    assert [(i["what"], i["shown"], i["unit_name"]) for i in card["inputs"]] == [
        ("ACME集团 · 营业收入 · FY2025", "128,450.6", "百万元"),
        ("ACME集团 · 营业收入 · FY2024", "118,340.2", "百万元"),
    ]
    assert all(i["fact"]["source"]["doc"] and i["fact"]["source"]["locator"] for i in card["inputs"])


def test_a_percentage_changes_in_points_with_no_rate(store, glossary) -> None:
    turn = growth_turn("集团2025年毛利率同比变化多少个百分点", store, glossary, metric="GROSS_MARGIN")
    [card] = computed_cards(turn, glossary)["cards"]
    assert card["main"]["display"] == "-2.2 个百分点" and card["main"]["unit_name"] == ""
    assert card["alongside"] == []


def test_a_sum_names_every_input_in_its_formula(store, glossary) -> None:
    tasks = [SubTask("REVENUE", e, FY2025) for e in ("ACME_HK", "ACME_SEA")]
    turn = computed_turn(
        "2025年香港和东南亚营收合计是多少",
        lambda lookup, label: sum_compute(lookup, tasks, label=label),
        store=store,
        glossary=glossary,
    )
    [card] = computed_cards(turn, glossary)["cards"]
    assert (card["main"]["display"], card["main"]["unit_name"]) == ("32,330.3", "百万元")
    assert card["formulas"][0]["words"] == "ACME香港营业收入 FY2025 + ACME东南亚营业收入 FY2025"
    assert card["subject"] == ""  # the inputs' entities differ: the formula names them


def test_english_questions_get_english_labels_and_names(store, glossary) -> None:
    view = computed_cards(growth_turn("What was the group's revenue growth in 2025?", store, glossary), glossary)
    [card] = view["cards"]
    assert view["language"] == "en" and view["labels"]["inputs"] == "Inputs ({count})"
    assert card["inputs_label"] == "Inputs (2)" and card["kind_label"] == "Growth"
    assert card["formulas"][0]["words"] == "(revenue FY2025 − revenue FY2024) ÷ revenue FY2024"
    assert card["alongside"][0]["label"] == "Change" and card["alongside"][0]["unit_name"] == "CNY m"
    assert card["inputs"][0]["what"] == "ACME Group · revenue · FY2025"


def test_formula_words_name_entities_and_channels_where_the_formula_does(store, glossary) -> None:
    turn = computed_turn(
        "香港2025年线上收入占比",
        lambda lookup, label: share_compute(
            lookup, SubTask("REVENUE", "ACME_HK", FY2025, "ONLINE"), SubTask("REVENUE", "ACME_HK", FY2025), label=label
        ),
        store=store,
        glossary=glossary,
    )
    [card] = computed_cards(turn, glossary)["cards"]
    assert card["formulas"][0]["words"] == "营业收入（线上） FY2025 ÷ 营业收入（合计） FY2025"
    assert card["subject"] == "ACME香港"
    assert formula_words("not a (formula", glossary, "zh") == "not a (formula"


def test_a_turn_without_computed_values_has_no_cards(store, glossary) -> None:
    turn = growth_turn("集团2025年营收同比增长多少", store, glossary)
    turn["result"].pop("computed")
    assert computed_cards(turn, glossary) is None


# -- ranking ---------------------------------------------------------------------------------------


def test_a_ranking_is_one_chart_in_rank_order_with_the_missing_listed(store, glossary) -> None:
    turn = rank_turn("2025年哪个地区净资产收益率最高", store, glossary, "ROE", ["ACME_CN", "ACME_HK", "ACME_SEA"])
    view = computed_cards(turn, glossary)
    assert view["cards"] == []  # no card per rank
    ranking = view["ranking"]
    bars = ranking["chart"]["bars"]
    assert [(b["rank"], b["label"], b["value"]) for b in bars] == [(1, "ACME香港", "11.8%")]
    assert ranking["missing"] == ["ACME中国内地", "ACME东南亚"]
    assert ranking["title"] == "FY2025 净资产收益率排名（从高到低，共 1 项）"


def test_ranking_rows_carry_ties_and_negative_figures(glossary) -> None:
    turn = rank_turn("2025年各公司营收排名", tied_store(), glossary, "REVENUE", ["E3", "E4", "E1", "E2"])
    ranking = computed_cards(turn, glossary)["ranking"]
    bars = ranking["chart"]["bars"]
    assert [(b["rank"], b["tied"], b["value"]) for b in bars] == [
        (1, True, "500 · 并列"),
        (1, True, "500 · 并列"),
        (3, False, "120.5"),
        (4, False, "-80"),
    ]
    zero = ranking["chart"]["zero_x"]
    assert all(b["x"] == zero for b in bars[:3]) and not any(b["negative"] for b in bars[:3])
    negative = bars[3]
    assert negative["negative"] and negative["x"] + negative["width"] == pytest.approx(zero, abs=0.2)
    assert negative["value_x"] > zero  # written right of the zero line, clear of the labels
    assert bars[0]["width"] > bars[2]["width"] > negative["width"]


def test_a_ranking_without_its_ranked_figures_is_still_listed_in_order(glossary) -> None:
    turn = rank_turn("2025年各公司营收排名", tied_store(), glossary, "REVENUE", ["E1", "E2", "E3", "E4"])
    for item in turn["result"]["computed"]:
        del item["ranked_value"], item["ranked_display"]
    drawn = computed_cards(turn, glossary)["ranking"]
    assert [b["value"] for b in drawn["chart"]["bars"]] == ["500 · 并列", "500 · 并列", "120.5", "-80"]
    turn["result"]["facts"] = []
    listed = computed_cards(turn, glossary)["ranking"]
    assert listed["chart"] is None
    assert [(r["rank"], r["label"], r["tied"]) for r in listed["rows"]] == [
        (1, "E1", True),
        (1, "E2", True),
        (3, "E3", False),
        (4, "E4", False),
    ]


def test_chart_ranking_draws_all_negative_bars_left_of_zero_and_caps_long_lists() -> None:
    rows = [
        {"rank": i + 1, "label": f"实体{i}", "value": Decimal(-i - 1), "display": str(-i - 1), "tied": False}
        for i in range(40)
    ]
    chart = chart_ranking(rows, tie_mark="并列")
    assert len(chart["bars"]) == 30 and chart["omitted"] == 10
    assert all(b["x"] + b["width"] == pytest.approx(chart["zero_x"], abs=0.2) for b in chart["bars"])
    assert chart["zero_x"] <= chart["width"]
    long = [
        {
            "rank": 1,
            "label": "一个名字非常非常非常长的子公司有限责任公司",
            "value": Decimal(1),
            "display": "1",
            "tied": False,
        }
    ]
    bar = chart_ranking(long, tie_mark="tied")["bars"][0]
    assert bar["label"].endswith("…") and bar["full_label"] == long[0]["label"]


# -- pages (Django client, demo database) ----------------------------------------------------------


@pytest.fixture
def web(demo) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst_cleared"])
    return client


def seed(client: Client, *turns) -> None:
    session = client.session
    session[TURNS] = list(turns)
    session.save()


def db_turn_growth():
    return growth_turn("集团2025年营收同比增长多少", OrmFactStore(), glossary_snapshot())


@pytest.mark.django_db
def test_the_page_shows_the_card_with_inputs_linked_to_their_documents(web: Client) -> None:
    seed(web, db_turn_growth())
    body = web.get("/").content.decode()
    card = body[
        body.index('<section class="computed"') : body.index("</section>", body.index('<section class="computed"'))
    ]
    assert '<span class="computed-value" title="精确值 0.0854350423' in card and "+8.54%" in card
    assert "变动额</span> <b" in card and "+10,110.4" in card and "营业收入 FY2025 − 营业收入 FY2024" in card
    assert '<details class="computed-inputs">' in card and "输入数据（2 项）" in card
    assert "128,450.6 百万元" in card and "118,340.2 百万元" in card
    links = re.findall(r'href="/documents/(\d+)/\?at=([^"]+)"', card)
    assert len(links) == 2


@pytest.mark.django_db
def test_the_ranking_renders_one_bar_per_row_in_order_with_negative_bars(web: Client) -> None:
    turn = rank_turn(
        "2025年哪个公司净利润最高",
        OrmFactStore(),
        glossary_snapshot(),
        "NET_PROFIT",
        ["ACME_SEA", "ACME_GROUP", "ACME_CN"],
    )
    seed(web, turn)
    body = web.get("/").content.decode()
    figure = body[
        body.index('<figure class="ranking">') : body.index("</figure>", body.index('<figure class="ranking">'))
    ]
    labels = re.findall(r'class="label">([^<]+)</text>', figure)
    assert labels == ["ACME集团", "ACME东南亚"]
    assert re.findall(r'class="value">([^<]+)</text>', figure) == ["6,811.9", "-1,402.6"]
    assert figure.count('class="bar"') == 1 and figure.count('class="bar negative"') == 1
    assert "缺少数据，未参与排名：ACME中国内地" in figure
    assert 'class="chart"' not in body  # the ranking replaces the plain bar chart


@pytest.mark.django_db
def test_the_page_labels_an_english_turn_in_english(web: Client) -> None:
    seed(web, growth_turn("What was the group's revenue growth in 2025?", OrmFactStore(), glossary_snapshot()))
    body = web.get("/").content.decode()
    assert '<section class="computed" lang="en"' in body and "Inputs (2)" in body
    assert "(revenue FY2025 − revenue FY2024) ÷ revenue FY2024" in body and "Source: " in body


# -- CSV export ------------------------------------------------------------------------------------


def test_csv_rows_hold_the_facts_then_each_computed_value_with_its_inputs(store, glossary) -> None:
    result = growth_turn("集团2025年营收同比增长多少", store, glossary)["result"]
    rows = answer_export(result)
    assert rows[0][:5] == ["entity", "metric", "period", "channel", "value"] and len(rows[1]) == 9
    blank = rows.index([])
    assert rows[blank + 1][:8] == ["item", "row", "kind", "name", "formula", "value", "display", "unit"]
    computed = [r for r in rows[blank + 2 :] if r[1] == "computed"]
    inputs = [r for r in rows[blank + 2 :] if r[1] == "input"]
    assert [r[2:8] for r in computed] == [
        [
            "growth",
            "营业收入同比增长率",
            "(REVENUE[FY2025] - REVENUE[FY2024]) / REVENUE[FY2024]",
            result["computed"][0]["value"],
            "8.54%",
            "PCT",
        ],
        ["growth", "营业收入同比变动额", "REVENUE[FY2025] - REVENUE[FY2024]", "10110.4", "10,110.4", "CNY_M"],
    ]
    assert len(inputs) == 4
    assert inputs[0][5] == "128450.6" and inputs[0][7:12] == ["CNY_M", "REVENUE", "ACME_GROUP", "FY2025", "TOTAL"]
    assert inputs[1][5] == "118340.2" and inputs[1][12] and inputs[1][13]
    # recomputable: the inputs' values give the exact change
    assert Decimal(inputs[0][5]) - Decimal(inputs[1][5]) == Decimal(computed[1][5])


def test_csv_rows_of_a_ranking_carry_the_ranked_value(glossary) -> None:
    result = rank_turn("2025年各公司营收排名", tied_store(), glossary, "REVENUE", ["E1", "E2", "E3", "E4"])["result"]
    rows = answer_export(result)
    ranked = [r for r in rows if len(r) > 2 and r[1] == "computed"]
    assert [(r[5], r[14]) for r in ranked] == [("1", "500"), ("1", "500"), ("3", "120.5"), ("4", "-80")]


def test_cells_that_a_spreadsheet_would_run_are_neutralised() -> None:
    assert cell_neutralise('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert [cell_neutralise(t) for t in ("+1+1", "@SUM(A1)", "\tx", "-2.2 个百分点")] == [
        "'+1+1",
        "'@SUM(A1)",
        "'\tx",
        "'-2.2 个百分点",
    ]
    assert [cell_neutralise(t) for t in ("-1402.6", "-80", "(A - B) / B", None)] == [
        "-1402.6",
        "-80",
        "(A - B) / B",
        "",
    ]


@pytest.mark.django_db
def test_the_csv_download_holds_computed_rows_and_inputs(web: Client) -> None:
    seed(web, db_turn_growth())
    response = web.get("/turns/0/facts.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][0] == "entity" and ["", ""] not in rows
    kinds = [r[1] for r in rows if len(r) == 15]
    assert kinds == ["row", "computed", "input", "input", "computed", "input", "input"]


@pytest.mark.django_db
def test_the_csv_download_neutralises_formula_cells(web: Client) -> None:
    turn = db_turn_growth()
    result = turn["result"]
    result["facts"][0]["source"]["doc"] = '=HYPERLINK("http://evil","x")'
    result["facts"][1]["value"] = "-118340.2"
    seed(web, turn)
    text = web.get("/turns/0/facts.csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][6] == '\'=HYPERLINK("http://evil","x")' and rows[2][4] == "-118340.2"
    assert not any(cell.startswith("=") for row in rows for cell in row)
