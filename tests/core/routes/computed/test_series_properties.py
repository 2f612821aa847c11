"""Properties of derived periods and aggregates over generated stores: every value a derivation or an
aggregate gives equals its formula over the inputs it lists, a ratio is never added up, and a value
at a date is never taken apart by subtraction."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import computed_reevaluate
from core.model.facts import INTERNAL, FactRecord
from core.model.period import Period
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_glossary

GLOSSARY = demo_glossary()
REFERENCE = date(2026, 3, 15)
PERIODS = ("FY2022", "FY2023", "FY2024", "FY2025", "2025H1", "2025Q1", "2025Q2", "2025Q3", "2025Q4")
QUESTIONS = (
    "集团2022到2025年营收合计",
    "集团近三年营收平均是多少",
    "集团2025年下半年营收",
    "集团2025年上半年营收",
    "集团2025年前三季度营收",
    "集团2025年1-9月营收合计",
    "集团2025年营收",
    "集团2025年各季度营收合计",
    "集团2022到2025年营收年复合增长率",
    "集团近三年营收每年增长多少",
)
ADDING = {"sum", "derived"}


def record(period: str, value: Decimal) -> FactRecord:
    if period.startswith("FY"):
        parsed = Period("FY", period[2:])
    else:
        parsed = Period("QUARTER" if "Q" in period else "HY", period)
    return FactRecord(
        "REVENUE", "ACME_GROUP", parsed, "TOTAL", value, "CNY_M", "t.xlsx", f"sheet=t!{period}", sensitivity=INTERNAL
    )


stores = st.dictionaries(
    st.sampled_from(PERIODS),
    st.decimals(min_value=Decimal("-500"), max_value=Decimal("99999.99"), places=2, allow_nan=False),
    min_size=1,
)


@settings(max_examples=80, deadline=None)
@given(stores, st.sampled_from(("sum", "end", "none")), st.sampled_from(QUESTIONS))
def test_derived_and_aggregated_values_follow_their_formula_and_how_the_metric_adds_up(
    figures: dict[str, Decimal], aggregation: str, question: str
) -> None:
    revenue = replace(GLOSSARY.metrics["REVENUE"], aggregation=aggregation)
    glossary = replace(GLOSSARY, metrics={**GLOSSARY.metrics, "REVENUE": revenue})
    store = InMemoryFactStore([record(period, value) for period, value in figures.items()])
    result = answer_question(
        question, Ports(glossary=glossary, store=store, provider=MockProvider()), cleared=True, reference_date=REFERENCE
    )
    stored = {f.period.label: f.value for f in store.facts.values()}
    for computed in result.computed:
        assert computed_reevaluate(computed) == computed.value, (question, computed.formula)
        for source in computed.inputs:  # every input is a stored figure, as stored
            assert stored[source.period.label] == source.value
        if aggregation == "none":
            assert computed.kind not in ADDING, (question, computed.formula)
        if aggregation == "end" and computed.kind == "derived":
            assert "-" not in computed.formula and "−" not in computed.formula, (question, computed.formula)
    if aggregation != "sum":
        assert not any(c.kind == "sum" for c in result.computed), question
