"""The answer both protocols give: `/v1/ask`'s guarded answer and its lineage, in one shape.

`answer_reply` asks through `agent.services.question_ask` (the guard, the gates, clearance and the
trace are all there) and returns the `/v1/ask` object; `answer_lineage` is the part of it an
integrator reads beside the text: route, answer kind, facts with their sources, computed
values, sources, clarification, guard and request id. The OpenAI reply carries it as its
`ragspine` field, the MCP `ask` tool as its structured content.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from agent.serialize import (
    ClarificationSerializer,
    ComputedSerializer,
    FactSerializer,
    GuardSerializer,
    SourceSerializer,
)
from agent.services import question_ask
from core.model.registry import ANSWER_KINDS, ANSWER_ROUTES

LINEAGE = ("request_id", "route", "answer_kind", "facts", "computed", "sources", "clarification", "guard")


def answer_reply(
    question: str,
    *,
    user: Any,
    request_id: str | None = None,
    reference_date: date | None = None,
    conversation_id: str | None = None,
    follows: Sequence[str] = (),
) -> dict[str, Any]:
    """The `/v1/ask` object for `question` asked by `user`, with `conversation_id` (as `/v1/ask`
    returns it). Raises `agent.conversation.ConversationError` for an unusable conversation id."""
    asked = question_ask(
        question,
        user=user,
        reference_date=reference_date,
        request_id=request_id,
        conversation_id=conversation_id,
        follows=follows,
    )
    return {**asked.data, "conversation_id": conversation_id, "usage": _usage(asked.result.usage)}


def _usage(used: dict[str, int]) -> dict[str, int]:
    """OpenAI's usage object from the tokens a model was sent and wrote for this answer: none
    when no model was asked (the structured route, a lexical answer)."""
    prompt, completion = int(used.get("input_tokens", 0)), int(used.get("output_tokens", 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def answer_lineage(reply: dict[str, Any]) -> dict[str, Any]:
    """What the answer rests on, from its `/v1/ask` object."""
    return {key: reply[key] for key in LINEAGE}


@extend_schema_serializer(component_name="RagspineLineage")
class LineageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """The lineage of an answer, as `/v1/ask` reports it."""

    request_id = serializers.CharField()
    route = serializers.ChoiceField(ANSWER_ROUTES)
    answer_kind = serializers.ChoiceField(ANSWER_KINDS)
    facts = FactSerializer(many=True)
    computed = ComputedSerializer(many=True)
    sources = SourceSerializer(many=True)
    clarification = ClarificationSerializer()
    guard = GuardSerializer()
    notes = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="What the endpoint did with the request that a client may not expect (parts skipped).",
    )
