"""A sum or ranking reads its inputs in one bulk read when the store offers one, and answers
exactly as it does key by key."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.model.facts import RESTRICTED, FactRecord
from core.model.operation import Operation
from core.model.period import Period
from tests.core.support.computing import (
    FY2025,
    FiguresOnlyMissing,
    N,
    ask,
    long_field,
    many_subsidiaries,
    ranked,
)
from tests.fakes import InMemoryFactStore


class OneByOneStore(InMemoryFactStore):
    """The same facts, without `facts_get`: the reader falls back to one read per key."""

    facts_get = None  # type: ignore[assignment]


def test_a_ranking_of_a_formula_metric_reads_its_inputs_in_one_bulk_read() -> None:
    glossary, facts = many_subsidiaries()
    bulk, single = InMemoryFactStore(facts), OneByOneStore(facts)
    for cleared in (False, True):
        answers = [
            ask(
                "2025年哪个子公司营业利润率最高",
                store=store,
                glossary=glossary,
                cleared=cleared,
                metric="OPERATING_MARGIN",
                metrics=("OPERATING_MARGIN",),
                entity=None,
                entities=(),
                period=FY2025,
                periods=(FY2025,),
                operation=Operation("rank", cue="最高", over="entities"),
            )
            for store in (bulk, single)
        ]
        assert answers[0].answer == answers[1].answer
        assert answers[0].computed == answers[1].computed
        ranking = answers[0].ranking
        assert ranking is not None and len(ranking.rows) == 10 and ranking.count > N // 2
    assert bulk.bulk_calls == 2  # one bulk read per question
    assert bulk.calls == 0  # and no read key by key
    assert single.calls >= 2 * N


@pytest.mark.parametrize("operation", [{}, {"top": 3}, {"order": "asc"}, {"top": 12}])
@pytest.mark.parametrize("cleared", [False, True])
def test_the_head_of_a_long_ranking_read_from_bare_figures_answers_as_ranking_every_fact(
    operation: dict, cleared: bool
) -> None:
    glossary, facts = long_field()
    head, whole = InMemoryFactStore(facts), FiguresOnlyMissing(facts)
    fast = ranked("2025年哪个子公司营收最高", head, glossary, cleared=cleared, **operation)
    slow = ranked("2025年哪个子公司营收最高", whole, glossary, cleared=cleared, **operation)
    assert head.figure_calls == 1 and getattr(whole, "figure_calls", 0) == 0
    assert fast.answer == slow.answer
    assert fast.computed == slow.computed
    assert fast.facts == slow.facts
    assert fast.ranking.count == slow.ranking.count == N - 25 - (0 if cleared else 1)
    assert fast.ranking.missing == slow.ranking.missing
    assert fast.ranking.sensitivity == slow.ranking.sensitivity == (RESTRICTED if cleared else "INTERNAL")
    assert len(fast.facts) == len(fast.ranking.rows) < 20  # the rows shown, not the whole field
    assert "等 26 项" in fast.answer if not cleared else "等 25 项" in fast.answer


def test_a_tie_at_the_cut_keeps_every_tied_row() -> None:
    glossary, facts = long_field(ties=4)
    result = ranked("2025年哪个子公司营收最高", InMemoryFactStore(facts), glossary, cleared=True)
    # four at 5000 (ranks 1), then 4999 ×4 at rank 5, then the field below 4999 starts at rank 9, 10
    assert [row.rank for row in result.ranking.rows][:8] == [1, 1, 1, 1, 5, 5, 5, 5]
    assert all(row.rank <= 10 for row in result.ranking.rows)
    assert "FY2025" in result.answer and "共" not in result.answer.split("\n")[0]


# -- a series: one read for the range, not one per period ---------------------------------
def _quarterly_store(cls: type[InMemoryFactStore] = InMemoryFactStore) -> InMemoryFactStore:
    quarters = [Period("QUARTER", f"{year}Q{q}") for year in (2022, 2023, 2024, 2025) for q in (1, 2, 3, 4)]
    facts = [
        FactRecord("REVENUE", "ACME_HK", p, "TOTAL", Decimal(1000 + 17 * i), "CNY_M", "q.xlsx", f"q={i}")
        for i, p in enumerate(quarters)
        if p.label != "2024Q2"  # one quarter missing: named, never skipped
    ]
    return cls(facts)


@pytest.mark.parametrize("question", ["香港最近12个季度营收每季度环比增长多少", "香港最近12个季度每个季度的营收"])
def test_a_twelve_quarter_series_reads_its_range_in_one_bulk_read(question: str) -> None:
    store = _quarterly_store()
    result = ask(question, store=store, cleared=True)
    assert store.bulk_calls == 1 and store.calls == 0
    key_by_key = ask(question, store=_quarterly_store(OneByOneStore), cleared=True)
    assert result.answer == key_by_key.answer and result.computed == key_by_key.computed
    assert "2024Q2" in result.answer and len({f.period for f in result.facts}) >= 11
