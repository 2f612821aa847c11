"""A metric's sign convention on the question side (SPEC §15, `core.model.sign`): an amount paid
stored as the amount (a `positive` metric: `(6,420.0)` stored as 6420.0, the printed figure kept
beside it) is computed with as it is, never negated a second time, and gives the same figure as
the same outflow stored as printed (-6420.0), which the engine takes as the amount paid. The
printed figure is shown in the fact's source. Plain pytest over fakes, no database."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from core.model.facts import FactRecord
from core.model.sign import SIGN_AS_PRINTED, SIGN_POSITIVE, printed_display, sign_apply, sign_reapply
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import ask, demo_store
from tests.fakes import InMemoryFactStore

KEY = ("CAPEX", "ACME_GROUP", "FY2025")


def _capex(store: InMemoryFactStore) -> FactRecord:
    return next(f for f in store.facts.values() if (f.metric, f.entity, f.period.label) == KEY)


def _stores() -> tuple[InMemoryFactStore, InMemoryFactStore]:
    """The demo facts with the group's FY2025 capex printed `(6,420.0)`: stored as the amount with
    the printed figure kept (a `positive` metric), and stored as printed (`as_printed`)."""
    printed = -_capex(demo_store()).value
    amount, kept = sign_apply(printed, SIGN_POSITIVE)
    base = _capex(demo_store())
    positive = demo_store(replace(base, value=amount, printed_value=kept), drop=(KEY,))
    as_printed = demo_store(replace(base, value=printed), drop=(KEY,))
    return positive, as_printed


@pytest.mark.parametrize(
    "question",
    [
        "ACME集团2025年资本开支占营收的百分比是多少？",
        "Define free cash proxy as revenue minus capex. What is ACME Group's FY2025 free cash proxy?",
        "ACME集团2025年营收减去资本开支是多少？",
    ],
)
def test_an_amount_stored_positive_is_computed_with_as_it_is_never_negated_twice(question: str) -> None:
    positive, as_printed = _stores()
    from_amount = ask(question, store=positive)
    from_printed = ask(question, store=as_printed)
    assert from_amount.computed, from_amount.answer
    revenue = next(
        f.value
        for f in positive.facts.values()
        if (f.metric, f.entity, f.period.label) == ("REVENUE", "ACME_GROUP", "FY2025")
    )
    expected = {Decimal("6420.0") / revenue, revenue - Decimal("6420.0")}
    value = from_amount.computed[0].value
    assert any(abs(value - e) < Decimal("1e-20") for e in expected), (value, from_amount.answer)
    # the same figure as the outflow stored as printed, which the engine takes as the amount paid
    assert value == from_printed.computed[0].value
    # stored positive: nothing to negate, so no negated input and no "printed as an outflow" note
    assert "(-资本开支" not in from_amount.answer and "(-capex" not in from_amount.answer
    assert "以流出列示" not in from_amount.answer and "printed as an outflow" not in from_amount.answer
    assert "以流出列示" in from_printed.answer or "printed as an outflow" in from_printed.answer


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("ACME集团2025年资本开支是多少", "· 原表列示 (6,420.0)）"),
        ("What was ACME Group's capex in 2025?", "· printed (6,420.0))"),
    ],
)
def test_a_fact_stored_as_the_amount_shows_its_printed_figure_in_its_source(question: str, shown: str) -> None:
    positive, as_printed = _stores()
    result = ask(question, store=positive, provider=MockProvider())
    assert "6,420.0" in result.answer and "-6,420.0" not in result.answer
    assert result.answer.endswith(shown), result.answer
    assert result.sources[0].snippet.endswith("· printed (6,420.0)")
    assert "printed" not in ask(question, store=as_printed, provider=MockProvider()).sources[0].snippet


def test_a_figure_printed_positive_of_a_positive_metric_shows_no_printed_note() -> None:
    base = _capex(demo_store())
    amount, kept = sign_apply(base.value, SIGN_POSITIVE)  # printed 6,420.0 under "Purchases of …"
    store = demo_store(replace(base, value=amount, printed_value=kept), drop=(KEY,))
    result = ask("ACME集团2025年资本开支是多少", store=store, provider=MockProvider())
    assert "原表列示" not in result.answer and "6,420.0" in result.answer


def test_a_sign_convention_is_exact_and_reversible() -> None:
    assert sign_apply(Decimal("-1577.0"), SIGN_POSITIVE) == (Decimal("1577.0"), Decimal("-1577.0"))
    assert str(sign_apply(Decimal("-1577.0"), SIGN_POSITIVE)[0]) == "1577.0"  # the printed scale kept
    assert sign_apply(Decimal("1577"), SIGN_POSITIVE) == (Decimal("1577"), Decimal("1577"))
    assert sign_apply(Decimal("-1577"), SIGN_AS_PRINTED) == (Decimal("-1577"), None)
    # converted and converted back: the figure as printed again, nothing kept beside it
    assert sign_reapply(Decimal("1577"), Decimal("-1577"), SIGN_AS_PRINTED) == (Decimal("-1577"), None)
    assert sign_reapply(Decimal("1577"), Decimal("-1577"), SIGN_POSITIVE) == (Decimal("1577"), Decimal("-1577"))
    assert (printed_display(Decimal("-1577")), printed_display(Decimal("1577.5"))) == ("(1,577)", "1,577.5")
