"""A why over a long list of subsidiaries ranked and summed by the store (`ChangesHeadStore`)
decomposes exactly as it does from every part's figures: the same rows in the same order, ties
by entity code, the same rest row, count and lacking parts, for a cleared and an uncleared user."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.operands import code_label
from core.engine.why.amount import amount_decompose
from core.engine.why.decomposition import Decomposition
from core.model.facts import INTERNAL, PUBLIC, RESTRICTED, FactRecord, SubTask
from core.model.period import Period
from core.routes.computed import why as route
from core.routes.computed.subjects import Reader
from tests.fakes import InMemoryFactStore

NOW, BEFORE = Period("FY", "2025"), Period("FY", "2024")
PROPERTY = settings(max_examples=60, derandomize=True, deadline=None, database=None)
# Few distinct values, so that changes tie often; one decimal or none, as figures are printed.
value = st.sampled_from([Decimal(v) for v in ("0", "1", "2.5", "10", "10.0", "-3", "7.1", "100", "99.9")])
figure = st.one_of(value, value, value, value, st.none())  # None: no figure in that period
level = st.sampled_from([PUBLIC, INTERNAL, INTERNAL, INTERNAL, RESTRICTED])


def _fact(entity: str, period: Period, amount: Decimal, sensitivity: str = INTERNAL, **other: str) -> FactRecord:
    metric, channel = other.get("metric", "REV"), other.get("channel", "TOTAL")
    return FactRecord(
        metric, entity, period, channel, amount, "CNY_M", "t.xlsx", f"{entity}{period.label}", sensitivity
    )


class FiguresOnly(InMemoryFactStore):
    """The same store without `changes_head`: the why reads every figure (`_figures`)."""

    changes_head = None  # type: ignore[assignment]


def _decompose(store: InMemoryFactStore, cleared: bool, pairs: route._EntityPairs) -> Decomposition | None:
    whole = SubTask("REV", "W", NOW)
    lookup = Reader(store, cleared)
    ranked = route._ranked(lookup, store, cleared, whole, BEFORE, pairs)
    assert (ranked is not None) == (not isinstance(store, FiguresOnly) and lookup(whole) is not None)
    return amount_decompose(
        lookup,
        whole,
        BEFORE,
        pairs,
        "entity",
        label=code_label,
        figures=route._figures(store, cleared, pairs) if ranked is None else None,
        prefetch=lambda keys: lookup.prefetch(keys, {}),
        ranked=ranked,
    )


def _shown(found: Decomposition | None) -> object:
    if found is None:
        return None
    rows = [(r.part, r.change.as_dict(), r.share and r.share.as_dict(), r.parts, r.unallocated) for r in found.rows]
    return rows, found.change.value, found.lacking, found.count, [c.as_dict() for c in found.computed]


@PROPERTY
@given(
    parts=st.lists(st.tuples(figure, figure, level), min_size=25, max_size=60),
    whole=value,  # the whole's figure before
    whole_delta=st.sampled_from([Decimal(0), Decimal("0.1"), Decimal(5)]),
)
def test_the_store_ranked_decomposition_is_the_one_from_every_figure(parts, whole, whole_delta) -> None:
    facts: list[FactRecord] = []
    for i, (now, before, sensitivity) in enumerate(parts):
        code = f"S{(i * 7) % 61:02d}"  # listed out of code order: ties must still go by code
        facts += [_fact(code, p, v, sensitivity) for p, v in ((NOW, now), (BEFORE, before)) if v is not None]
        # noise: another metric, channel and period of the same entity
        facts += [
            _fact(code, NOW, Decimal(999), metric="COST"),
            _fact(code, NOW, Decimal(-999), channel="ONLINE"),
            _fact(code, Period("FY", "2023"), Decimal(12345)),
        ]
    codes = list(dict.fromkeys(f"S{(i * 7) % 61:02d}" for i in range(len(parts))))
    # the whole: the sum of the parts an uncleared user sees (a `rest` row for them), or off by
    # a little or a lot (`rest_left`, as for a cleared user when some part is RESTRICTED)
    seen = sum(n - b for n, b, lv in parts if n is not None and b is not None and lv != RESTRICTED)
    facts += [_fact("W", NOW, whole + seen + whole_delta), _fact("W", BEFORE, whole)]
    pairs = route._EntityPairs(SubTask("REV", "W", NOW), BEFORE, codes)
    assert pairs[:2] == [(SubTask("REV", c, NOW), SubTask("REV", c, BEFORE)) for c in codes[:2]]
    for cleared in (False, True):
        store, reference = InMemoryFactStore(facts), FiguresOnly(facts)
        expected = _decompose(reference, cleared, pairs)
        assert _shown(_decompose(store, cleared, pairs)) == _shown(expected)
        assert getattr(store, "figure_calls", 0) == 0  # no figure was read one by one
        assert getattr(reference, "changes_calls", 0) == 0


def test_a_whole_without_its_own_figures_sums_every_part_as_before() -> None:
    facts = [_fact(f"S{i:02d}", p, Decimal(i * k)) for i in range(20) for p, k in ((NOW, 3), (BEFORE, 2))]
    pairs = route._EntityPairs(SubTask("REV", "W", NOW), BEFORE, [f"S{i:02d}" for i in range(20)])
    store = InMemoryFactStore(facts)
    found = _decompose(store, True, pairs)
    assert found is not None and found.count == 20 and found.change.value == sum(Decimal(i) for i in range(20))
    assert getattr(store, "changes_calls", 0) == 0
