"""Every golden question parses to the route and slots its case expects,
with the demo glossary that carries the formula metrics: reading operators, month spans and
function words must not move a question that already worked."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from core.model.intent import ParsedIntent
from core.parse.intent import parse_intent
from tests.core.support.glossaries import COMPUTED

GOLDEN = Path(__file__).resolve().parents[4] / "shared" / "golden"


def cases(name: str) -> list[dict[str, Any]]:
    path = GOLDEN / name
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


GOLDEN_CASES = cases("golden.jsonl")


def parsed(case: dict[str, Any]) -> ParsedIntent:
    return parse_intent(case["question"], COMPUTED, date.fromisoformat(case["reference_date"]))


def assumed_or_equal(listed: tuple[str, ...], expected: set[str], assumed: bool) -> bool:
    """A slot the question names matches the facts; one it leaves out is assumed (clarifier)."""
    return set(listed) == expected or (assumed and not listed)


@pytest.mark.skipif(not GOLDEN_CASES, reason="the shared golden set is not checked out here")
@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[c["id"] for c in GOLDEN_CASES])
def test_golden_questions_keep_their_route_and_slots(case: dict[str, Any]) -> None:
    expect = case["expect"]
    intent = parsed(case)
    if "route" in expect and expect["route"] != "faq":
        assert intent.route == expect["route"]
    if "not_route" in expect and expect["not_route"] != "faq":
        assert intent.route != expect["not_route"]
    facts = expect.get("facts", [])
    if not facts:
        return
    assumed = expect.get("clarification_mode") == "answer_with_assumptions" or intent.route == "composite"
    assert set(intent.metrics) == {f["metric"] for f in facts}
    assert assumed_or_equal(intent.entities, {f["entity"] for f in facts}, assumed or intent.entity is None)
    assert assumed_or_equal(
        tuple(p.label for p in intent.periods), {f["period"] for f in facts}, assumed or intent.period is None
    )
    assert intent.channel in {f["channel"] for f in facts}
    assert intent.operation is None  # a level question is not turned into a computation


def test_the_golden_set_is_read() -> None:
    assert not (GOLDEN / "golden.jsonl").exists() or len(GOLDEN_CASES) >= 40


COMPUTED_EXPECTED = {
    "calc-01": ("growth", ("REVENUE",), ("ACME_GROUP",), ("FY2025",)),
    "calc-02": (None, ("OPERATING_MARGIN",), ("ACME_GROUP",), ("FY2025",)),
    "calc-03": ("rank", ("REVENUE",), ("ACME_CN", "ACME_HK", "ACME_SEA"), ("FY2025",)),
    "calc-04": ("sum", ("REVENUE",), ("ACME_HK", "ACME_SEA"), ("FY2025",)),
    "calc-05": ("growth", ("GROSS_MARGIN",), ("ACME_GROUP",), ("FY2025",)),
    "calc-06": (None, ("NET_MARGIN",), ("ACME_SEA",), ("FY2025",)),
    "calc-07": (None, ("NET_MARGIN",), ("ACME_SEA",), ("FY2025",)),
    "calc-08": ("growth", ("REVENUE",), ("ACME_GROUP",), ("FY2025",)),  # `the group's`: the home entity
}
COMPUTED_CASES = [c for c in cases("computed.jsonl") if c["id"] in COMPUTED_EXPECTED]


@pytest.mark.skipif(not COMPUTED_CASES, reason="the shared computed golden set is not checked out here")
@pytest.mark.parametrize("case", COMPUTED_CASES, ids=[c["id"] for c in COMPUTED_CASES])
def test_computed_golden_questions_ask_for_their_operation(case: dict[str, Any]) -> None:
    kind, metrics, entities, periods = COMPUTED_EXPECTED[case["id"]]
    intent = parsed(case)
    assert (intent.operation.kind if intent.operation else None) == kind
    assert (intent.metrics, intent.entities, tuple(p.label for p in intent.periods)) == (metrics, entities, periods)
    assert intent.route == "structured" and intent.unknown_metric is None
    inputs = {f["metric"] for f in case["expect"].get("facts", [])}
    if kind is None and inputs:  # a formula metric: its inputs are the formula's, not the question's
        assert inputs.isdisjoint(intent.metrics)
