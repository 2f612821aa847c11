"""Computed answers in the analyst UI: cards, the ranking chart, CSV export, language.

Every turn comes from the real pipeline: the page tests ask through the ask view over the demo
database; the card tests ask `answer_question` over the demo facts; ties, negative totals and
hostile source names come from the same pipeline over generated facts (`computed_results`),
stored through the conversation store where a page shows them.
"""

from __future__ import annotations

import csv
import io
import re
import uuid
from decimal import Decimal, localcontext

import pytest
from django.test import Client

from agent.page.charts import chart_ranking
from agent.page.export import answer_export, cell_neutralise
from agent.page.views import CONVERSATION
from agent.serialize import answer_from_json
from core.engine.formula import decimal_context
from core.language.periods import period_parse
from core.model.facts import FactRecord
from facts.selectors import glossary_snapshot
from tests.agent.computed_results import cards_of, generated_store, pipeline_answer, turn_of, turn_seed
from tests.fakes import InMemoryFactStore

FY2025, FY2024 = period_parse("FY2025"), period_parse("FY2024")
TIED_QUESTION = "2025年香港、东南亚、集团和中国内地营收排名"


def card_turn(question, store, glossary):
    return turn_of(pipeline_answer(question, store=store, glossary=glossary))


def tied_store() -> InMemoryFactStore:
    """Generated figures with a tie at the top and a negative one."""
    return generated_store("REVENUE", {"ACME_GROUP": "500", "ACME_CN": "500", "ACME_HK": "120.5", "ACME_SEA": "-80"})


# -- cards (no database) ---------------------------------------------------------------------------


def test_growth_shows_its_rate_and_absolute_change_on_one_card(store, glossary) -> None:
    view = cards_of(card_turn("集团2025年营收同比增长多少", store, glossary), glossary)
    assert view.language == "zh" and view.ranking is None
    [card] = view.cards
    assert card.name == "营业收入同比增长率" and card.subject == "ACME集团 · FY2025"
    assert card.main.display == "+8.54%" and card.main.exact.startswith("0.0854350423")
    [change] = card.alongside
    assert (change.label, change.display, change.unit_name) == ("变动额", "+10,110.4", "百万元")
    assert card.formulas[0].words == "(营业收入 FY2025 − 营业收入 FY2024) ÷ 营业收入 FY2024"
    assert card.formulas[1].words == "营业收入 FY2025 − 营业收入 FY2024"
    assert [(i.what, i.shown, i.unit_name) for i in card.inputs] == [
        ("ACME集团 · 营业收入 · FY2025", "128,450.6", "百万元"),
        ("ACME集团 · 营业收入 · FY2024", "118,340.2", "百万元"),
    ]
    assert all(i.fact.doc and i.fact.locator for i in card.inputs)


def test_a_percentage_changes_in_points_with_no_rate(store, glossary) -> None:
    turn = card_turn("集团2025年毛利率同比变化多少个百分点", store, glossary)
    [card] = cards_of(turn, glossary).cards
    assert card.main.display == "-2.2 个百分点" and card.main.unit_name == ""
    assert card.alongside == ()


def test_a_sum_names_every_input_in_its_formula(store, glossary) -> None:
    turn = card_turn("2025年香港和东南亚营收合计是多少", store, glossary)
    [card] = cards_of(turn, glossary).cards
    assert (card.main.display, card.main.unit_name) == ("32,330.3", "百万元")
    assert card.formulas[0].words == "ACME香港营业收入 FY2025 + ACME东南亚营业收入 FY2025"
    assert card.subject == "FY2025"  # the inputs' entities differ: the formula names them


def test_english_questions_get_english_labels_and_names(store, glossary) -> None:
    view = cards_of(card_turn("What was the group's revenue growth in 2025?", store, glossary), glossary)
    [card] = view.cards
    assert view.language == "en" and view.labels["inputs"] == "Inputs ({count})"
    assert card.inputs_label == "Inputs (2)" and card.kind_label == "Growth"
    assert card.formulas[0].words == "(revenue FY2025 − revenue FY2024) ÷ revenue FY2024"
    assert card.alongside[0].label == "Change" and card.alongside[0].unit_name == "CNY m"
    assert card.inputs[0].what == "ACME Group · revenue · FY2025"


def test_formula_words_name_entities_and_channels_where_the_formula_does(store, glossary) -> None:
    turn = card_turn("香港2025年线上收入占比", store, glossary)
    [card] = cards_of(turn, glossary).cards
    assert card.formulas[0].words == "营业收入（线上） FY2025 ÷ 营业收入（合计） FY2025"
    assert card.subject == "ACME香港 · FY2025"
    del turn["result"]["computed"][0]["formula_words"]  # a turn stored before items carried their words
    [older] = cards_of(turn, glossary).cards
    assert older.formulas[0].words == turn["result"]["computed"][0]["formula"]


def test_a_turn_without_computed_values_has_no_cards(store, glossary) -> None:
    turn = card_turn("集团2025年营收同比增长多少", store, glossary)
    turn["result"].pop("computed")
    assert cards_of(turn, glossary) is None


# -- ranking ---------------------------------------------------------------------------------------


def test_a_ranking_is_one_chart_in_rank_order_with_the_missing_listed(glossary) -> None:
    store = generated_store("REVENUE", {"ACME_HK": "120.5", "ACME_CN": "500"})
    view = cards_of(card_turn("2025年哪个地区营收最高", store, glossary), glossary)
    assert view.cards == ()  # no card per rank
    ranking = view.ranking
    bars = ranking.chart["bars"]
    assert [(b["rank"], b["label"], b["value"]) for b in bars] == [(1, "ACME中国内地", "500"), (2, "ACME香港", "120.5")]
    assert ranking.missing == ("ACME东南亚",)
    assert ranking.title == "FY2025 营业收入排名（从高到低，3 项中有 2 项有该数据）"  # as the answer says it


def test_a_complete_ranking_card_counts_what_it_ranked(glossary) -> None:
    zh = cards_of(card_turn(TIED_QUESTION, tied_store(), glossary), glossary).ranking
    assert zh.title == "FY2025 营业收入排名（从高到低，共 4 项）" and zh.missing == ()
    store = generated_store("REVENUE", {"ACME_HK": "120.5", "ACME_CN": "500"})
    en = cards_of(card_turn("Which region had the highest revenue in 2025?", store, glossary), glossary)
    assert en.ranking.title == "revenue FY2025 ranking (highest first; 2 of 3 items have the figure)"


def test_a_lone_figure_draws_no_ranking_of_one(store, glossary) -> None:
    turn = card_turn("2025年哪个地区净资产收益率最高", store, glossary)
    assert cards_of(turn, glossary) is None  # one figure of three is a value, not a first place
    assert turn["result"]["answer"].startswith("FY2025 净资产收益率：3 项中只有 1 项有该数据，无法排名。")


def test_ranking_rows_carry_ties_and_negative_figures(glossary) -> None:
    turn = card_turn(TIED_QUESTION, tied_store(), glossary)
    ranking = cards_of(turn, glossary).ranking
    bars = ranking.chart["bars"]
    assert [(b["rank"], b["label"], b["tied"], b["value"]) for b in bars] == [
        (1, "ACME集团", True, "500 · 并列"),
        (1, "ACME中国内地", True, "500 · 并列"),
        (3, "ACME香港", False, "120.5"),
        (4, "ACME东南亚", False, "-80"),
    ]
    zero = ranking.chart["zero_x"]
    assert all(b["x"] == zero for b in bars[:3]) and not any(b["negative"] for b in bars[:3])
    negative = bars[3]
    assert negative["negative"] and negative["x"] + negative["width"] == pytest.approx(zero, abs=0.2)
    assert negative["value_x"] > zero  # written right of the zero line, clear of the labels
    assert bars[0]["width"] > bars[2]["width"] > negative["width"]


def test_a_ranking_without_its_ranked_figures_is_still_listed_in_order(glossary) -> None:
    turn = card_turn(TIED_QUESTION, tied_store(), glossary)
    for item in turn["result"]["computed"]:
        del item["ranked_value"], item["ranked_display"]
    drawn = cards_of(turn, glossary).ranking
    assert [b["value"] for b in drawn.chart["bars"]] == ["500 · 并列", "500 · 并列", "120.5", "-80"]
    turn["result"]["facts"] = []
    listed = cards_of(turn, glossary).ranking
    assert listed.chart is None
    assert [(r.rank, r.label, r.tied) for r in listed.rows] == [
        (1, "ACME集团", True),
        (1, "ACME中国内地", True),
        (3, "ACME香港", False),
        (4, "ACME东南亚", False),
    ]


def test_rank_items_carry_their_order_count_and_metric_as_fields(glossary) -> None:
    store = generated_store("REVENUE", {"ACME_HK": "120.5", "ACME_CN": "500", "ACME_SEA": "80"})
    turn = card_turn("2025年哪个地区营收最低", store, glossary)
    items = turn["result"]["computed"]
    assert [(i["order"], i["count"], i["ranked_metric"]) for i in items] == [("asc", 3, "REVENUE")] * 3
    title = cards_of(turn, glossary).ranking.title
    assert title == "FY2025 营业收入排名（从低到高，共 3 项）"
    for item in items:  # the view reads the fields, never the formula's text
        item["formula"] = "rank"
    assert cards_of(turn, glossary).ranking.title == title


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
    """The page as `analyst_cleared`, who may see RESTRICTED facts (Southeast Asia's net profit)."""
    client = Client()
    client.force_login(demo["users"]["analyst_cleared"])
    return client


def page_ask(client: Client, question: str) -> str:
    """Ask through the page's form as a plain post, then return the page the redirect leads to."""
    response = client.post("/ask", {"question": question})
    assert response.status_code == 302, response.content.decode()[:400]
    return client.get("/").content.decode()


def page_seed(client: Client, user, result) -> str:
    """Store `result` as the first turn of a new conversation, make it the page's, return the page."""
    external_id = uuid.uuid4().hex
    turn_seed(user=user, external_id=external_id, result=result)
    session = client.session
    session[CONVERSATION] = external_id
    session.save()
    return client.get("/").content.decode()


def last_part(body: str, start: str, end: str) -> str:
    """The last turn's `start` … `end` part of the page."""
    at = body.rindex(start)
    return body[at : body.index(end, at)]


def ranking_of(body: str) -> tuple[str, list[str], list[str]]:
    """The last ranking figure, its bar labels and its bar values, top first."""
    figure = last_part(body, '<figure class="ranking">', "</figure>")
    labels = re.findall(r'class="label">([^<]+)</text>', figure)
    return figure, labels, re.findall(r'class="value">([^<]+)</text>', figure)


@pytest.mark.django_db
def test_the_page_shows_the_card_then_its_inputs_linked_to_their_documents(web: Client) -> None:
    body = page_ask(web, "集团2025年营收同比增长多少")
    card = last_part(body, '<section class="computed"', "</section>")
    assert '<span class="computed-value" title="精确值 0.0854350423' in card and "+8.54%" in card
    assert "变动额</span> <b" in card and "+10,110.4" in card and "营业收入 FY2025 − 营业收入 FY2024" in card
    # the inputs are listed once, in the panel's collapsible table with their sources
    assert '<details class="computed-inputs">' not in card
    inputs = last_part(body, '<details class="answer-inputs">', "</table>")
    assert "数据与来源（2 项）" in inputs and "128,450.6" in inputs and "118,340.2" in inputs
    links = re.findall(r'href="/documents/(\d+)/\?at=([^"]+)"', inputs)
    assert len(links) == 2


@pytest.mark.django_db
def test_a_formula_metric_shows_its_ratio_card(web: Client) -> None:
    body = page_ask(web, "集团2025年营业利润率是多少")
    card = last_part(body, '<section class="computed"', "</section>")
    assert "营业利润率" in card and "7.39%" in card and "营业利润 FY2025 ÷ 营业收入 FY2025" in card
    inputs = last_part(body, '<details class="answer-inputs">', "</table>")
    assert "9,487.3" in inputs and "128,450.6" in inputs


@pytest.mark.django_db
def test_the_ranking_renders_one_bar_per_row_in_order_with_negative_bars(web: Client) -> None:
    body = page_ask(web, "2025年各地区营业利润排名")
    figure, labels, values = ranking_of(body)
    assert labels == ["ACME中国内地", "ACME香港", "ACME东南亚"]
    assert values == ["8,640.1", "1,932.4", "-1,085.2"]
    assert figure.count('class="bar"') == 2 and figure.count('class="bar negative"') == 1
    assert "缺少数据" not in figure
    assert 'class="chart"' not in body  # the ranking replaces the plain bar chart


@pytest.mark.django_db
def test_a_ranked_entity_without_the_figure_is_listed_as_missing(web: Client) -> None:
    body = page_ask(web, "2025年集团、中国内地和东南亚净利润排名")
    figure, labels, values = ranking_of(body)
    assert labels == ["ACME集团", "ACME东南亚"] and values == ["6,811.9", "-1,402.6"]
    assert figure.count('class="bar"') == 1 and figure.count('class="bar negative"') == 1
    assert "缺少数据，未参与排名：ACME中国内地" in figure


@pytest.mark.django_db
def test_an_uncleared_analyst_sees_the_restricted_figure_as_missing(demo) -> None:
    client = Client()
    client.force_login(demo["users"]["analyst"])
    body = page_ask(client, "2025年集团、中国内地和东南亚净利润排名")
    assert '<figure class="ranking">' not in body  # one visible figure: no ranking of one
    assert "FY2025 净利润：3 项中只有 1 项有该数据，无法排名。" in body
    assert "未找到：ACME中国内地、ACME东南亚（无该数据）" in body and "1,402.6" not in body


@pytest.mark.django_db
def test_the_page_draws_ties_and_a_negative_bar_from_generated_figures(web: Client, demo) -> None:
    store = generated_store("OPERATING_PROFIT", {"ACME_CN": "1200.5", "ACME_HK": "1200.5", "ACME_SEA": "-310.2"})
    result = pipeline_answer(
        "2025年集团、中国内地、香港和东南亚营业利润排名", store=store, glossary=glossary_snapshot()
    )
    figure, labels, values = ranking_of(page_seed(web, demo["users"]["analyst_cleared"], result))
    assert re.findall(r'class="rank">([^<]+)</text>', figure) == ["1", "1", "3"]
    assert labels == ["ACME中国内地", "ACME香港", "ACME东南亚"]
    assert values == ["1,200.5 · 并列", "1,200.5 · 并列", "-310.2"]
    assert figure.count('class="rank-row tied"') == 2 and figure.count('class="bar negative"') == 1
    assert "缺少数据，未参与排名：ACME集团" in figure


@pytest.mark.django_db
def test_the_page_labels_an_english_turn_in_english(web: Client) -> None:
    body = page_ask(web, "What was the group's revenue growth in 2025?")
    assert '<section class="computed" lang="en"' in body and "Figures and sources (2)" in body
    assert "(revenue FY2025 − revenue FY2024) ÷ revenue FY2024" in body and ">Source</th>" in body


# -- CSV export ------------------------------------------------------------------------------------


def test_csv_rows_hold_the_facts_then_each_computed_value_with_its_inputs(store, glossary) -> None:
    result = card_turn("集团2025年营收同比增长多少", store, glossary)["result"]
    rows = answer_export(answer_from_json(result))
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
    result = card_turn(TIED_QUESTION, tied_store(), glossary)["result"]
    rows = answer_export(answer_from_json(result))
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
    page_ask(web, "集团2025年营收同比增长多少")
    response = web.get("/turns/0/facts.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][0] == "entity" and ["", ""] not in rows
    kinds = [r[1] for r in rows if len(r) == 15]
    assert kinds == ["row", "computed", "input", "input", "computed", "input", "input"]


@pytest.mark.django_db
def test_the_csv_download_neutralises_formula_cells(web: Client, demo) -> None:
    hostile = '=HYPERLINK("http://evil","x")'
    store = InMemoryFactStore(
        [
            FactRecord("REVENUE", "ACME_GROUP", FY2025, "TOTAL", Decimal("128450.6"), "CNY_M", hostile, "sheet=gen!B2"),
            FactRecord(
                "REVENUE", "ACME_GROUP", FY2024, "TOTAL", Decimal("-118340.2"), "CNY_M", "gen.xlsx", "sheet=gen!B3"
            ),
        ]
    )
    result = pipeline_answer("集团2025年营收同比增长多少", store=store, glossary=glossary_snapshot())
    assert result.computed  # a negative base still gives the absolute change
    page_seed(web, demo["users"]["analyst_cleared"], result)
    text = web.get("/turns/0/facts.csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][6] == "'" + hostile and rows[2][4] == "-118340.2"
    assert not any(cell.startswith("=") for row in rows for cell in row)


def test_csv_rows_of_a_formula_the_question_defines_recompute_it(store, glossary) -> None:
    question = (
        "What is ACME Group's FY2025 revenue index? It is defined as: FY2025 revenue / (average revenue between "
        "FY2023 and FY2024). Round your answer to three decimal places."
    )
    rows = answer_export(answer_from_json(card_turn(question, store, glossary)["result"]))
    blank = rows.index([])
    computed = [r for r in rows[blank + 2 :] if r[1] == "computed"]
    inputs = {r[10]: Decimal(r[5]) for r in rows[blank + 2 :] if r[1] == "input"}
    assert computed[0][2:4] == ["formula", "FY2025 revenue index"]
    assert computed[0][4] == "REVENUE[FY2025] / ((REVENUE[FY2023] + REVENUE[FY2024]) / 2)"
    with localcontext(decimal_context()):
        expected = inputs["FY2025"] / ((inputs["FY2023"] + inputs["FY2024"]) / 2)
    assert Decimal(computed[0][5]) == expected and computed[0][6] == "1.141"
