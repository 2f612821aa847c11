"""Wires the ORM-backed adapters into the Django-free core: the one place that knows both.

`ports_build` gives the core its ports for one question; `agent.services.question_ask` is the
use case that runs it for a user (conversation, trace, turn).
"""

from __future__ import annotations

from django.conf import settings

from agent.providers import provider_from_settings
from core.parse.assisted import LlmAssistedParser
from core.ports import LLMProvider, Ports
from core.routes.lookup.provider import MockProvider
from facts.selectors import OrmFactStore, OrmFxRates, glossary_snapshot
from faq.selectors import OrmFaqLookup
from retrieval.selectors import OrmNarrativeRetriever


def provider_build() -> LLMProvider:
    """The configured LLM provider (`RAGSPINE_LLM_PROVIDER=mock|anthropic|openai`); mock by default."""
    if settings.RAGSPINE["LLM_PROVIDER"] in ("", "mock"):
        return MockProvider()
    return provider_from_settings(settings.RAGSPINE)


def ports_build(provider: LLMProvider | None = None) -> Ports:
    """The core's ports over the database, with `provider` (or the configured one) as the LLM.
    The offline mock cannot write prose, so with it narrative answers are extractive (no
    synthesizer) and no model routes questions."""
    llm = provider or provider_build()
    synthesizer = None if llm.name == "mock" else llm
    routing = synthesizer is not None and settings.RAGSPINE.get("LLM_ROUTING")
    return Ports(
        glossary=glossary_snapshot(),
        store=OrmFactStore(),
        provider=llm,
        retriever=OrmNarrativeRetriever(),
        parser=LlmAssistedParser(llm) if routing else None,
        faq=OrmFaqLookup(),
        synthesizer=synthesizer,
        fx=OrmFxRates(),
    )


def rerank_wanted(ports: Ports) -> bool:
    """Whether passages are reranked by the model: when the settings ask and a model writes."""
    return bool(settings.RAGSPINE.get("RERANK")) and ports.synthesizer is not None
