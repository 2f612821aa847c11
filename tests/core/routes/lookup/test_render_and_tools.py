from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from core.glossary import GlossarySnapshot
from core.language.periods import period_parse
from core.model.facts import SubTask
from core.routes.lookup.tools import arguments_normalize, task_run, tool_schema_anthropic, tool_schema_openai
from core.routes.render import value_format

REF = date(2026, 3, 15)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("96120.3", "96,120.3"),
        ("-1085.2", "-1,085.2"),
        ("412", "412"),
        ("1E+3", "1,000"),
        ("0.00012", "0.00012"),
        ("29.70", "29.70"),
    ],
)
def test_values_are_exact_with_separators_and_no_exponent(value: str, text: str) -> None:
    assert value_format(Decimal(value)) == text


def test_query_metric_tri_state(glossary: GlossarySnapshot, store) -> None:
    found = arguments_normalize({"metric": "营收", "entity": "中国内地", "period": "FY2025"}, glossary, REF)
    assert isinstance(found, SubTask)
    result, _ = task_run(store, found, cleared=False)
    assert result["status"] == "found" and result["value"] == "96120.3"
    assert result["source"]["doc"] == "ACME_FY2025_Annual_Results.pptx" and result["source"]["locator"]
    missing = arguments_normalize({"metric": "ROE", "entity": "ACME_CN", "period": "2025年"}, glossary, REF)
    assert task_run(store, missing, cleared=False)[0] == {
        "status": "not_found",
        "normalized": {"metric": "ROE", "entity": "ACME_CN", "period": "FY2025", "channel": "TOTAL"},
    }


@pytest.mark.parametrize(
    ("arguments", "param"),
    [
        ({"metric": "利润", "entity": "ACME_CN", "period": "FY2025"}, "metric"),
        ({"metric": "REVENUE", "entity": "某公司", "period": "FY2025"}, "entity"),
        ({"metric": "REVENUE", "entity": "竞安", "period": "FY2025"}, "entity"),
        ({"metric": "REVENUE", "entity": "ACME_CN", "period": "someday"}, "period"),
        ({"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025", "channel": "ONLNE"}, "channel"),
        ({"metric": ["REVENUE"], "entity": "ACME_CN", "period": "FY2025"}, "metric"),
    ],
)
def test_unrecognised_arguments_are_named_never_guessed(glossary: GlossarySnapshot, arguments, param) -> None:
    result = arguments_normalize(arguments, glossary, REF)
    assert isinstance(result, dict) and result["status"] == "unrecognized_param" and result["param"] == param


def test_tool_schemas_come_from_the_glossary(glossary: GlossarySnapshot) -> None:
    anthropic = tool_schema_anthropic(glossary)
    openai = tool_schema_openai(glossary)
    assert anthropic["name"] == "query_metric" and openai["function"]["name"] == "query_metric"
    assert anthropic["input_schema"] == openai["function"]["parameters"]
    assert set(anthropic["input_schema"]["properties"]["metric"]["enum"]) == set(glossary.metrics)
    assert "ONLINE" in anthropic["input_schema"]["properties"]["channel"]["enum"]
    assert "EXT_JINGAN" not in anthropic["input_schema"]["properties"]["entity"]["description"]


def test_period_arguments_accept_any_absolute_form(glossary: GlossarySnapshot) -> None:
    task = arguments_normalize({"metric": "REVENUE", "entity": "ACME_GROUP", "period": "2025年第四季度"}, glossary, REF)
    assert isinstance(task, SubTask) and task.period == period_parse("2025Q4")


# -- a ranking's headline names the place asked about (redteam F) ------------------------------------
def _regions_ranked(store, order: str = "desc", top: int | None = None):
    from core.engine import rank_compute

    fy2025 = period_parse("FY2025")
    assert fy2025 is not None
    keys = [SubTask("REVENUE", code, fy2025) for code in ("ACME_CN", "ACME_HK", "ACME_SEA")]
    return rank_compute(lambda t: store.fact_get(t, cleared=True), keys, order=order, top=top)


@pytest.mark.parametrize(
    ("language", "order", "position", "headline"),
    [
        ("zh", "desc", 2, "FY2025 营业收入从高到低排第 2 的是 ACME香港（24,015.8 百万元）。"),
        ("zh", "asc", 2, "FY2025 营业收入从低到高排第 2 的是 ACME香港（24,015.8 百万元）。"),
        ("zh", "desc", 1, "FY2025 营业收入最高的是 ACME中国内地（96,120.3 百万元）。"),
        ("zh", "desc", 5, "FY2025 营业收入只有 3 项参与排名，没有第 5 名。"),
        ("en", "desc", 2, "No. 2 FY2025 revenue (highest first): Hong Kong (24,015.8 CNY m)."),
        ("en", "desc", 4, "FY2025 revenue: only 3 ranked, so there is no No. 4."),
    ],
)
def test_a_ranking_headline_names_the_place_asked(
    glossary: GlossarySnapshot, store, language: str, order: str, position: int, headline: str
) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    lines = ranking_lines(_regions_ranked(store, order), glossary, language, position=position)
    assert lines[0] == headline
    assert any(line.startswith("1. ") for line in lines)  # the whole order is still listed


def test_a_ranking_cut_to_one_row_still_names_the_leader(glossary: GlossarySnapshot, store) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    lines = ranking_lines(_regions_ranked(store, "asc", top=1), glossary, "zh")
    assert lines[0] == "FY2025 营业收入最低的是 ACME东南亚（8,314.5 百万元）。"


# -- a ranking over partial data says how many items have the figure -------
REGIONS = ("ACME_CN", "ACME_HK", "ACME_SEA")


def _regions_without(store, *dropped: str, order: str = "desc", top: int | None = None):
    """The regions' FY2025 revenue ranked, the figures of `dropped` regions taken away."""
    from core.engine import facts_lookup, rank_compute

    fy2025 = period_parse("FY2025")
    kept = [f for f in store.facts.values() if not (f.metric == "REVENUE" and f.entity in dropped)]
    keys = [SubTask("REVENUE", code, fy2025) for code in REGIONS]
    return rank_compute(facts_lookup(kept), keys, order=order, top=top)


@pytest.mark.parametrize(
    ("language", "order", "position", "coverage", "headline", "missing"),
    [
        (
            "zh",
            "desc",
            None,
            "FY2025 营业收入：3 项中有 2 项有该数据。",
            "在有数据的 2 项中，FY2025 营业收入最高的是 ACME中国内地（96,120.3 百万元）。",
            "未找到：ACME东南亚（无该数据，未参与排名）",
        ),
        (
            "zh",
            "asc",
            2,
            "FY2025 营业收入：3 项中有 2 项有该数据。",
            "在有数据的 2 项中，FY2025 营业收入从低到高排第 2 的是 ACME中国内地（96,120.3 百万元）。",
            "未找到：ACME东南亚（无该数据，未参与排名）",
        ),
        (
            "en",
            "desc",
            None,
            "FY2025 revenue: 2 of 3 items have the figure.",
            "Highest FY2025 revenue among the 2 items with the figure: mainland China (96,120.3 CNY m).",
            "Not found: Southeast Asia (no figure; not ranked)",
        ),
        (
            "en",
            "desc",
            2,
            "FY2025 revenue: 2 of 3 items have the figure.",
            "No. 2 FY2025 revenue (highest first, among the 2 items with the figure): Hong Kong (24,015.8 CNY m).",
            "Not found: Southeast Asia (no figure; not ranked)",
        ),
    ],
)
def test_a_partial_ranking_says_how_many_have_the_figure_and_ranks_among_them(
    glossary: GlossarySnapshot,
    store,
    language: str,
    order: str,
    position: int | None,
    coverage: str,
    headline: str,
    missing: str,
) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    lines = ranking_lines(_regions_without(store, "ACME_SEA", order=order), glossary, language, position=position)
    assert lines[:2] == [coverage, headline]
    assert missing in lines


def test_a_complete_ranking_needs_no_count_of_who_has_the_figure(glossary: GlossarySnapshot, store) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    lines = ranking_lines(_regions_without(store), glossary, "zh")
    assert lines[0] == "FY2025 营业收入最高的是 ACME中国内地（96,120.3 百万元）。"
    assert not any("有该数据" in line or "有数据的" in line for line in lines)


@pytest.mark.parametrize(
    ("dropped", "language", "header"),
    [
        ((), "zh", "排名（从高到低，前 5 名；有数据的只有 3 项）："),
        (("ACME_SEA",), "zh", "排名（从高到低，前 5 名；有数据的只有 2 项）："),
        ((), "en", "Ranking (highest first, top 5; only 3 items have the figure):"),
        (("ACME_SEA",), "en", "Ranking (highest first, top 5; only 2 items have the figure):"),
    ],
)
def test_a_top_n_beyond_the_figures_present_says_how_many_there_are(
    glossary: GlossarySnapshot, store, dropped: tuple[str, ...], language: str, header: str
) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    lines = ranking_lines(_regions_without(store, *dropped, top=5), glossary, language)
    assert header in lines


def test_a_top_n_within_the_figures_present_is_not_qualified(glossary: GlossarySnapshot, store) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    assert "排名（从高到低，前 2 名）：" in ranking_lines(_regions_without(store, top=2), glossary, "zh")


@pytest.mark.parametrize(
    ("language", "order", "position", "top", "expected"),
    [
        (
            "zh",
            "desc",
            None,
            None,
            [
                "FY2025 营业收入：3 项中只有 1 项有该数据，无法排名。",
                "ACME东南亚 FY2025 营业收入：8,314.5 百万元"
                "（来源：ACME_FY2025_Annual_Results.pptx · facts.csv,row=19）",
                "未找到：ACME中国内地、ACME香港（无该数据）",
            ],
        ),
        (
            "en",
            "asc",
            2,
            3,
            [
                "FY2025 revenue: only 1 of 3 items has the figure, so there is no ranking.",
                "Southeast Asia FY2025 revenue: 8,314.5 CNY m"
                " (source: ACME_FY2025_Annual_Results.pptx · facts.csv,row=19)",
                "Not found: mainland China, Hong Kong (no figure)",
            ],
        ),
    ],
)
def test_a_lone_figure_is_given_as_a_value_never_as_a_highest_or_a_place(
    glossary: GlossarySnapshot,
    store,
    language: str,
    order: str,
    position: int | None,
    top: int | None,
    expected: list[str],
) -> None:
    from core.routes.computed.ranking_text import ranking_lines

    ranking = _regions_without(store, "ACME_CN", "ACME_HK", order=order, top=top)
    lines = ranking_lines(ranking, glossary, language, position=position)
    assert lines == expected
    for word in ("最高", "最低", "第", "highest", "lowest", "No.", "1. "):
        assert not any(word in line for line in lines[1:]), word
