"""Computed answers: the structured route's step that runs the engine `core.engine`.

Takes the effective intent (its slots, with the clarification's assumptions filled in), the
glossary, the fact store and the user's clearance; returns a `ComputedAnswer`: the answer text,
its kind, every input fact, a `found` tool result per input (`not_found` per missing input of a
refusal), every `Computed` and the `Ranking`. `computed_answer` serves a question with an
`operation`; `levels_answer` serves listed sub-tasks and formula metrics asked at their level,
where a stored fact for the same key wins and is answered as the stored fact.

Invariants:
- facts are read only through `task_run` with the user's clearance, so a RESTRICTED input is
  simply not found for an uncleared user: the answer is the one they would get if it did not exist;
- a refusal carries the engine's reason and the missing inputs in words, and no partial input;
- never a different question: no level, no parent entity, no other metric in place of the
  computation asked.
"""

from __future__ import annotations

from core.routes.computed.answer import ComputedAnswer, Item, RankedComputed
from core.routes.computed.answerable import periods_answerable
from core.routes.computed.handlers import computed_answer
from core.routes.computed.levels import levels_answer
from core.routes.computed.subjects import part_intent, subtasks_of

__all__ = [
    "ComputedAnswer",
    "Item",
    "RankedComputed",
    "computed_answer",
    "levels_answer",
    "part_intent",
    "periods_answerable",
    "subtasks_of",
]
