"""A bare head noun of the home entity's name names the home entity (`core.parse.intent.home`).

`Group` of `ACME Group`, `集团` of `ACME集团`, said alone (`the Group`, `group-wide`, `本集团`),
is the home entity when no other in-scope entity's names share that head; never inside a longer
name (`peer group`, `Tencent Group`, `腾讯集团`) or a metric's alias (`集团内部交易`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, MetricInfo, glossary_build
from core.model.facts import ENTITY_EXTERNAL, ENTITY_HOME, ENTITY_PEER, ENTITY_SUBSIDIARY
from core.parse.follow_up import follow_up_apply
from core.parse.intent import parse_intent
from tests.fakes import demo_glossary

REF = date(2026, 3, 15)
DEMO = demo_glossary()
# The demo names its home entity by the bare `集团` too; these glossaries only by its full names.
BARE_ALIASES = {"集团", "集团整体"}


def _named(
    entities: list[tuple[str, str, str, list[str]]],
    *,
    metrics: Sequence[tuple[str, str, list[str]]] = (),
) -> GlossarySnapshot:
    """The demo's metrics and channels with `entities` (code, name, kind, aliases) in place of
    its own, and `metrics` (code, name, aliases) added."""
    home = next((code for code, _, kind, _ in entities if kind == ENTITY_HOME), None)
    infos = [
        EntityInfo(code, name, kind, home if kind == ENTITY_SUBSIDIARY else None) for code, name, kind, _ in entities
    ]
    added = [MetricInfo(code, name, "CNY_M") for code, name, _ in metrics]
    aliases = [a for a in DEMO.aliases if a.kind != "entity"]
    aliases += [AliasRecord("entity", text, code) for code, _, _, texts in entities for text in texts]
    aliases += [AliasRecord("metric", text, code) for code, _, texts in metrics for text in texts]
    return glossary_build(
        entities=infos,
        metrics=[*DEMO.metrics.values(), *added],
        channels=DEMO.channels.values(),
        units=DEMO.units.values(),
        aliases=aliases,
    )


def _without_bare_aliases(glossary: GlossarySnapshot) -> GlossarySnapshot:
    return glossary_build(
        entities=glossary.entities.values(),
        metrics=glossary.metrics.values(),
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[a for a in glossary.aliases if not (a.kind == "entity" and a.text in BARE_ALIASES)],
        home_company_name=glossary.home_company_name,
    )


FULL_NAMES = _without_bare_aliases(DEMO)
TWO_GROUPS = _named(
    [
        ("ACME_GROUP", "ACME集团", ENTITY_HOME, ["ACME Group", "ACME"]),
        ("FOO_GROUP", "Foo集团", ENTITY_PEER, ["Foo Group", "Foo"]),
        ("ACME_HK", "ACME香港", ENTITY_SUBSIDIARY, ["Hong Kong"]),
    ]
)
WITH_AN_INTRA_GROUP_METRIC = _named(
    [
        ("ACME_GROUP", "ACME集团", ENTITY_HOME, ["ACME Group", "ACME"]),
        ("ACME_HK", "ACME香港", ENTITY_SUBSIDIARY, ["Hong Kong", "香港"]),
    ],
    metrics=[("INTRA_GROUP", "集团内部交易", ["集团内部交易", "intra-group sales", "group eliminations"])],
)


@pytest.mark.parametrize(
    "question",
    [
        "Group revenue for each year 2022-2025 and the yearly growth",
        "What was the group's revenue in 2025?",
        "group-wide gross margin 2025",
        "What was the Group revenue in 2025?",
        "the group gross margin in 2025",
        "GROUP revenue 2025",
    ],
)
def test_the_bare_head_of_the_home_name_names_the_home_entity(question: str) -> None:
    intent = parse_intent(question, DEMO, REF)
    assert intent.entities == ("ACME_GROUP",)
    assert intent.metric in ("REVENUE", "GROSS_MARGIN")
    assert intent.unknown_metric is None


def test_group_revenue_by_year_is_the_groups_series() -> None:
    intent = parse_intent("Group revenue for each year 2022-2025 and the yearly growth", DEMO, REF)
    assert intent.entity == "ACME_GROUP" and intent.metrics == ("REVENUE",)
    assert [p.period for p in intent.periods] == ["2022", "2023", "2024", "2025"]


@pytest.mark.parametrize(
    "question",
    ["集团2025年营收是多少", "本集团2025年的营收", "全集团2025年营收", "2025年集团的毛利率", "集团整体2025年营收"],
)
def test_the_chinese_head_names_the_home_entity_without_an_alias_for_it(question: str) -> None:
    intent = parse_intent(question, FULL_NAMES, REF)
    assert intent.entities == ("ACME_GROUP",)
    assert intent.unknown_metric is None


@pytest.mark.parametrize("question", ["Group revenue 2025", "the group's gross margin in 2025", "集团2025年营收"])
def test_a_head_two_in_scope_entities_share_names_neither(question: str) -> None:
    intent = parse_intent(question, TWO_GROUPS, REF)
    assert intent.entities == ()


def test_the_full_names_still_name_each_of_two_groups() -> None:
    assert parse_intent("Foo Group revenue 2025", TWO_GROUPS, REF).entities == ("FOO_GROUP",)
    assert parse_intent("ACME集团2025年营收", TWO_GROUPS, REF).entities == ("ACME_GROUP",)


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("集团内部交易2025年是多少", "INTRA_GROUP"),
        ("intra-group sales in 2025", "INTRA_GROUP"),
        ("group eliminations in 2025", "INTRA_GROUP"),
    ],
)
def test_a_metric_alias_holding_the_head_is_the_metric(question: str, metric: str) -> None:
    intent = parse_intent(question, WITH_AN_INTRA_GROUP_METRIC, REF)
    assert intent.metrics == (metric,)
    assert intent.entities == ()


def test_beside_a_metric_alias_holding_it_the_head_still_names_the_home_entity() -> None:
    intent = parse_intent("Group revenue 2025", WITH_AN_INTRA_GROUP_METRIC, REF)
    assert intent.entities == ("ACME_GROUP",) and intent.metrics == ("REVENUE",)


@pytest.mark.parametrize(
    "question",
    [
        "peer group revenue 2025",
        "Tencent Group revenue 2025",
        "What was Tencent Group's revenue in 2025?",
        "Which group of stores grew fastest in 2025?",
        "each group revenue 2025",
        "腾讯集团2025年营收",
        "两家集团2025年营收",
        "各集团2025年营收",
    ],
)
def test_the_head_inside_a_longer_name_or_a_list_is_not_the_home_entity(question: str) -> None:
    assert "ACME_GROUP" not in parse_intent(question, FULL_NAMES, REF).entities


@pytest.mark.parametrize("question", ["本公司2025年营收", "What was the company's revenue in 2025?"])
def test_a_word_that_is_no_head_of_its_names_is_not_the_home_entity(question: str) -> None:
    """本公司 is the parent company, apart from 本集团, in a group's own reports; `company` is
    no word of `ACME Group`."""
    assert parse_intent(question, FULL_NAMES, REF).entities == ()


def test_an_english_head_noun_of_another_word_names_its_home_entity() -> None:
    glossary = _named(
        [
            ("NB", "Northwind Bank", ENTITY_HOME, ["Northwind"]),
            ("NB_HK", "Northwind Hong Kong", ENTITY_SUBSIDIARY, ["Hong Kong"]),
        ]
    )
    assert parse_intent("What was the Bank's revenue in 2025?", glossary, REF).entities == ("NB",)
    # `Kong` is the head of a subsidiary's name, never the home entity's
    assert parse_intent("Kong revenue 2025", glossary, REF).entities == ()


def test_a_head_an_external_entity_shares_still_names_the_home_entity() -> None:
    glossary = _named(
        [
            ("ACME_GROUP", "ACME Group", ENTITY_HOME, ["ACME"]),
            ("JINGAN", "Jingan Group", ENTITY_EXTERNAL, ["Jingan"]),
        ]
    )
    assert parse_intent("Group revenue 2025", glossary, REF).entities == ("ACME_GROUP",)
    assert parse_intent("Jingan Group revenue 2025", glossary, REF).external_entity == "JINGAN"


@pytest.mark.parametrize(
    ("glossary", "question"),
    [(DEMO, "What about the group?"), (DEMO, "And for the Group?"), (FULL_NAMES, "那集团呢")],
)
def test_a_follow_up_naming_the_head_asks_the_previous_question_of_the_home_entity(
    glossary: GlossarySnapshot, question: str
) -> None:
    previous = parse_intent("What was Hong Kong revenue in 2025?", glossary, REF)
    intent, note = follow_up_apply(parse_intent(question, glossary, REF), previous, glossary)
    assert intent.entities == ("ACME_GROUP",) and intent.metrics == ("REVENUE",)
    assert [p.period for p in intent.periods] == ["2025"]
    assert note is not None


@pytest.mark.parametrize(
    "question",
    [
        "What share of group revenue did Southeast Asia account for in 2025?",
        "What share of ACME Group revenue did Southeast Asia account for in 2025?",
        "Southeast Asia's share of group revenue in 2025",
        "2025年集团营收中东南亚的占比是多少",
        "2025年东南亚营收占集团营收的比重是多少",
    ],
)
def test_a_share_of_the_home_entity_takes_the_part_first_whatever_order_it_is_named_in(question: str) -> None:
    """A share of two entities is the child's of its parent: the whole may be named first."""
    intent = parse_intent(question, DEMO, REF)
    assert intent.operation is not None and intent.operation.kind == "share"
    assert intent.entities == ("ACME_SEA", "ACME_GROUP")


# -- over generated glossaries -------------------------------------------------------------------
_BRANDS = st.sampled_from(["Acme", "Northwind", "Contoso", "Fabrikam", "Globex", "Initech", "Umbrella"])
_HEADS = st.sampled_from(["Group", "Holdings", "Bank", "Industries", "Company"])
_PLACES = st.sampled_from(["Hong Kong", "Singapore", "Europe", "Brazil"])


@settings(max_examples=60, deadline=None)
@given(
    home=st.tuples(_BRANDS, _HEADS),
    others=st.lists(st.tuples(_BRANDS, st.one_of(_HEADS, _PLACES), st.booleans()), max_size=3),
    head=_HEADS,
)
def test_a_bare_head_names_the_home_entity_exactly_when_only_its_names_have_it(
    home: tuple[str, str], others: list[tuple[str, str, bool]], head: str
) -> None:
    entities = [("HOME", f"{home[0]} {home[1]}", ENTITY_HOME, [home[0]])]
    for i, (brand, tail, external) in enumerate(others):
        name = f"{brand} {tail}"
        if all(name != e[1] and brand not in e[3] for e in entities):
            entities.append((f"E{i}", name, ENTITY_EXTERNAL if external else ENTITY_SUBSIDIARY, [brand]))
    glossary = _named(entities)
    intent = parse_intent(f"What was the {head.lower()}'s revenue in 2025?", glossary, REF)
    in_scope_heads = [e[1].split()[-1] for e in entities if e[2] != ENTITY_EXTERNAL]
    expected = ("HOME",) if head == home[1] and in_scope_heads.count(head) == 1 else ()
    assert intent.entities == expected
    assert intent.external_entity is None  # a bare head never names an external entity
