"""The question-answering API: `POST /v1/ask`, `GET /v1/health`, `GET /v1/ready`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from common.api.fields import QuestionTextField, StrictCharField
from core.model.result import AnswerSections
from facts.selectors import glossary_snapshot, glossary_token

from .conversation import MAX_ID, ConversationError
from .serialize import AskResultSerializer
from .services import Asked, question_ask


@extend_schema_serializer(component_name="AskStreamEvent")
class StreamEventSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """One server-sent event: its name and its JSON payload (as text)."""

    event = serializers.ChoiceField(["meta", "structured", "delta", "sources", "done", "turn"])
    data = serializers.CharField()


REFERENCE_DATES = (date(1900, 1, 1), date(2999, 12, 31))


class ReferenceDateField(serializers.DateField):
    """The date relative periods are read from, within `REFERENCE_DATES`: a period is a
    four-digit year, and 去年 read from year 1 (or next year from 9999) is none. The bounds
    leave centuries of room for the longest look-back a question asks (近三年, past 20 years)."""

    def to_internal_value(self, value: Any) -> date:
        day = super().to_internal_value(value)
        first, last = REFERENCE_DATES
        if not first <= day <= last:
            raise serializers.ValidationError(f"must be between {first} and {last}.")
        return day


class ScopeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    entity = StrictCharField(max_length=64, required=False, allow_blank=True)
    metric = StrictCharField(max_length=64, required=False, allow_blank=True)
    period = StrictCharField(max_length=32, required=False, allow_blank=True)
    channel = StrictCharField(max_length=64, required=False, allow_blank=True)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, dict):
            unknown = set(data) - set(self.fields)
            if unknown:
                raise serializers.ValidationError(f"unknown scope key(s): {', '.join(sorted(map(str, unknown)))}")
        return dict(super().to_internal_value(data))


@extend_schema_serializer(component_name="AskResponse")
class AskReplySerializer(AskResultSerializer):
    """The `/v1/ask` answer as the API returns it: with the conversation it was a turn of."""

    conversation_id = serializers.CharField(
        allow_null=True, help_text="The conversation this question was a turn of; null when none was named."
    )


class AskApi(APIView):
    throttle_classes = [UserRateThrottle, ScopedRateThrottle]
    throttle_scope = "ask"
    parser_classes = [JSONParser]  # one body format, so the schema describes exactly what is accepted

    @extend_schema_serializer(component_name="AskRequest")
    class InputSerializer(serializers.Serializer):  # type: ignore[type-arg]
        question = QuestionTextField(max_length=2000, trim_whitespace=True)
        reference_date = ReferenceDateField(required=False)
        scope = ScopeSerializer(required=False)
        conversation_id = StrictCharField(
            max_length=MAX_ID,
            required=False,
            allow_blank=True,
            allow_null=True,
            help_text="Names a conversation of yours (created on first use); follow-ups in it inherit slots.",
        )

    OutputSerializer = AskResultSerializer

    @extend_schema(request=InputSerializer, responses={200: AskReplySerializer}, summary="Ask a question")
    def post(self, request: Request) -> Response:
        asked, conversation_id = self.answer(request)
        return Response(self.reply(asked, conversation_id))

    def answer(self, request: Request) -> tuple[Asked, str | None]:
        """Validate the request and answer it, as a turn of the named conversation if any."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        conversation_id = data.get("conversation_id") or None
        try:
            asked = question_ask(
                data["question"],
                user=request.user,
                reference_date=data.get("reference_date"),
                scope={k: v for k, v in data.get("scope", {}).items() if v},
                request_id=request._request.request_id,
                conversation_id=conversation_id,
            )
        except ConversationError as error:
            raise serializers.ValidationError({"conversation_id": [str(error)]}) from None
        return asked, conversation_id

    @staticmethod
    def reply(asked: Asked, conversation_id: str | None) -> dict[str, Any]:
        """The `/v1/ask` object plus `conversation_id` (null when the question named none)."""
        return {**asked.data, "conversation_id": conversation_id}


class HealthApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type] = []

    @extend_schema(responses={200: dict}, summary="Liveness")
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


class ReadyApi(APIView):
    @extend_schema(responses={200: dict}, summary="Readiness of the database and the glossary")
    def get(self, request: Request) -> Response:
        token = glossary_token()
        glossary = glossary_snapshot()
        return Response(
            {
                "status": "ready",
                "database": "ok",
                "glossary": {
                    "version": int(token.split(":")[0]),
                    "entities": len(glossary.entities),
                    "metrics": len(glossary.metrics),
                    "aliases": len(glossary.matcher),
                },
            }
        )


class AskStreamApi(AskApi):
    """`POST /v1/ask/stream`: the same answer as server-sent events.

    Every guard runs before the first byte (the structured guard, the numeric grounding check),
    so what streams is the checked text: `meta`, `structured` (facts and their lines), `delta`
    events with the narrative text in pieces, `sources`, then `done` with the full `/v1/ask` JSON
    (with `conversation_id`, as `POST /v1/ask` returns it).
    """

    @extend_schema(
        request=AskApi.InputSerializer,
        responses={
            (200, "text/event-stream"): OpenApiResponse(StreamEventSerializer, description="server-sent events")
        },
        summary="Ask, streamed as server-sent events",
    )
    def post(self, request: Request) -> StreamingHttpResponse:  # type: ignore[override]
        asked, conversation_id = self.answer(request)
        events = answer_events(self.reply(asked, conversation_id), asked.result.sections)
        response = StreamingHttpResponse(events, content_type="text/event-stream; charset=utf-8")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


def _event(name: str, payload: object) -> str:
    return f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"


def answer_events(result: dict[str, Any], sections: AnswerSections, piece: int = 48) -> Iterator[str]:
    """The `/v1/ask` `result` as events: the structured section whole, the narrative in pieces."""
    yield _event(
        "meta", {k: result[k] for k in ("request_id", "route", "routing", "intent", "clarification", "answer_kind")}
    )
    if sections.structured_text:
        yield _event("structured", {"text": sections.structured_text, "facts": result["facts"]})
    narrative = sections.narrative
    if narrative:
        if sections.narrative_heading:
            yield _event("delta", {"text": f"{sections.narrative_heading}\n"})
        for start in range(0, len(narrative), piece):
            yield _event("delta", {"text": narrative[start : start + piece]})
    yield _event("sources", {"sources": result["sources"]})
    yield _event("done", result)
