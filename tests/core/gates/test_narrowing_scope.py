"""Narrowing chips offered with an assumed entity come from that entity's own scope (the home
entity and its subsidiaries, never a peer or an external entity), each labelled with a name in
the question's language (the other language's name before the bare code)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, glossary_build
from core.model.facts import ENTITY_HOME, ENTITY_PEER, ENTITY_SUBSIDIARY
from core.model.period import Period
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

REF = date(2026, 3, 15)
PEER = "SH600000"
PEER_CHILD = "SH600000_SUB"
NAMELESS_IN_ENGLISH = "HOME_JP"


def _with_entities(glossary: GlossarySnapshot, *entities: EntityInfo, aliases=()) -> GlossarySnapshot:
    return glossary_build(
        entities=[*glossary.entities.values(), *entities],
        metrics=glossary.metrics.values(),
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[*glossary.aliases, *aliases],
        home_company_name=glossary.home_company_name,
    )


def _peer_glossary(*extra: EntityInfo) -> GlossarySnapshot:
    """The demo glossary with a peer from an ingested report (a Chinese name, no English alias)."""
    return _with_entities(demo_glossary(), EntityInfo(PEER, "同业科技", ENTITY_PEER), *extra)


def _home() -> str:
    home = demo_glossary().home_entity
    assert home is not None
    return home


def _peer_store() -> InMemoryFactStore:
    """The demo facts, and revenue of the peer and its subsidiary for the year a question assumes."""
    facts = demo_facts()
    template = next(f for f in facts if f.metric == "REVENUE" and f.period == Period("FY", "2025"))
    extra = [
        replace(template, entity=code, value=Decimal("1234.5"), source_doc="peer_report.pdf", locator="page=3")
        for code in (PEER, PEER_CHILD)
    ]
    return InMemoryFactStore([*facts, *extra])


def _entity_options(result) -> list:
    return [o for o in result.clarification.narrowing_options if "entity" in o.scope]


def _ask(question: str, glossary: GlossarySnapshot):
    return answer_question(
        question,
        Ports(glossary=glossary, store=_peer_store(), provider=MockProvider()),
        cleared=False,
        reference_date=REF,
    )


def test_a_missing_entity_offers_the_home_entitys_subsidiaries_never_a_peer() -> None:
    glossary = _peer_glossary()
    result = _ask("去年营收是多少", glossary)
    assert result.clarification.assumed_entity == glossary.home_entity
    codes = [o.scope["entity"] for o in _entity_options(result)]
    assert codes, "the subsidiaries are offered"
    assert PEER not in codes and PEER_CHILD not in codes
    assert all(glossary.entities[c].kind in (ENTITY_HOME, ENTITY_SUBSIDIARY) for c in codes)
    assert "同业科技" not in (result.clarification.assumption_note or "")


def test_a_peers_own_subsidiary_is_not_offered() -> None:
    glossary = _peer_glossary(EntityInfo(PEER_CHILD, "同业科技子公司", ENTITY_SUBSIDIARY, PEER))
    codes = [o.scope["entity"] for o in _entity_options(_ask("去年营收是多少", glossary))]
    assert codes and PEER_CHILD not in codes and PEER not in codes


def test_english_chips_carry_names_never_codes() -> None:
    # a subsidiary of the home known only by its Chinese name
    glossary = _peer_glossary(EntityInfo(NAMELESS_IN_ENGLISH, "日本分部", ENTITY_SUBSIDIARY, _home()))
    result = _ask("What was revenue last year?", glossary)
    options = _entity_options(result)
    labels = [o.label for o in options]
    assert PEER not in " ".join(labels) and PEER not in (result.clarification.assumption_note or "")
    assert all(o.label != o.scope["entity"] for o in options)
    # a subsidiary with no English name is shown by its Chinese name, not its code
    assert "日本分部" in labels and NAMELESS_IN_ENGLISH not in labels


def test_the_code_is_the_label_only_for_an_entity_with_no_name_at_all() -> None:
    base = demo_glossary()
    glossary = _with_entities(base, EntityInfo("HOME_X", "", ENTITY_SUBSIDIARY, base.home_entity))
    assert glossary.label("entity", "HOME_X", "en") == "HOME_X"
    assert glossary.label("entity", "HOME_X", "zh") == "HOME_X"
    named = _with_entities(
        base,
        EntityInfo("HOME_Y", "Y Holdings", ENTITY_SUBSIDIARY, base.home_entity),
        aliases=[AliasRecord("entity", "Y控股", "HOME_Y")],
    )
    assert named.label("entity", "HOME_Y", "zh") == "Y Holdings"
    assert named.label("entity", "HOME_Y", "en") == "Y Holdings"


# -- the property, over generated entity trees ----------------------------------------------
_KINDS = st.sampled_from([ENTITY_SUBSIDIARY, ENTITY_PEER, "external"])
_NAMES = st.sampled_from(["", "甲分部", "乙公司", "Gamma Ltd", "Delta"])


@st.composite
def _trees(draw: st.DrawFn) -> GlossarySnapshot:
    base = demo_glossary()
    home = base.home_entity
    count = draw(st.integers(min_value=1, max_value=7))
    entities: list[EntityInfo] = []
    for i in range(count):
        kind = draw(_KINDS)
        parents = [None, home, *(e.code for e in entities)] if kind != "external" else [None]
        name = draw(_NAMES)
        entities.append(
            EntityInfo(f"GEN_{i}", f"{name}{'甲乙丙丁戊己庚'[i]}" if name else "", kind, draw(st.sampled_from(parents)))
        )
    return _with_entities(base, *entities)


def _under_home(glossary: GlossarySnapshot, code: str) -> bool:
    """Whether `code` belongs to the home entity's group: every ancestor is the home or one of
    its subsidiaries (a subsidiary with no parent is the home's)."""
    seen: set[str] = set()
    info = glossary.entities[code]
    while info.kind == ENTITY_SUBSIDIARY and info.parent is not None and info.parent not in seen:
        seen.add(info.parent)
        info = glossary.entities[info.parent]
    return info.kind in (ENTITY_HOME, ENTITY_SUBSIDIARY)


@settings(max_examples=60, deadline=None)
@given(glossary=_trees(), question=st.sampled_from(["营收是多少", "去年营收是多少", "What was revenue last year?"]))
def test_every_entity_chip_is_in_the_home_group_and_named(glossary: GlossarySnapshot, question: str) -> None:
    intent = parse_intent(question, glossary, REF)
    verdict = security_screen(raw_question=question, glossary=glossary, language=intent.language)
    result = clarify_scope(intent, glossary=glossary, reference_date=REF, verdict=verdict)
    for option in result.narrowing_options:
        code = option.scope.get("entity")
        if code is None:
            continue
        assert glossary.entities[code].kind != ENTITY_PEER and not glossary.is_external(code)
        assert _under_home(glossary, code)
        assert option.label == glossary.label("entity", code, intent.language)
        assert option.label != code or not glossary.entities[code].name
