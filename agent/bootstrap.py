"""Wires the ORM-backed adapters into the Django-free core: the one place that knows both."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from agent.providers import provider_from_settings
from common.access import user_cleared
from core.model.trace import TraceRejected, trace_from_result
from core.model.types import AgentResult
from core.parse.assisted import LlmAssistedParser
from core.pipeline import answer_question
from core.ports import LLMProvider, TraceSink
from core.routes.lookup.provider import MockProvider
from facts.selectors import OrmFactStore, OrmFxRates, glossary_snapshot
from faq.selectors import OrmFaqLookup
from retrieval.selectors import OrmNarrativeRetriever

from .adapters import QueryLogSink
from .conversation import ConversationError, conversation_id_check
from .models import ConversationTurn
from .selectors import conversation_get, previous_intent, previous_intent_along
from .serialize import result_as_dict
from .services import turn_add

logger = logging.getLogger(__name__)


def provider_build() -> LLMProvider:
    """The configured LLM provider (`RAGSPINE_LLM_PROVIDER=mock|anthropic|openai`); mock by default."""
    if settings.RAGSPINE["LLM_PROVIDER"] in ("", "mock"):
        return MockProvider()
    return provider_from_settings(settings.RAGSPINE)


def ask(
    question: str,
    *,
    user: AbstractBaseUser | AnonymousUser | None,
    reference_date: date | None = None,
    scope: dict[str, Any] | None = None,
    request_id: str | None = None,
    provider: LLMProvider | None = None,
    conversation_id: str | None = None,
    follows: Sequence[str] = (),
) -> AgentResult:
    """Answer one question for one user and write its trace (`ask_turn`, without the turn)."""
    result, _ = ask_turn(
        question,
        user=user,
        reference_date=reference_date,
        scope=scope,
        request_id=request_id,
        provider=provider,
        conversation_id=conversation_id,
        follows=follows,
    )
    return result


def ask_turn(
    question: str,
    *,
    user: AbstractBaseUser | AnonymousUser | None,
    reference_date: date | None = None,
    scope: dict[str, Any] | None = None,
    request_id: str | None = None,
    provider: LLMProvider | None = None,
    conversation_id: str | None = None,
    follows: Sequence[str] = (),
) -> tuple[AgentResult, ConversationTurn | None]:
    """Answer one question for one user and write its trace; the answer, and the turn stored.

    With a `conversation_id` the question is a turn of that conversation of this user (created
    the first time this user names it): a follow-up may inherit the last answered intent, and
    the answered turn is stored. Another user's conversation of the same name is never read.
    With `follows` (conversations of this user, newest first) the follow-up context is read
    along them instead (`previous_intent_along`): a chat client's transcript prefixes.
    Raises `ConversationError` for an unusable id, or an id without a signed-in user.
    """
    conversation = None
    signed_in = user is not None and user.is_authenticated
    if (conversation_id is not None or follows) and not signed_in:
        raise ConversationError("a conversation needs a signed-in user.")
    if conversation_id is not None:
        conversation = conversation_get(user=user, external_id=conversation_id_check(conversation_id))
    if follows:
        previous = previous_intent_along(user=user, external_ids=[conversation_id_check(c) for c in follows])
    else:
        previous = previous_intent(conversation)
    llm = provider or provider_build()
    # The offline mock cannot write prose: narrative answers are then extractive.
    synthesizer = None if llm.name == "mock" else llm
    router = LlmAssistedParser(llm) if synthesizer is not None and settings.RAGSPINE.get("LLM_ROUTING") else None
    result = answer_question(
        question,
        glossary=glossary_snapshot(),
        store=OrmFactStore(),
        fx=OrmFxRates(),
        provider=llm,
        cleared=user_cleared(user),
        reference_date=reference_date,
        scope=scope,
        request_id=request_id,
        narrative_retriever=OrmNarrativeRetriever(),
        faq=OrmFaqLookup(),
        synthesizer=synthesizer,
        intent_parser=router,
        rerank=bool(settings.RAGSPINE.get("RERANK")) and synthesizer is not None,
        previous=previous,
    )
    _trace_write(result, user=user)
    turn = None
    if conversation_id is not None and user is not None and user.is_authenticated:
        turn = turn_add(
            user=user,
            external_id=conversation_id,
            result=result,
            result_json=result_as_dict(result),
            cleared=user_cleared(user),
        )
    return result, turn


def _trace_write(result: AgentResult, *, user: AbstractBaseUser | AnonymousUser | None) -> None:
    """Write the answer's trace. `trace_from_result` drops or redacts what the record refuses;
    should a rule still refuse it, the trace is lost and logged, never the answer."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    try:
        trace = trace_from_result(result, user_id=user_id, store_question=settings.RAGSPINE["LOG_QUESTIONS"])
    except TraceRejected as error:  # its message names the rule, never what was offered
        logger.error("the trace of request %s was not written: %s", result.request_id[:64], error)
        return
    sink: TraceSink = QueryLogSink(asker_cleared=user_cleared(user))
    sink.record(trace)
