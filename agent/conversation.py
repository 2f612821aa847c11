"""Conversations in the database: the API's `conversation_id` and the analyst page use this one store.

A conversation belongs to one user and is named by its `external_id`; every read and write here
takes the user, so one user's name never reaches another user's turns. A turn keeps the
question, the SPEC §10 answer and its sections (what the UI shows), and the answered intent a
follow-up may inherit (`previous_intent`). At most `MAX_TURNS` turns are kept per
conversation; only the last answered intent is ever used as context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import QuerySet

from core.language.periods import period_parse
from core.model.types import (
    CLARIFY_ASK_FIRST,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    KIND_ANSWER,
    KIND_REFUSAL,
    ROUTE_FAQ,
    AgentResult,
    Operation,
    ParsedIntent,
    Part,
    Period,
)

from .models import Conversation, ConversationTurn

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


# -- reads ----------------------------------------------------------------------------------
def conversation_get(*, user: AbstractBaseUser | AnonymousUser | None, external_id: str) -> Conversation | None:
    if user is None or not user.is_authenticated:
        return None
    return Conversation.objects.filter(user_id=user.pk, external_id=external_id).first()


def turn_list(*, conversation: Conversation | None, cleared: bool) -> QuerySet[ConversationTurn]:
    """The conversation's kept turns, oldest first. A turn answered with RESTRICTED clearance is
    listed only while the user still has it."""
    if conversation is None:
        return ConversationTurn.objects.none()
    turns = conversation.turns.all()
    return turns if cleared else turns.exclude(asker_cleared=True)


def turn_get(*, conversation: Conversation | None, position: int, cleared: bool) -> ConversationTurn | None:
    return turn_list(conversation=conversation, cleared=cleared).filter(position=position).first()


def previous_intent(conversation: Conversation | None) -> ParsedIntent | None:
    """The last answered intent of the conversation: what a follow-up may inherit. A turn the FAQ
    answered is passed over (a definition asked in between does not end the analysis it
    interrupts); any other answered turn, a narrative one included, is the context."""
    if conversation is None:
        return None
    answered = conversation.turns.exclude(intent__isnull=True).order_by("-position")
    for data, route in answered.values_list("intent", "result__route"):
        if route != ROUTE_FAQ:
            return intent_from_json(data) if data else None
    return None


def previous_intent_along(
    *, user: AbstractBaseUser | AnonymousUser | None, external_ids: Sequence[str]
) -> ParsedIntent | None:
    """`previous_intent` along a chain of this user's conversations, newest first: the last
    answered intent in the first of them that has one.

    A chat client sends its whole transcript each time; each prefix of it is a conversation of
    its own (so an edited or regenerated turn starts a branch instead of rewriting another), and
    a follow-up continues the chain of its prefixes as a turn of one conversation would.
    """
    if not external_ids or user is None or not user.is_authenticated:
        return None
    rank = {external_id: index for index, external_id in enumerate(external_ids)}
    turns = ConversationTurn.objects.filter(
        conversation__user_id=user.pk, conversation__external_id__in=list(rank)
    ).exclude(intent__isnull=True)
    rows = turns.values_list("conversation__external_id", "position", "intent", "result__route")
    for _, _, data, route in sorted(rows, key=lambda row: (rank[row[0]], -row[1])):
        if route != ROUTE_FAQ:
            return intent_from_json(data) if data else None
    return None


def recent_questions(*, user: AbstractBaseUser | AnonymousUser, cleared: bool) -> list[str]:
    """The user's last distinct questions, newest first, across their conversations."""
    turns = ConversationTurn.objects.filter(conversation__user_id=user.pk)
    if not cleared:
        turns = turns.exclude(asker_cleared=True)
    recent: list[str] = []
    for question in turns.order_by("-created_at", "-pk").values_list("question", flat=True)[: MAX_RECENT * 5]:
        if question not in recent:
            recent.append(question)
        if len(recent) == MAX_RECENT:
            break
    return recent


# -- writes ---------------------------------------------------------------------------------
@transaction.atomic
def turn_add(
    *,
    user: AbstractBaseUser,
    external_id: str,
    result: AgentResult,
    result_json: dict[str, Any],
    cleared: bool,
) -> ConversationTurn:
    """Store the answered question as the conversation's next turn (creating the conversation the
    first time its id is used by this user) and drop turns beyond the last `MAX_TURNS`."""
    conversation, _ = Conversation.objects.select_for_update().get_or_create(user_id=user.pk, external_id=external_id)
    position = conversation.turns_total
    answered = answered_intent(result)
    turn = ConversationTurn(
        conversation=conversation,
        position=position,
        question=result.question,
        intent=intent_as_json(answered) if answered is not None else None,
        result=result_json,
        sections=asdict(result.sections),
        note=result.follow_up_note or "",
        request_id=result.request_id,
        asker_cleared=cleared,
    )
    turn.full_clean(exclude=["conversation"])
    turn.save()
    conversation.turns_total = position + 1
    conversation.save(update_fields=["turns_total", "updated_at"])
    conversation.turns.filter(position__lte=position - MAX_TURNS).delete()
    return turn


def turn_feedback_set(turn: ConversationTurn, vote: int) -> None:
    turn.feedback = vote
    turn.save(update_fields=["feedback"])


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
