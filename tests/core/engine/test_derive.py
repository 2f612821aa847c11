"""`derived_run`: a half or a year not stored, derived inside any operation (SPEC §5a, §6a).

The derived value is a computed value with its formula and inputs; the operation's formula is
written over the derivation, its inputs are stored facts only and `computed_reevaluate` gives its
value again; a stored fact wins; two derivations that disagree refuse the operation; a figure the
user may not see is never used; no stand-in figure ever leaves."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import (
    CannotCompute,
    Change,
    Computed,
    computed_reevaluate,
    difference_compute,
    facts_lookup,
    growth_compute,
    ratio_compute,
    share_compute,
    sum_compute,
)
from core.engine.derive import Derived, derived_run
from core.engine.rate_gap import rate_gap_compute
from core.model.facts import INTERNAL, RESTRICTED, FactRecord, SubTask
from core.model.period import Period
from tests.core.support.computing import exact

D = Decimal
H1, H2, FY = Period("HY", "2025H1"), Period("HY", "2025H2"), Period("FY", "2025")
Q = {n: Period("QUARTER", f"2025Q{n}") for n in (1, 2, 3, 4)}


def fact(period: Period, value: str, *, metric: str = "REVENUE", unit: str = "CNY_M", sensitivity: str = INTERNAL):
    return FactRecord(
        metric, "ACME_GROUP", period, "TOTAL", D(value), unit, "t.xlsx", period.label, sensitivity=sensitivity
    )


DEMO = [
    fact(FY, "128450.6"),
    fact(H1, "61204.8"),
    *(fact(Q[n], v) for n, v in ((1, "29880.1"), (2, "31324.7"), (3, "32118.5"), (4, "35127.3"))),
]


def task(period: Period, metric: str = "REVENUE") -> SubTask:
    return SubTask(metric, "ACME_GROUP", period)


def run(facts, compute, *args, aggregation: str = "sum", **kwargs) -> Derived:
    return derived_run(
        lambda lookup: compute(lookup, *args, **kwargs), facts_lookup(facts), aggregation=lambda code: aggregation
    )


def stored_only(result: Computed, facts) -> None:
    assert set(result.inputs) <= set(facts)
    assert computed_reevaluate(result) == result.value, result.formula


def test_the_second_half_against_the_first() -> None:
    derived = run(DEMO, difference_compute, task(H2), task(H1))
    change = derived.outcome
    assert isinstance(change, Change) and change.rate is not None
    assert change.change.value == D("6041.0") and change.rate.display == "9.87%"
    assert change.change.formula == "(REVENUE[FY2025] - REVENUE[2025H1]) - REVENUE[2025H1]"
    assert [f.period for f in change.inputs] == [FY, H1]
    for item in change.computed:
        stored_only(item, DEMO)
    (shown,) = derived.shown  # the derivation used, with its own formula and inputs
    assert (shown.kind, shown.value, shown.formula) == ("derived", D("67245.8"), "REVENUE[FY2025] - REVENUE[2025H1]")
    assert shown.subject == task(H2)


def test_growth_ratio_and_share_of_a_derived_half() -> None:
    ratio = run(DEMO, ratio_compute, task(H2), task(H1)).outcome
    share = run(DEMO, share_compute, task(H2), task(FY)).outcome
    assert isinstance(ratio, Computed) and ratio.display == "109.87%"
    assert isinstance(share, Computed) and share.display == "52.35%"
    assert share.formula == "(REVENUE[FY2025] - REVENUE[2025H1]) / REVENUE[FY2025]"
    for item in (ratio, share):
        stored_only(item, DEMO)


def test_a_stored_fact_wins_and_nothing_is_derived() -> None:
    stored = [*DEMO, fact(H2, "67000")]
    derived = run(stored, difference_compute, task(H2), task(H1))
    assert isinstance(derived.outcome, Change) and derived.outcome.change.value == D("5795.2")
    assert derived.shown == ()
    assert derived.outcome.change.formula == "REVENUE[2025H2] - REVENUE[2025H1]"


def test_derivations_that_disagree_refuse_and_both_are_shown() -> None:
    off = [f for f in DEMO if f.period != Q[4]] + [fact(Q[4], "35000")]
    derived = run(off, difference_compute, task(H2), task(H1))
    assert isinstance(derived.outcome, CannotCompute) and derived.outcome.reason.code == "derivations_disagree"
    assert derived.disagree and [c.value for c in derived.shown] == [D("67245.8"), D("67118.5")]
    assert "不一致" in derived.outcome.reason.zh and "disagree" in derived.outcome.reason.en


def test_a_figure_the_user_may_not_see_is_never_derived_from() -> None:
    """The lookup is the user's: a RESTRICTED FY is simply not found, and H2 stays missing
    when Q3 and Q4 are missing too."""
    hidden = [fact(FY, "128450.6", sensitivity=RESTRICTED), fact(H1, "61204.8")]
    visible = [f for f in hidden if f.sensitivity != RESTRICTED]
    derived = run(visible, difference_compute, task(H2), task(H1))
    assert isinstance(derived.outcome, CannotCompute) and derived.outcome.missing == (task(H2),)
    assert derived.shown == ()


def test_a_ratio_metric_is_never_derived_and_a_balance_is_its_year_end() -> None:
    margins = [fact(FY, "29.7", metric="GROSS_MARGIN", unit="PCT"), fact(H1, "30.1", metric="GROSS_MARGIN", unit="PCT")]
    refused = run(margins, difference_compute, task(H2, "GROSS_MARGIN"), task(H1, "GROSS_MARGIN"), aggregation="none")
    assert isinstance(refused.outcome, CannotCompute) and refused.outcome.missing
    members = [fact(FY, "5832", metric="ACTIVE_MEMBERS", unit="TEN_THOUSAND_PERSONS")]
    members.append(fact(H1, "5500", metric="ACTIVE_MEMBERS", unit="TEN_THOUSAND_PERSONS"))
    balance = run(
        members, difference_compute, task(H2, "ACTIVE_MEMBERS"), task(H1, "ACTIVE_MEMBERS"), aggregation="end"
    )
    assert isinstance(balance.outcome, Change)
    assert balance.outcome.change.formula == "ACTIVE_MEMBERS[FY2025] - ACTIVE_MEMBERS[2025H1]"


def test_refused_on_other_grounds_shows_no_derived_value() -> None:
    mixed = [*DEMO, fact(H1, "420", metric="NEW_STORES", unit="COUNT")]
    derived = run(mixed, ratio_compute, task(H2), task(H1, "NEW_STORES"))
    assert isinstance(derived.outcome, CannotCompute) and derived.shown == ()
    assert all(f.source_doc == "t.xlsx" for f in derived.outcome.inputs)  # no stand-in, stored inputs only


def test_a_sum_over_a_derived_year_and_stored_ones() -> None:
    years = [fact(Period("FY", "2024"), "118340.2"), *DEMO[1:]]  # FY2025 not stored: its quarters
    derived = run(years, sum_compute, [task(Period("FY", "2024")), task(FY)])
    assert isinstance(derived.outcome, Computed)
    assert derived.outcome.value == D("118340.2") + D("128450.6")
    stored_only(derived.outcome, years)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.decimals(min_value=-(10**6), max_value=10**6, places=1, allow_nan=False), min_size=3, max_size=3),
    st.sampled_from([difference_compute, growth_compute, ratio_compute, share_compute]),
)
def test_every_result_over_a_derivation_is_its_stored_inputs_evaluated(values, compute) -> None:
    fy, h1, prior = values
    facts = [fact(FY, str(fy)), fact(H1, str(h1)), fact(Period("HY", "2024H2"), str(prior))]
    if compute is growth_compute:
        derived = run(facts, compute, task(H2))
    elif compute is share_compute:
        derived = run(facts, compute, task(H2), task(FY))
    else:
        derived = run(facts, compute, task(H2), task(H1))
    outcome = derived.outcome
    items = outcome.computed if isinstance(outcome, (Change, Computed)) else ()
    for item in items:
        stored_only(item, facts)
        assert "(derived)" not in {f.source_doc for f in item.inputs}
    if isinstance(outcome, CannotCompute):
        assert all(f in facts for f in outcome.inputs)


@pytest.mark.parametrize("period", [H1, FY])
def test_the_first_half_and_the_year_too(period: Period) -> None:
    parts = [fact(Q[n], v) for n, v in ((1, "10"), (2, "20"), (3, "30"), (4, "40"))]
    derived = run(
        [*parts, fact(Period("FY", "2024"), "90"), fact(Period("HY", "2024H1"), "25")], growth_compute, task(period)
    )
    assert isinstance(derived.outcome, Change)
    assert derived.outcome.change.value == (D(100) - D(90) if period == FY else D(30) - D(25))


def test_an_operation_that_stops_at_its_first_missing_key_is_derived_in_rounds() -> None:
    """A gap between two growths reads the second only once the first is computed."""

    def year(entity: str, fy: str, h1: str, prior_fy: str, prior_h1: str) -> list[FactRecord]:
        rows = [(FY, fy), (H1, h1), (Period("FY", "2024"), prior_fy), (Period("HY", "2024H1"), prior_h1)]
        return [replace(fact(p, v), entity=entity) for p, v in rows]

    facts = [*year("ACME_HK", "200", "90", "150", "70"), *year("ACME_SEA", "120", "50", "100", "45")]
    first, second = (SubTask("REVENUE", e, H2) for e in ("ACME_HK", "ACME_SEA"))
    derived = run(facts, rate_gap_compute, first, second)
    assert isinstance(derived.outcome, tuple)
    gap, one, other = derived.outcome
    assert one.value == exact(lambda: D(30) / D(80)) and other.value == exact(lambda: D(15) / D(55))
    assert gap.value == exact(lambda: (D(30) / D(80) - D(15) / D(55)) * 100)
    assert len(derived.shown) == 4  # both halves of both entities, each FY − H1
    for item in derived.outcome:
        stored_only(item, facts)
