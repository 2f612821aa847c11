"""What the clarification gate decided (`ClarificationResult`): to answer as asked, to ask first,
to answer under the assumptions it states, or to decline an entity out of scope (`CLARIFY_*`),
with the entity and period it assumed and the narrowing buttons it offers (`NarrowingOption`).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.model.period import Period

CLARIFY_NONE = "none"
CLARIFY_ASK_FIRST = "ask_first"
CLARIFY_ANSWER_WITH_ASSUMPTIONS = "answer_with_assumptions"
CLARIFY_OUT_OF_SCOPE_ENTITY = "out_of_scope_entity"
CLARIFY_MODES = (CLARIFY_NONE, CLARIFY_ASK_FIRST, CLARIFY_ANSWER_WITH_ASSUMPTIONS, CLARIFY_OUT_OF_SCOPE_ENTITY)


@dataclass(frozen=True)
class NarrowingOption:
    label: str
    question: str
    scope: dict[str, str]


@dataclass(frozen=True)
class ClarificationResult:
    mode: str = CLARIFY_NONE
    question: str | None = None
    assumption_note: str | None = None
    assumed_entity: str | None = None
    assumed_period: Period | None = None
    narrowing_options: tuple[NarrowingOption, ...] = ()
