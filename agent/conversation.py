"""Conversations: their ids, their limits and the answered intent a turn keeps, as JSON.

A conversation belongs to one user and is named by its `external_id`; every read
(`agent.selectors`) and write (`agent.services`) takes the user, so one user's name never reaches
another user's turns. A turn keeps the
question, the `/v1/ask` answer and its sections (what the UI shows), and the answered intent a
follow-up may inherit (`previous_intent`). At most `MAX_TURNS` turns are kept per
conversation; only the last answered intent is ever used as context.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from core.language.periods import period_parse
from core.model.clarification import CLARIFY_ASK_FIRST, CLARIFY_OUT_OF_SCOPE_ENTITY
from core.model.intent import ParsedIntent, Part
from core.model.operation import Operation
from core.model.period import Period
from core.model.registry import KIND_ANSWER, KIND_REFUSAL
from core.model.result import AgentResult

MAX_TURNS = 20
MAX_RECENT = 10
MAX_ID = 64


class ConversationError(ValueError):
    """A conversation id that is not usable, or a conversation without an owner."""


def conversation_id_check(value: object) -> str:
    """The id as given, or `ConversationError` saying why it is refused."""
    if not isinstance(value, str):
        raise ConversationError("conversation_id must be text.")
    if not value.strip() or "\x00" in value:
        raise ConversationError("conversation_id must not be blank.")
    if len(value) > MAX_ID:
        raise ConversationError(f"conversation_id must be at most {MAX_ID} characters.")
    return value


# -- the answered intent as JSON ------------------------------------------------------------
def answered_intent(result: AgentResult) -> ParsedIntent | None:
    """The intent the answer was given for, with the assumed entity and period filled in; None
    when the turn cannot be continued (a gate refusal, an ask-first question, a degraded answer)."""
    clarification = result.clarification
    if result.answer_kind not in (KIND_ANSWER, KIND_REFUSAL):
        return None
    if clarification.mode in (CLARIFY_OUT_OF_SCOPE_ENTITY, CLARIFY_ASK_FIRST):
        return None
    intent = result.intent
    # A ranking or a sum over "every region" names no entity: the assumed home entity is not its list.
    runs_over = intent.operation is not None and intent.operation.over is not None
    if not intent.entity and not runs_over and clarification.assumed_entity:
        intent = replace(intent, entity=clarification.assumed_entity, entities=(clarification.assumed_entity,))
    if not intent.period and clarification.assumed_period:
        intent = replace(intent, period=clarification.assumed_period, periods=(clarification.assumed_period,))
    return intent


def intent_as_json(intent: ParsedIntent) -> dict[str, Any]:
    return {
        "metric": intent.metric,
        "metrics": list(intent.metrics),
        "entity": intent.entity,
        "entities": list(intent.entities),
        "period": intent.period.label if intent.period else None,
        "periods": [p.label for p in intent.periods],
        "channel": intent.channel,
        "channels": list(intent.channels),
        "channel_given": intent.channel_given,
        "operation": asdict(intent.operation) if intent.operation else None,
        "parts": [_part_as_json(part) for part in intent.parts],
        "route": intent.route,
        "language": intent.language,
    }


def _part_as_json(part: Part) -> dict[str, Any]:
    return {
        "metrics": list(part.metrics),
        "operation": asdict(part.operation) if part.operation else None,
        "entities": list(part.entities),
        "periods": [p.label for p in part.periods],
        "channels": list(part.channels),
        "decimals": part.decimals,
    }


def _part_from_json(data: dict[str, Any]) -> Part:
    operation = data.get("operation")
    return Part(
        metrics=tuple(data["metrics"]),
        operation=Operation(**operation) if operation else None,
        entities=tuple(data.get("entities") or ()),
        periods=tuple(_period(label) for label in data.get("periods") or ()),
        channels=tuple(data.get("channels") or ()),
        decimals=data.get("decimals"),
    )


def intent_from_json(data: dict[str, Any]) -> ParsedIntent | None:
    """The stored intent, or None if it no longer reads as one (stored by another version)."""
    try:
        periods = tuple(_period(label) for label in data.get("periods") or ())
        operation = data.get("operation")
        return ParsedIntent(
            raw_question="",
            metric=data.get("metric"),
            metrics=tuple(data.get("metrics") or ()),
            entity=data.get("entity"),
            entities=tuple(data.get("entities") or ()),
            period=_period(data["period"]) if data.get("period") else None,
            periods=periods,
            channel=data.get("channel") or "TOTAL",
            channels=tuple(data.get("channels") or ()),
            channel_given=bool(data.get("channel_given")),
            operation=Operation(**operation) if operation else None,
            parts=tuple(_part_from_json(part) for part in data.get("parts") or ()),
            route=data.get("route") or "structured",
            language=data.get("language") or "zh",
        )
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def _period(label: str) -> Period:
    period = period_parse(label)
    if period is None:
        raise ValueError(f"not a period: {label!r}")
    return period
