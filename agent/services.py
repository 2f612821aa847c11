"""The agent app's use case and writes: `question_ask` (one question for one user, with its
trace and its turn: what the page, the API, chat and MCP all call), and the writes beneath it:
conversation turns, their feedback, the query log, and the terms a curator dismissed from the
glossary-gap report.

Each takes keyword arguments, validates with `full_clean()` before it saves, and runs in one
transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from common.access import user_cleared
from core.model.result import AgentResult
from core.model.trace import TraceRecord, TraceRejected, trace_from_result
from core.pipeline import answer_question
from core.ports import LLMProvider
from faq.services import faq_hit_count

from .bootstrap import ports_build, rerank_wanted
from .conversation import MAX_TURNS, ConversationError, answered_intent, conversation_id_check, intent_as_json
from .models import Conversation, ConversationTurn, GlossaryGapDismissal, QueryLog
from .selectors import conversation_get, previous_intent, previous_intent_along
from .serialize import result_as_dict

logger = logging.getLogger(__name__)

User = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True)
class Asked:
    """One answered question: the result, its `/v1/ask` JSON (serialised once, here), and the
    conversation turn it was stored as (None outside a conversation)."""

    result: AgentResult
    data: dict[str, Any]
    turn: ConversationTurn | None = None


def question_ask(
    question: str,
    *,
    user: User,
    reference_date: date | None = None,
    scope: dict[str, Any] | None = None,
    request_id: str | None = None,
    provider: LLMProvider | None = None,
    conversation_id: str | None = None,
    follows: Sequence[str] = (),
) -> Asked:
    """Answer one question for one user, write its trace, count an FAQ answer served, and store
    the turn.

    With a `conversation_id` the question is a turn of that conversation of this user (created
    the first time this user names it): a follow-up may inherit the last answered intent, and
    the answered turn is stored. Another user's conversation of the same name is never read.
    With `follows` (conversations of this user, newest first) the follow-up context is read
    along them instead (`previous_intent_along`): a chat client's transcript prefixes.
    Raises `ConversationError` for an unusable id, or an id without a signed-in user.
    """
    signed_in = user is not None and user.is_authenticated
    if (conversation_id is not None or follows) and not signed_in:
        raise ConversationError("a conversation needs a signed-in user.")
    if conversation_id is not None:
        conversation_id = conversation_id_check(conversation_id)
    if follows:
        previous = previous_intent_along(user=user, external_ids=[conversation_id_check(c) for c in follows])
    else:
        conversation = conversation_get(user=user, external_id=conversation_id) if conversation_id else None
        previous = previous_intent(conversation)
    ports = ports_build(provider)
    cleared = user_cleared(user)
    result = answer_question(
        question,
        ports,
        cleared=cleared,
        reference_date=reference_date,
        scope=scope,
        request_id=request_id,
        rerank=rerank_wanted(ports),
        previous=previous,
    )
    _trace_write(result, user=user, cleared=cleared)
    if result.faq is not None:
        faq_hit_count(result.faq["id"])
    data = result_as_dict(result)
    turn = None
    if conversation_id is not None and signed_in:
        assert isinstance(user, AbstractBaseUser)
        turn = turn_add(user=user, external_id=conversation_id, result=result, result_json=data, cleared=cleared)
    return Asked(result, data, turn)


def _trace_write(result: AgentResult, *, user: User, cleared: bool) -> None:
    """Write the answer's trace. `trace_from_result` drops or redacts what the record refuses;
    should a rule still refuse it, the trace is lost and logged, never the answer."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    try:
        trace = trace_from_result(result, user_id=user_id, store_question=settings.RAGSPINE["LOG_QUESTIONS"])
    except TraceRejected as error:  # its message names the rule, never what was offered
        logger.error("the trace of request %s was not written: %s", result.request_id[:64], error)
        return
    query_log_record(trace=trace, asker_cleared=cleared)


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


@transaction.atomic
def turn_feedback_record(*, turn: ConversationTurn, user: AbstractBaseUser, vote: int, reason: str) -> None:
    """The analyst's vote on an answer (1 up, -1 down) and why: on the turn, and on the trace row
    of the same request (the feedback report reads the trace)."""
    QueryLog.objects.filter(request_id=turn.request_id, user=user).update(feedback=vote, feedback_reason=reason)
    turn_feedback_set(turn, vote)


@transaction.atomic
def gap_dismiss(*, term: str, user: AbstractBaseUser) -> GlossaryGapDismissal:
    """Dismiss a term from the glossary-gap report; a term dismissed already stays as it was
    (whoever dismissed it first)."""
    GlossaryGapDismissal(term=term, dismissed_by_id=user.pk).full_clean(validate_unique=False)
    # The unique term is settled by `get_or_create`, which also survives two curators at once.
    dismissal, _ = GlossaryGapDismissal.objects.get_or_create(term=term, defaults={"dismissed_by_id": user.pk})
    return dismissal
