"""A store that finds the head of a long ranking itself (`FiguresHeadStore`) gives the answer
that reading every figure gives, and a store that cannot tell (None) is read figure by figure."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from core.engine import sensitivity_max
from core.model.period import Period
from core.ports import FiguresHead
from tests.core.support.computing import long_field, ranked
from tests.fakes import InMemoryFactStore


class HeadStore(InMemoryFactStore):
    """`figures_head` over the in-memory facts: no more rows than the contract asks for (the
    `top`, the ties of the `top`-th, and one more)."""

    head_calls = 0

    def figures_head(
        self,
        metric: str,
        entities: Collection[str],
        period: Period,
        channel: str,
        *,
        cleared: bool,
        order: str,
        top: int,
    ) -> FiguresHead | None:
        self.head_calls += 1
        rows = InMemoryFactStore.figures_get(self, metric, entities, period, channel, cleared=cleared, order=order)
        self.figure_calls -= 1  # not a read of every figure by the caller
        boundary = float(rows[top - 1][1]) if len(rows) >= top else None
        cut = next((i for i in range(top, len(rows)) if float(rows[i][1]) != boundary), len(rows))
        return FiguresHead(
            rows=tuple(rows[: cut + 1]),
            count=len(rows),
            units=frozenset(row[3] for row in rows),
            sensitivity=sensitivity_max(row[2] for row in rows),
            found=frozenset(row[0] for row in rows) if len(rows) < len(set(entities)) else None,
        )


class CannotTell(InMemoryFactStore):
    head_calls = 0

    def figures_head(self, *args: object, **kwargs: object) -> FiguresHead | None:
        self.head_calls += 1
        return None


@pytest.mark.parametrize("operation", [{}, {"top": 3}, {"order": "asc"}, {"top": 12}])
@pytest.mark.parametrize("cleared", [False, True])
@pytest.mark.parametrize("ties", [0, 4, 40])
def test_a_head_found_by_the_store_answers_as_every_figure_does(operation: dict, cleared: bool, ties: int) -> None:
    glossary, facts = long_field(ties=ties)
    head, whole = HeadStore(facts), InMemoryFactStore(facts)
    fast = ranked("2025年哪个子公司营收最高", head, glossary, cleared=cleared, **operation)
    slow = ranked("2025年哪个子公司营收最高", whole, glossary, cleared=cleared, **operation)
    assert head.head_calls == 1 and getattr(head, "figure_calls", 0) == 0 and whole.figure_calls == 1
    assert fast.answer == slow.answer
    assert fast.computed == slow.computed
    assert fast.facts == slow.facts
    assert fast.ranking.count == slow.ranking.count
    assert fast.ranking.missing == slow.ranking.missing
    assert fast.ranking.sensitivity == slow.ranking.sensitivity


def test_a_store_that_cannot_tell_the_head_is_read_figure_by_figure() -> None:
    glossary, facts = long_field()
    store = CannotTell(facts)
    answer = ranked("2025年哪个子公司营收最高", store, glossary, cleared=False)
    expected = ranked("2025年哪个子公司营收最高", InMemoryFactStore(facts), glossary, cleared=False)
    assert store.head_calls == 1 and store.figure_calls == 1
    assert answer.answer == expected.answer and answer.computed == expected.computed
