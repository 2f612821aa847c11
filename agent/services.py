"""Writes of the agent app: conversation turns, their feedback, and the query log.

Each takes keyword arguments, validates with `full_clean()` before it saves, and runs in one
transaction.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from core.model.trace import TraceRecord
from core.model.types import AgentResult

from .conversation import MAX_TURNS, answered_intent, intent_as_json
from .models import Conversation, ConversationTurn, QueryLog


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


def query_log_record(*, trace: TraceRecord, asker_cleared: bool) -> QueryLog:
    """Write one validated trace; `asker_cleared` keeps a cleared analyst's question from uncleared curators."""
    if not isinstance(trace, TraceRecord):
        raise TypeError("only a TraceRecord can be written to the trace")
    fields = asdict(trace)
    fields["chunk_scores"] = [list(pair) for pair in trace.chunk_scores]
    fields["unrecognized_terms"] = list(trace.unrecognized_terms)
    user_id = fields.pop("user_id")
    return QueryLog.objects.create(user_id=user_id, asker_cleared=asker_cleared, **fields)
