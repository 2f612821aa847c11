"""Computed answers from the real pipeline, for shapes the demo data set cannot give.

`pipeline_answer` asks `answer_question` (parser, engine, synthesis) over any fact store: the
demo facts, or `generated_store` figures with ties, negative values or hostile source names.
`turn_of` is the stored turn the analyst page shows; `turn_seed` stores an answer as the next
turn of a user's conversation through the conversation store itself (`turn_add`).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from agent.page.cards import answer_language_of, computed_cards
from agent.page.series import Series
from agent.page.series_table import series_view
from agent.serialize import answer_from_json, result_as_dict
from agent.services import turn_add
from core.glossary import GlossarySnapshot
from core.language.periods import period_parse
from core.model.facts import FactRecord
from core.model.result import AgentResult
from core.pipeline import answer_question
from core.ports import FactStore, Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore

REFERENCE = date(2026, 3, 15)


def pipeline_answer(
    question: str, *, store: FactStore, glossary: GlossarySnapshot, cleared: bool = True
) -> AgentResult:
    return answer_question(
        question,
        Ports(glossary=glossary, store=store, provider=MockProvider()),
        cleared=cleared,
        reference_date=REFERENCE,
    )


def turn_of(result: AgentResult) -> dict[str, Any]:
    """The turn as `computed_cards` reads it: the question and the `/v1/ask` result dict."""
    return {"question": result.question, "result": result_as_dict(result)}


def cards_of(turn: dict[str, Any], glossary: GlossarySnapshot) -> dict[str, Any] | None:
    """`computed_cards` of a turn as the page reads it: the answer typed once, in its language."""
    answer = answer_from_json(turn["result"])
    return computed_cards(answer, answer_language_of(answer, turn["question"]), glossary)


def series_of(turn: dict[str, Any], series: Series, glossary: GlossarySnapshot) -> dict[str, Any]:
    """`series_view` of a turn as the page reads it."""
    answer = answer_from_json(turn["result"])
    return series_view(answer, answer_language_of(answer, turn["question"]), series, glossary)


def generated_store(
    metric: str, values: dict[str, str], *, period: str = "FY2025", doc: str = "generated.xlsx"
) -> InMemoryFactStore:
    """One figure per entity code for `metric` in `period`, each with its own cell in `doc`."""
    at = period_parse(period)
    assert at is not None
    return InMemoryFactStore(
        [
            FactRecord(metric, entity, at, "TOTAL", Decimal(value), "CNY_M", doc, f"sheet=gen!B{row}")
            for row, (entity, value) in enumerate(values.items(), start=2)
        ]
    )


def turn_seed(*, user: Any, external_id: str, result: AgentResult, cleared: bool = True) -> None:
    """Store `result` as the next turn of `user`'s conversation `external_id`."""
    turn_add(user=user, external_id=external_id, result=result, result_json=result_as_dict(result), cleared=cleared)
