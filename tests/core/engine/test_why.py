"""The quantitative why's arithmetic (`core.engine.why`) over generated fact stores."""

from __future__ import annotations

from decimal import Decimal, localcontext

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import computed_reevaluate, facts_lookup
from core.engine.operands import code_label
from core.engine.why.amount import amount_decompose
from core.engine.why.ratio import ratio_decompose
from core.model.facts import INTERNAL, FactRecord, SubTask
from core.model.period import Period

NOW, BEFORE = Period("FY", "2025"), Period("FY", "2024")
PROPERTY = settings(max_examples=80, derandomize=True, deadline=None, database=None)
money = st.decimals(min_value=-(10**9), max_value=10**9, places=1, allow_nan=False, allow_infinity=False)
positive = st.decimals(min_value=Decimal("0.1"), max_value=10**9, places=1, allow_nan=False, allow_infinity=False)


def _fact(metric: str, entity: str, period: Period, value: Decimal, unit: str = "CNY_M") -> FactRecord:
    return FactRecord(metric, entity, period, "TOTAL", value, unit, "t.xlsx", f"{entity}{period.label}", INTERNAL)


def _pairs(count: int, metric: str = "REV") -> list[tuple[SubTask, SubTask]]:
    return [(SubTask(metric, f"P{i}", NOW), SubTask(metric, f"P{i}", BEFORE)) for i in range(count)]


@PROPERTY
@given(
    parts=st.lists(st.tuples(money, money), min_size=2, max_size=30),
    whole=st.one_of(st.none(), st.tuples(money, money)),
    shown=st.integers(min_value=1, max_value=12),
)
def test_an_amounts_rows_add_up_exactly_to_its_change(parts, whole, shown) -> None:
    facts = [
        _fact("REV", f"P{i}", p, v) for i, pair in enumerate(parts) for p, v in zip((NOW, BEFORE), pair, strict=True)
    ]
    if whole is not None:
        facts += [_fact("REV", "W", NOW, whole[0]), _fact("REV", "W", BEFORE, whole[1])]
    found = amount_decompose(
        facts_lookup(facts),
        SubTask("REV", "W", NOW),
        BEFORE,
        _pairs(len(parts)),
        "entity",
        label=code_label,
        shown=shown,
    )
    assert found is not None
    expected = (whole[0] - whole[1]) if whole is not None else sum(a - b for a, b in parts)
    assert found.change.value == expected
    assert sum(row.change.value for row in found.rows) == found.change.value  # exactly, no tolerance
    assert sum(row.parts for row in found.rows) == len(parts)  # every part is a row or in the rest
    listed = [row for row in found.rows if row.part is not None]
    assert [abs(r.change.value) for r in listed] == sorted((abs(r.change.value) for r in listed), reverse=True)
    for computed in found.computed:
        assert computed_reevaluate(computed) == computed.value  # lineage: the formula over its inputs
    if found.change.value:
        with localcontext() as context:
            context.prec = 60  # the shares are quotients rounded at 34 digits; their sum is 1 to that
            values = [row.share.value for row in found.rows if row.share is not None]
            assert len(values) == len(found.rows)
            assert abs(sum(values) - 1) <= len(values) * max(abs(v) for v in values) * Decimal("1e-33")


@PROPERTY
@given(
    parts=st.lists(st.tuples(money, positive, money, positive), min_size=2, max_size=6),
    reconciled=st.booleans(),
    whole=st.tuples(money, positive, money, positive),
)
def test_a_ratios_rate_and_mix_effects_add_up_to_its_change(parts, reconciled, whole) -> None:
    facts = []
    for i, (n1, d1, n0, d0) in enumerate(parts):
        facts += [_fact("NUM", f"P{i}", NOW, n1), _fact("DEN", f"P{i}", NOW, d1)]
        facts += [_fact("NUM", f"P{i}", BEFORE, n0), _fact("DEN", f"P{i}", BEFORE, d0)]
    if reconciled:  # the whole's figures are its parts' sums: no row of its own
        whole = tuple(sum(p[k] for p in parts) for k in range(4))
        if whole[1] <= 0 or whole[3] <= 0:
            return
    n1, d1, n0, d0 = whole
    facts += [_fact("NUM", "W", NOW, n1), _fact("DEN", "W", NOW, d1)]
    facts += [_fact("NUM", "W", BEFORE, n0), _fact("DEN", "W", BEFORE, d0)]
    found = ratio_decompose(
        facts_lookup(facts),
        SubTask("MARGIN", "W", NOW),
        BEFORE,
        _pairs(len(parts), "MARGIN"),
        "entity",
        numerator="NUM",
        divisor="DEN",
        label=code_label,
    )
    assert found is not None and len(found.effects) == len(parts)
    with localcontext() as context:
        context.prec = 60  # the test's own sums, far finer than the 34 digits checked
        scale = max([abs(e.rate.value) + abs(e.mix.value) for e in found.effects] + [abs(found.change.value), 1])
        tolerance = scale * len(parts) * Decimal("1e-28")
        assert abs(found.change.value - (n1 / d1 - n0 / d0) * 100) < tolerance
        for effect in found.effects:
            assert abs(effect.rate.value + effect.mix.value - effect.total.value) < tolerance
        left = found.unallocated.value if found.unallocated is not None else 0
        assert abs(sum(e.total.value for e in found.effects) + left - found.change.value) < tolerance
        if reconciled:
            assert found.unallocated is None
        for computed in found.computed:
            assert abs(computed_reevaluate(computed) - computed.value) < tolerance


def test_a_part_with_a_figure_in_one_period_is_not_a_row_and_its_figure_is_not_unallocated_silently() -> None:
    facts = [
        _fact("REV", "W", NOW, Decimal(100)),
        _fact("REV", "W", BEFORE, Decimal(70)),
        _fact("REV", "P0", NOW, Decimal(60)),
        _fact("REV", "P0", BEFORE, Decimal(50)),
        _fact("REV", "P1", NOW, Decimal(30)),
        _fact("REV", "P1", BEFORE, Decimal(20)),
        _fact("REV", "P2", NOW, Decimal(10)),  # new this year: no comparison
    ]
    found = amount_decompose(
        facts_lookup(facts), SubTask("REV", "W", NOW), BEFORE, _pairs(3), "entity", label=code_label
    )
    assert found is not None
    assert [r.part.entity if r.part else None for r in found.rows] == ["P0", "P1", None]
    assert found.rows[-1].change.value == Decimal(10) and found.rows[-1].parts == 0
    assert [p.entity for p in found.lacking] == ["P2"]


def test_fewer_than_two_comparable_parts_is_no_decomposition() -> None:
    facts = [_fact("REV", "P0", NOW, Decimal(1)), _fact("REV", "P0", BEFORE, Decimal(2))]
    assert (
        amount_decompose(facts_lookup(facts), SubTask("REV", "W", NOW), BEFORE, _pairs(2), "entity", label=code_label)
        is None
    )
