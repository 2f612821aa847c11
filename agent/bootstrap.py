"""Wires the ORM-backed adapters into the Django-free core: the one place that knows both."""

from __future__ import annotations

from dataclasses import asdict
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from agent.core.orchestrator import answer_question
from agent.core.ports import LLMProvider
from agent.core.provider import MockProvider
from agent.core.trace import TraceRecord, trace_from_result
from agent.core.types import AgentResult
from facts.selectors import OrmFactStore, glossary_snapshot
from retrieval.selectors import OrmNarrativeRetriever

from .models import QueryLog

RESTRICTED_PERMISSION = "facts.can_view_restricted"


def user_cleared(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    return bool(user is not None and user.is_authenticated and user.has_perm(RESTRICTED_PERMISSION))


def provider_build() -> LLMProvider:
    name = settings.RAGSPINE["LLM_PROVIDER"]
    if name == "mock":
        return MockProvider()
    raise NotImplementedError(f"LLM provider '{name}' is not available yet; use RAGSPINE_LLM_PROVIDER=mock")


class QueryLogSink:
    """The `TraceSink` port over the ORM. It accepts only a validated `TraceRecord`."""

    def record(self, trace: TraceRecord) -> None:
        if not isinstance(trace, TraceRecord):
            raise TypeError("only a TraceRecord can be written to the trace")
        fields = asdict(trace)
        fields["chunk_scores"] = [list(pair) for pair in trace.chunk_scores]
        fields["unrecognized_terms"] = list(trace.unrecognized_terms)
        user_id = fields.pop("user_id")
        QueryLog.objects.create(user_id=user_id, **fields)


def ask(
    question: str,
    *,
    user: AbstractBaseUser | AnonymousUser | None,
    reference_date: date | None = None,
    scope: dict[str, Any] | None = None,
    request_id: str | None = None,
    provider: LLMProvider | None = None,
) -> AgentResult:
    """Answer one question for one user and write its trace."""
    llm = provider or provider_build()
    # The offline mock cannot write prose: narrative answers are then extractive.
    synthesizer = None if llm.name == "mock" else llm
    result = answer_question(
        question,
        glossary=glossary_snapshot(),
        store=OrmFactStore(),
        provider=llm,
        cleared=user_cleared(user),
        reference_date=reference_date,
        scope=scope,
        request_id=request_id,
        narrative_retriever=OrmNarrativeRetriever(),
        synthesizer=synthesizer,
        rerank=bool(settings.RAGSPINE.get("RERANK")) and synthesizer is not None,
    )
    user_id = user.pk if user is not None and user.is_authenticated else None
    trace = trace_from_result(result, user_id=user_id, store_question=settings.RAGSPINE["LOG_QUESTIONS"])
    QueryLogSink().record(trace)
    return result
