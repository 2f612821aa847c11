"""The SPEC §10 JSON of an `AgentResult`: one shape for the API and `manage.py ask --json`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from agent.core.tools import fact_as_dict
from agent.core.types import AgentResult


def result_as_dict(result: AgentResult) -> dict[str, Any]:
    return {
        "request_id": result.request_id,
        "question": result.question,
        "answer": result.answer,
        "answer_kind": result.answer_kind,
        "route": result.route,
        "routing": result.routing.as_dict(),
        "intent": result.intent.as_dict(),
        "clarification": result.clarification.as_dict(),
        "facts": [fact_as_dict(f) for f in result.facts],
        "tool_results": [dict(r) for r in result.tool_results],
        "sources": [s.as_dict() for s in result.sources],
        "faq": result.faq,
        "guard": result.guard.as_dict(),
    }


def sections_as_dict(result: AgentResult) -> dict[str, str]:
    """The answer's sections, which the UI and the stream show apart (the API joins them in `answer`)."""
    return asdict(result.sections)
