"""The answer panel as the analyst sees it in Chromium: what the engine computed, each part once,
in its place (issue W). Each test reads the rendered page (text and SVG), on a desktop and, where
the layout changes, at 390 px.

Screenshots are taken only when `RAGSPINE_SCREENSHOTS` names a folder (`1` means docs/screenshots/):
panel-comparison.png, panel-series.png, panel-derived.png, panel-restricted.png, panel-phone.png.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.support import ANALYST, ask, page_open, shot, static_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def last_turn(page):
    return page.locator("article.turn").last


def visible_text(turn) -> list[str]:
    """The lines of the panel's text block, as shown."""
    return [line.strip() for line in turn.locator(".answer > .text").inner_text().split("\n") if line.strip()]


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("width", [1280, 390])
def test_a_comparison_says_each_part_in_the_text(browser, cleared_site, width) -> None:
    """Point 1: both years and the comparison line are in the panel's text, not only in the chart."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "集团2024年和2025年营收对比")
    lines = visible_text(last_turn(page))
    assert any("FY2024" in line and "118,340.2" in line for line in lines), lines
    assert any("FY2025" in line and "128,450.6" in line for line in lines), lines
    assert any(line.startswith("对比") and "10,110.4" in line and "+8.54%" in line for line in lines), lines
    assert len(lines) == len(set(lines))
    # point 7: one rate precision: the line's rate is the card's
    assert "+8.54%" in last_turn(page).locator(".computed-card").first.inner_text()
    if width == 1280:
        static_form(page)
        shot(last_turn(page), "panel-comparison.png")
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize(
    ("question", "missing", "found"),
    [
        ("集团2021至2025年各年营收，每年增长多少", "FY2021", "8.81%"),
        ("Group revenue growth for each year from 2021 to 2025", "FY2021", "8.81%"),
    ],
)
def test_a_series_leads_with_what_it_found_and_names_the_missing_period_in_its_table(
    browser, cleared_site, question, missing, found, width
) -> None:
    """Point 2: no `Cannot compute` headline, no dangling formula or empty inputs heading."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, question)
    turn = last_turn(page)
    lines = visible_text(turn)
    assert found in lines[0], lines
    assert not re.match(r"(无法计算|Cannot compute)", lines[0])
    assert not [line for line in lines if re.match(r"(公式|Formula)\s*[:：]", line)]  # the table's formulas say them
    assert not [line for line in lines if line in ("数据：", "Inputs:")]  # no heading without its lines
    series = turn.locator("section.series")
    assert series.locator(f'tr.series-row.missing[data-period="{missing}"]').count() == 1
    assert missing in series.locator(".series-missing").inner_text()
    if "集团" in question:
        static_form(page)
        shot(turn, "panel-series.png" if width == 1280 else "panel-phone.png")
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_every_point_of_a_line_chart_carries_its_value_and_no_two_labels_overlap(browser, cleared_site, width) -> None:
    """Point 3: values on the points (and in their tooltips), set clear of each other."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "集团2021至2025年各年营收，每年增长多少")
    chart = last_turn(page).locator("svg.line-chart")
    values = chart.locator("text.point-value")
    assert values.count() == chart.locator("circle.point").count() == 4
    assert values.all_text_contents() == ["98,215.4", "106,872.9", "118,340.2", "128,450.6"]
    tips = chart.locator("circle.point title").all_text_contents()
    assert tips[0] == "FY2022 · 98,215.4"
    labels = [*values.all(), *chart.locator("text.period").all()]
    boxes = [label.bounding_box() for label in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not boxes_overlap(a, b), (a, b)
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_converted_value_is_shown_rounded_and_exact_in_its_inputs(browser, cleared_site, width) -> None:
    """Point 7: a value converted with a curated rate is shown at its inputs' precision."""
    from decimal import Decimal

    from facts.models import FxRate

    FxRate.objects.create(
        base_currency="CNY",
        quote_currency="USD",
        rate=Decimal("0.14"),
        rate_type="average",
        period_type="FY",
        period="2025",
        source="test",
    )
    context, page = page_open(browser, cleared_site, width)
    ask(page, "香港2025年营收是多少美元")
    turn = last_turn(page)
    shown = turn.inner_text()
    assert "3,362.2" in shown and "3,362.212" not in shown, shown
    assert "24,015.8" in shown  # the stored value beside it, exact
    ask(page, "集团2025年营收是多少亿元")
    card = last_turn(page).locator(".computed-card").first.inner_text()
    assert "亿元" in card and "CNY_" not in card, card  # a converted unit by its name, never its code
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_each_growth_card_names_its_year(browser, cleared_site, width) -> None:
    """Point 4: cards of a growth per year say which year each is."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "集团2023年和2024年营收同比增长分别是多少")
    subjects = last_turn(page).locator(".computed-card .computed-subject").all_inner_texts()
    assert subjects and len(subjects) == len(set(subjects)), subjects
    assert all(re.search(r"FY20\d\d", s) for s in subjects), subjects
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_two_derivations_that_agree_are_one_card_that_says_so(browser, cleared_site, width) -> None:
    """Point 8: FY − H1 and Q3 + Q4 give one value: one card, both formulas, no mixed bar chart."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "集团2025年下半年营收")
    turn = last_turn(page)
    cards = turn.locator(".computed-card")
    assert cards.count() == 1
    card = cards.first
    assert "67,245.8" in card.locator(".computed-value").inner_text()
    assert card.locator(".computed-formula").count() == 2
    assert "一致" in card.locator(".computed-agree").inner_text()
    assert turn.locator("figure.chart").count() == 0  # H1, Q3, Q4 and FY bars side by side would mislead
    assert [line for line in visible_text(turn) if "67,245.8" in line] == [visible_text(turn)[0]]
    if width == 1280:
        static_form(page)
        shot(turn, "panel-derived.png")
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_follow_up_says_what_it_inherited_once_and_a_recent_question_reopens_its_answer(
    browser, cleared_site, width
) -> None:
    """Point 10: `沿用上一问` once (a banner); a recent question opens its stored answer."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "去年集团营收是多少")
    ask(page, "那香港呢？")
    follow_up = last_turn(page)
    assert follow_up.get_by_text(re.compile("沿用上一问")).count() == 1
    hong_kong = follow_up.locator(".answer > .text").inner_text()
    ask(page, "集团2024年营收是多少")
    turns = page.locator("article.turn").count()
    page.locator("#recent a", has_text="那香港呢？").click()
    page.wait_for_load_state()
    assert page.locator("article.turn").count() == turns  # nothing was asked again
    assert page.url.endswith("#turn-1")
    assert page.locator("#turn-1 .answer > .text").inner_text() == hong_kong
    ask(page, "What was gross margin in FY2024?")
    ask(page, "What about Hong Kong?")
    said = last_turn(page).inner_text().casefold()
    assert said.count("previous question") == 1, said  # the banner; not again in the meta line
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_an_answer_from_restricted_figures_is_labelled_for_the_cleared_analyst(browser, cleared_site, width) -> None:
    """Point 13: a visible label on what only the cleared may see; none on other answers."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "东南亚2025年净利润是多少")
    turn = last_turn(page)
    assert "-1,402.6" in turn.inner_text()
    label = turn.locator(".badge.sensitivity")
    assert label.count() == 1 and label.inner_text() == "受限"
    if width == 1280:
        static_form(page)
        shot(turn, "panel-restricted.png")
    ask(page, "集团2025年营收是多少")
    assert last_turn(page).locator(".badge.sensitivity").count() == 0
    ask(page, "哪些文件提到了东南亚扩张")  # a RESTRICTED document among those listed
    assert last_turn(page).locator(".badge.sensitivity").inner_text() == "受限"
    context.close()


def test_the_analyst_without_clearance_sees_no_restricted_label(browser, site) -> None:
    context, page = page_open(browser, site, 1280, user=ANALYST)
    ask(page, "东南亚2025年净利润是多少")
    turn = last_turn(page)
    assert "-1,402.6" not in turn.inner_text() and turn.locator(".badge.sensitivity").count() == 0
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_document_places_read_as_words(browser, cleared_site, width) -> None:
    """Point 5: `第5张幻灯片及其备注`, never `第5; slide=5张幻灯片 · 备注`."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "哪些文件提到了东南亚")
    turn = last_turn(page)
    for details in turn.locator("details").all():
        details.evaluate("element => element.open = true")
    shown = turn.inner_text()
    assert "东南亚" in shown or "ACME" in shown
    assert not re.search(r"(slide|page|para|sheet|table)=|;\s*(slide|page)", shown), shown
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_yes_or_no_check_says_no_first(browser, cleared_site, width) -> None:
    """Point 11: a figure the question states and the fact table contradicts gets `不是` first."""
    context, page = page_open(browser, cleared_site, width)
    ask(page, "香港2024年营收是不是13万亿？")
    lines = visible_text(last_turn(page))
    assert lines[0].startswith("不是"), lines
    assert any("25,730.1" in line for line in lines)
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_narrowing_chips_offer_the_company_s_own_entities_by_name(browser, cleared_site, width) -> None:
    """Point 9: a peer with figures of its own (an ingested report's company) is no chip, and a
    chip shows a name, never a code."""
    from decimal import Decimal

    from facts.models import Entity, FactMetric

    peer = Entity.objects.create(code="PEER_CO", name="同行公司", kind="peer")
    FactMetric.objects.create(
        metric_id="REVENUE",
        entity=peer,
        period_type="FY",
        period="2025",
        channel_id="TOTAL",
        value=Decimal("999.9"),
        unit_id="CNY_M",
        source_doc="peer.pdf",
        locator="page=1",
        review_status="approved",
    )
    context, page = page_open(browser, cleared_site, width)
    for question in ("去年营收是多少", "What was revenue last year?"):
        ask(page, question)
        chips = last_turn(page).locator(".answer .chips button.chip").all_inner_texts()
        assert chips, question
        assert not [c for c in chips if "同行公司" in c or "PEER_CO" in c or re.fullmatch(r"[A-Z0-9_]+", c)], chips
    context.close()
