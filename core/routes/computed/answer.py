"""A computed answer put together: text (result, formula, inputs), kind, input facts, tool
results and every `Computed`.

A refusal contributes its missing inputs as `not_found` results and no partial input; every
input of a computed value is a `found` fact, listed once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any

from core.engine import CannotCompute, Change, Computed, Ranking, RankRow
from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.registry import KIND_ANSWER, KIND_REFUSAL
from core.routes.computed import ranking_text
from core.routes.computed import render as computed_render
from core.routes.lookup import render as lookup_render
from core.routes.lookup.tools import FOUND, NOT_FOUND, fact_as_dict

Outcome = Computed | Change | Ranking | CannotCompute | FactRecord | SubTask  # SubTask: a level not found

Pending = Callable[[SubTask], int]  # a missing key's candidates awaiting review, as the user may see them

RANK_LISTED_WHOLE = 20  # a field this short is listed whole when no top N was asked for
RANK_SHOWN = 10  # the rows a longer field's answer lists (the whole field is still ranked)


@dataclass(frozen=True)
class Item:
    """One block of the answer: an outcome, and what was asked in words (a refusal's title)."""

    outcome: Outcome
    asked: tuple[str, str] = ("", "")
    words: tuple[str, str] = ("", "")  # a change's comparison: 同比 / YoY, 较 FY2024 / vs FY2024
    change_only: bool = False  # a difference asked with one period: the growth's absolute change
    line: bool = False  # the one-line difference of a listed pair (`对比：…`)
    other: tuple[str, str] = ("", "")  # a difference between two items: the second one's name
    multiple: bool = False  # a ratio of one metric between two items: also shown as a multiple
    position: int | None = None  # a ranking: the place asked about (排名第二), named in the headline
    lead: tuple[str, str] = ("", "")  # a line said before the item's own (zh, en)
    decimals: int | None = None  # a stored fact asked at its level: the places it is shown to


@dataclass(frozen=True)
class RankedComputed(Computed):
    """A rank item with what the UI's chart and title need as fields: the figure it ranks (exact,
    and as displayed), the metric ranked, the order and how many figures were ranked."""

    ranked_value: Decimal = Decimal(0)
    ranked_display: str = ""
    ranked_metric: str = ""
    order: str = "desc"
    count: int = 0

    def as_dict(self, language: str = "zh") -> dict[str, Any]:
        ranked = {
            "ranked_value": f"{self.ranked_value:f}",
            "ranked_display": self.ranked_display,
            "ranked_metric": self.ranked_metric,
            "order": self.order,
            "count": self.count,
        }
        return {**super().as_dict(language), **ranked}


@dataclass(frozen=True)
class ComputedAnswer:
    text: str
    kind: str
    facts: tuple[FactRecord, ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    computed: tuple[Computed, ...] = ()
    ranking: Ranking | None = None


# -- assembly ------------------------------------------------------------------------------
def _item_lines(item: Item, glossary: GlossarySnapshot, language: str, pending: Pending) -> list[str]:
    lead = item.lead[1] if language == "en" else item.lead[0]
    return ([lead] if lead else []) + _own_lines(item, glossary, language, pending)


def _own_lines(item: Item, glossary: GlossarySnapshot, language: str, pending: Pending) -> list[str]:
    outcome = item.outcome
    if isinstance(outcome, FactRecord):
        return [lookup_render.fact_line(outcome, glossary, language, item.decimals)]
    if isinstance(outcome, SubTask):
        return [lookup_render.not_found_line(outcome, glossary, language, pending(outcome))]
    if isinstance(outcome, CannotCompute):
        refused = computed_render.cannot_compute_line(item.asked, outcome.reason, language)
        return [refused, *_pending_lines(outcome.missing, glossary, language, pending)]
    if isinstance(outcome, Change) and item.line:
        return [computed_render.difference_line(outcome, glossary, language)]
    if isinstance(outcome, Change) and item.other[0]:
        return computed_render.gap_lines(outcome, item.other, glossary, language)
    if isinstance(outcome, Change):
        return computed_render.change_lines(outcome, item.words, glossary, language, change_only=item.change_only)
    if isinstance(outcome, Ranking):
        return ranking_text.ranking_lines(outcome, glossary, language, position=item.position)
    return computed_render.computed_lines(outcome, glossary, language, multiple=item.multiple)


def _pending_lines(
    missing: Sequence[SubTask], glossary: GlossarySnapshot, language: str, pending: Pending
) -> list[str]:
    """A line per missing input with candidates awaiting review. Only the first
    `ranking_text.MISSING_NAMED` inputs are counted: a refused ranking may miss thousands of keys,
    and each count is a query."""
    counted = ((task, pending(task)) for task in list(dict.fromkeys(missing))[: ranking_text.MISSING_NAMED])
    return [computed_render.pending_input_line(task, count, glossary, language) for task, count in counted if count > 0]


def _inputs(outcome: Outcome) -> tuple[FactRecord, ...]:
    if isinstance(outcome, FactRecord):
        return (outcome,)
    if isinstance(outcome, (CannotCompute, SubTask)):
        return ()
    if isinstance(outcome, Ranking) and outcome.count > RANK_LISTED_WHOLE:
        # A long field's facts are those of the rows shown; the answer says how many were ranked.
        return tuple(dict.fromkeys(f for row in outcome.rows for f in row.inputs))
    return outcome.inputs


def _missing(outcome: Outcome) -> tuple[SubTask, ...]:
    """The keys looked up and not found: a refusal's missing inputs, a ranking's missing rows."""
    if isinstance(outcome, SubTask):
        return (outcome,)
    if isinstance(outcome, (CannotCompute, Ranking)):
        return outcome.missing
    return ()


def _none_pending(task: SubTask) -> int:
    return 0


def assemble(
    items: Sequence[Item], glossary: GlossarySnapshot, language: str, *, pending: Pending = _none_pending
) -> ComputedAnswer:
    """The answer of `items`; `pending` counts a missing key's candidates awaiting review."""
    lines: list[str] = []
    for item in items:
        lines.extend(_item_lines(item, glossary, language, pending))
    facts = tuple(dict.fromkeys(f for item in items for f in _inputs(item.outcome)))
    missing = [t for item in items for t in _missing(item.outcome)]
    results = [{"status": FOUND, **fact_as_dict(f)} for f in facts]
    results += [
        {
            "status": NOT_FOUND,
            "normalized": {"metric": t.metric, "entity": t.entity, "period": t.period.label, "channel": t.channel},
        }
        for t in dict.fromkeys(missing)
    ]
    computed = tuple(c for item in items if not isinstance(item.outcome, (FactRecord, SubTask)) for c in _shown(item))
    ranking = next((i.outcome for i in items if isinstance(i.outcome, Ranking)), None)
    answered = any(not isinstance(i.outcome, (CannotCompute, SubTask)) for i in items)
    return ComputedAnswer(
        "\n".join(lines),
        KIND_ANSWER if answered else KIND_REFUSAL,
        facts,
        tuple(results),
        computed,
        ranking,
    )


def _ranked(item: Computed, row: RankRow, ranking: Ranking) -> RankedComputed:
    values = {f.name: getattr(item, f.name) for f in fields(item)}
    return RankedComputed(
        **values,
        ranked_value=row.value,
        ranked_display=row.display,
        ranked_metric=row.subject.metric,
        order=ranking.order,
        count=ranking.count,
    )


def _shown(item: Item) -> tuple[Computed, ...]:
    outcome = item.outcome
    if isinstance(outcome, Change) and item.change_only:
        return (outcome.change,)
    if isinstance(outcome, Ranking) and outcome.ranked:
        return tuple(_ranked(c, row, outcome) for c, row in zip(outcome.computed, outcome.rows, strict=True))
    assert not isinstance(outcome, (FactRecord, SubTask))
    return outcome.computed
