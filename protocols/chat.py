"""`POST /v1/chat/completions` and `GET /v1/models`: RAGSpine as an OpenAI-compatible model.

The last `user` message is the question. The user messages before it name the conversation it
continues: each prefix of the transcript is a conversation of the caller's own, and a
follow-up reads the last answered turn along them (`agent.conversation.previous_intent_along`),
so it inherits as a turn of `/v1/ask` with a `conversation_id` does. System, developer,
assistant and tool messages are never read: the system prompt stays the server's, and no
answer is taken back from a client.

The reply is `/v1/ask`'s answer, guard and all, with its lineage in the top-level `ragspine`
field (OpenAI clients ignore fields they do not know). With `stream: true` the answer is
complete and checked before the first byte; the stream replays that text in pieces that never
split a number. Errors are OpenAI's error object (`openai_errors`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from agent.api import ReferenceDateField
from agent.conversation import MAX_TURNS
from common.api.authentication import ClearanceTokenAuthentication
from common.api.fields import QuestionTextField, StrictCharField
from common.api.schema import ERRORS
from core.language.normalize import text_normalize
from facts.selectors import glossary_snapshot

from .answers import LineageSerializer, answer_lineage, answer_reply
from .auth import BearerTokenAuthentication
from .chat_tasks import ChatTask, chat_task, chat_task_reply
from .openai_errors import ErrorSerializer, ModelNotFound, openai_exception_handler

MODEL = "ragspine"
ROLES = ("system", "developer", "user", "assistant", "tool", "function")
MAX_MESSAGES = 1024
PIECE = 48
DESCRIPTION = (
    "The OpenAI Chat Completions API, answered by RAGSpine: point an OpenAI SDK or chat UI at "
    "`…/v1` with an API token as its key, and `ragspine` as the model.\n\n"
    "The last `user` message is the question; the user messages before it are the conversation "
    'it continues, so a follow-up ("那香港呢？") inherits as it does over `/v1/ask` with a '
    "`conversation_id`. System, developer, assistant and tool messages are not read. The answer "
    "is `/v1/ask`'s, guarded the same way; its lineage (route, answer kind, facts with sources, "
    "computed values, request id) is in the `ragspine` field. With `stream: true` the same answer, "
    "complete and checked before the first byte, arrives as `data:` chunks ending `data: [DONE]`; "
    "the last chunk carries `ragspine`. Errors are OpenAI's error object."
)
ERROR_RESPONSES = {int(code): OpenApiResponse(ErrorSerializer, description=text) for code, text in ERRORS.items()}


class JsonWhateverIsAccepted(DefaultContentNegotiation):
    """JSON for every reply DRF renders, whatever the client says it accepts: a chat client may
    accept only `text/event-stream`, which the stream answers (unrendered), while an error before
    it must still be read as OpenAI's error object."""

    def select_renderer(self, request: Request, renderers: Any, format_suffix: str | None = None) -> Any:
        return renderers[0], renderers[0].media_type


class OpenAIApi(APIView):
    authentication_classes = [BearerTokenAuthentication, ClearanceTokenAuthentication, SessionAuthentication]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonWhateverIsAccepted

    def get_exception_handler(self) -> Any:
        return openai_exception_handler


# -- the request --------------------------------------------------------------------------------
class Content(str):
    """A message's text, and the types of the parts it came with that hold no text (skipped)."""

    skipped: tuple[str, ...] = ()


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": {"type": "string"}, "text": {"type": "string"}},
                },
            },
        ],
        "nullable": True,
        "description": "Text, or a list of content parts: text parts are joined by line breaks, others skipped.",
    }
)
class MessageContentField(serializers.Field):  # type: ignore[type-arg]
    """A message's content: text, or a list of content parts. Text parts are read; an image, a
    file or audio is skipped (`Content.skipped`): a pasted screenshot earlier in a chat must not
    break every later turn. The question itself must have text (`ChatRequestSerializer`)."""

    def to_internal_value(self, data: Any) -> Content:
        if data is None:
            return Content("")
        skipped: list[str] = []
        if isinstance(data, list):
            texts = []
            for part in data:
                if not isinstance(part, dict) or not isinstance(part.get("type"), str):
                    raise serializers.ValidationError("each content part must be an object with a `type`.")
                if part["type"] != "text":
                    skipped.append(part["type"][:40])
                    continue
                if not isinstance(part.get("text"), str):
                    raise serializers.ValidationError("a text part needs its `text` as text.")
                texts.append(part["text"])
            data = "\n".join(texts)
        if not isinstance(data, str):
            raise serializers.ValidationError("must be text or a list of content parts.")
        if "\x00" in data:
            raise serializers.ValidationError("must not contain NUL characters.")
        content = Content(data)
        content.skipped = tuple(skipped)
        return content

    def to_representation(self, value: Any) -> Any:
        return value


class StrictBooleanField(serializers.BooleanField):
    """`true` or `false`, not a string or a number that looks like one."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError("must be true or false.")
        return data


def _nulls_dropped(data: Any, names: Sequence[str]) -> Any:
    """OpenAI reads `null` as "not given" (an SDK sends it when wrapper code passes `n=None`)."""
    if isinstance(data, dict) and any(data.get(name, ...) is None for name in names):
        return {key: value for key, value in data.items() if not (key in names and value is None)}
    return data


@extend_schema_serializer(component_name="ChatMessage")
class MessageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    role = serializers.ChoiceField(ROLES)
    content = MessageContentField(required=False, allow_null=True)


def transcript_key(questions: Sequence[str]) -> str:
    """The conversation id of a transcript, from its user messages: the same prefix, the same id,
    whatever spaces or line breaks a client pasted around or inside them (`text_normalize`)."""
    digest = hashlib.sha256("\x1e".join(" ".join(text_normalize(q).split()) for q in questions).encode()).hexdigest()
    return f"chat-{digest[:40]}"


STRUCTURED = (
    "RAGSpine answers in its own text with its lineage in `ragspine`; it does not fill a JSON schema "
    "or call tools. Leave `{param}` out (or ask for text) and read `ragspine` for structured data; "
    "with LangChain, call the model without `with_structured_output` and ask `/v1/ask` for the lineage."
)


LIMITS = ("max_tokens", "max_completion_tokens")
LIMIT_NOTE = (
    "`{param}` was not applied: RAGSpine never cuts an answer, which could halve a figure or part it from its source."
)
_LIMIT_HELP = "Not applied: the answer comes back whole, and `ragspine.notes` says so."


@extend_schema_serializer(component_name="ChatCompletionRequest")
class ChatRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """OpenAI's request. Sampling parameters (temperature, top_p, seed, …) are accepted and not
    used: the answer is RAGSpine's, whatever they ask of a model. A parameter that asks for a
    different kind of reply than a text answer (`response_format` with a JSON schema or JSON
    object, a `tool_choice` that forces a tool) is refused by name rather than ignored."""

    model = StrictCharField(max_length=128, help_text=f"`{MODEL}` (see `GET /v1/models`).")
    messages = MessageSerializer(many=True, allow_empty=False, max_length=MAX_MESSAGES)
    stream = StrictBooleanField(required=False, default=False)
    n = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=1,
        error_messages={"max_value": "RAGSpine gives one answer per request: n must be 1."},
    )
    response_format = serializers.JSONField(
        required=False, help_text='`{"type": "text"}` only: the answer is text, its lineage in `ragspine`.'
    )
    tool_choice = serializers.JSONField(required=False, help_text="`none` or `auto`: RAGSpine calls no tools.")
    stream_options = serializers.JSONField(
        required=False, help_text="`include_usage: true` adds a last chunk with `usage` before `[DONE]`."
    )
    reference_date = ReferenceDateField(
        required=False, help_text="RAGSpine's own: the date relative periods are read from (as for /v1/ask)."
    )
    max_tokens = serializers.IntegerField(required=False, min_value=1, help_text=_LIMIT_HELP)
    max_completion_tokens = serializers.IntegerField(required=False, min_value=1, help_text=_LIMIT_HELP)

    def to_internal_value(self, data: Any) -> Any:
        optional = (
            "stream",
            "n",
            "response_format",
            "tool_choice",
            "stream_options",
            "reference_date",
            *LIMITS,
        )
        return super().to_internal_value(_nulls_dropped(data, optional))

    def validate_response_format(self, value: Any) -> Any:
        if not (isinstance(value, dict) and value.get("type") == "text"):
            raise serializers.ValidationError(STRUCTURED.format(param="response_format"))
        return value

    def validate_tool_choice(self, value: Any) -> Any:
        if value not in ("none", "auto"):
            raise serializers.ValidationError(STRUCTURED.format(param="tool_choice"))
        return value

    def validate_stream_options(self, value: Any) -> Any:
        if not isinstance(value, dict) or not isinstance(value.get("include_usage", False), bool):
            raise serializers.ValidationError("must be an object; `include_usage` true or false.")
        return value

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        messages = data["messages"]
        users = [index for index, message in enumerate(messages) if message["role"] == "user"]
        if not users:
            raise serializers.ValidationError({"messages": ["needs a `user` message: the last one is the question."]})
        last = users[-1]
        content = messages[last].get("content", "")
        if "task" in self.context:  # the view read it once already, to spare the throttle
            data["task"] = self.context["task"]
        else:
            data["task"] = chat_task(str(content)) if len(content) <= 100_000 else None
        data["notes"] = []
        if data["task"] is not None:
            data["question"], data["earlier"] = "", []
            return data  # a chat UI's own prompt, as long as it likes: no question to check
        try:
            question = QuestionTextField(max_length=2000).run_validation(content)
        except serializers.ValidationError as invalid:
            detail: Any = invalid.detail
            if getattr(content, "skipped", ()) and not str(content).strip():
                detail = [f"the question must be text: RAGSpine does not read `{content.skipped[0]}` parts."]
            raise serializers.ValidationError({"messages": {last: {"content": detail}}}) from None
        data["question"] = question
        data["earlier"] = [messages[index].get("content", "") for index in users[:-1]]
        skipped = sorted({kind for message in messages for kind in getattr(message.get("content"), "skipped", ())})
        data["notes"] = [f"Parts that are not text were skipped: {', '.join(skipped)}."] if skipped else []
        data["notes"] += [LIMIT_NOTE.format(param=param) for param in LIMITS if param in data]
        return data


# -- the reply ----------------------------------------------------------------------------------
@extend_schema_serializer(component_name="ChatCompletionMessage")
class ReplyMessageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    role = serializers.ChoiceField(["assistant"])
    content = serializers.CharField()
    refusal = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="ChatCompletionChoice")
class ChoiceSerializer(serializers.Serializer):  # type: ignore[type-arg]
    index = serializers.IntegerField()
    message = ReplyMessageSerializer()
    finish_reason = serializers.ChoiceField(["stop"])
    logprobs = serializers.JSONField(allow_null=True)


@extend_schema_serializer(component_name="ChatCompletion")
class CompletionSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.CharField()
    object = serializers.ChoiceField(["chat.completion"])
    created = serializers.IntegerField()
    model = serializers.CharField()
    choices = ChoiceSerializer(many=True)
    usage = serializers.JSONField(
        help_text="The tokens a model was sent and wrote for this answer: 0 when no model was asked."
    )
    system_fingerprint = serializers.CharField(allow_null=True)
    ragspine = LineageSerializer(help_text="The answer's lineage; OpenAI clients ignore it.")


@extend_schema_serializer(component_name="ChatCompletionChunk")
class ChunkSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """One `data:` line of the stream (the last line is `data: [DONE]`); the last chunk, with
    `finish_reason`, carries `ragspine`."""

    id = serializers.CharField()
    object = serializers.ChoiceField(["chat.completion.chunk"])
    created = serializers.IntegerField()
    model = serializers.CharField()
    choices = serializers.ListField(child=serializers.DictField())
    ragspine = LineageSerializer(required=False)


def _number_part(character: str) -> bool:
    return character.isdigit() or character in ".,%"


def text_pieces(text: str, size: int = PIECE) -> Iterator[str]:
    """`text` in pieces of about `size` characters, each cut where it splits no number."""
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        while end < len(text) and _number_part(text[end - 1]) and _number_part(text[end]):
            end += 1
        yield text[start:end]
        start = end


def _lineage(reply: dict[str, Any], notes: Sequence[str]) -> dict[str, Any]:
    if "task" in reply:  # a chat UI's background task: no question was answered
        return {"request_id": reply["request_id"], "task": reply["task"], "notes": list(notes)}
    return {**answer_lineage(reply), "notes": list(notes)}


TASK_NOTE = "A chat UI's background task (a title, tags, follow-ups), answered from the glossary: nothing was asked."


def _task_in(messages: list[Any]) -> ChatTask | None:
    """The background task the last user message is (`chat_tasks`), read before validation."""
    users = [message for message in messages if isinstance(message, dict) and message.get("role") == "user"]
    content = users[-1].get("content") if users else None
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        content = "\n".join(text for text in texts if isinstance(text, str))
    return chat_task(content) if isinstance(content, str) and len(content) <= 100_000 else None


def completion_of(reply: dict[str, Any], *, created: int, notes: Sequence[str] = ()) -> dict[str, Any]:
    message = {"role": "assistant", "content": reply["answer"], "refusal": None}
    return {
        "id": f"chatcmpl-{reply['request_id']}",
        "object": "chat.completion",
        "created": created,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": reply["usage"],
        "system_fingerprint": None,
        "ragspine": _lineage(reply, notes),
    }


def completion_chunks(
    reply: dict[str, Any], *, created: int, notes: Sequence[str] = (), usage: bool = False
) -> Iterator[str]:
    """The stream of an answer that is already complete and guarded: its text in pieces; with
    `usage`, a last chunk with no choices and the usage, as OpenAI's `include_usage` sends."""
    head = {"id": f"chatcmpl-{reply['request_id']}", "object": "chat.completion.chunk", "created": created}
    head |= {"model": MODEL, "system_fingerprint": None}

    def line(body: dict[str, Any]) -> str:
        return f"data: {json.dumps({**head, **body}, ensure_ascii=False)}\n\n"

    def chunk(delta: dict[str, str], finish_reason: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        return line({"choices": [choice], **extra, **({"usage": None} if usage else {})})

    yield chunk({"role": "assistant", "content": ""})
    for piece in text_pieces(reply["answer"]):
        yield chunk({"content": piece})
    yield chunk({}, "stop", ragspine=_lineage(reply, notes))
    if usage:
        yield line({"choices": [], "usage": reply["usage"]})
    yield "data: [DONE]\n\n"


class ChatCompletionApi(OpenAIApi):
    throttle_classes = [UserRateThrottle, ScopedRateThrottle]
    throttle_scope = "ask"  # one answer, as `/v1/ask`
    parser_classes = [JSONParser]

    InputSerializer = ChatRequestSerializer
    OutputSerializer = CompletionSerializer

    def get_throttles(self) -> list[Any]:
        """A chat UI's background task (`chat_tasks`) costs no throttle slot: it asks nothing."""
        return [] if self._task() is not None else super().get_throttles()

    def _task(self) -> ChatTask | None:
        if not hasattr(self, "_found_task"):
            data = self.request.data
            messages = data.get("messages") if isinstance(data, dict) else None
            self._found_task = _task_in(messages) if isinstance(messages, list) else None
        return self._found_task

    @extend_schema(
        request=ChatRequestSerializer,
        responses={
            (200, "application/json"): OpenApiResponse(CompletionSerializer, description="`stream` false or absent"),
            (200, "text/event-stream"): OpenApiResponse(
                ChunkSerializer, description="`stream: true`: `data:` lines of chunks, then `data: [DONE]`"
            ),
            **ERROR_RESPONSES,
        },
        summary="Answer a chat, OpenAI-compatible",
        operation_id="chat_completions_create",
        description=DESCRIPTION,
    )
    def post(self, request: Request) -> Response | StreamingHttpResponse:
        serializer = self.InputSerializer(data=request.data, context={"task": self._task()})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data["model"] != MODEL:
            raise ModelNotFound(data["model"])
        task = data["task"]
        if task is not None:
            today = data.get("reference_date") or timezone.localdate()
            answer = chat_task_reply(task, glossary_snapshot(), today)
            reply = {"request_id": request._request.request_id, "answer": answer, "task": task.kind}
            reply["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
            return self._replied(reply, data, [*data["notes"], TASK_NOTE])
        questions = [*data["earlier"], data["question"]]
        # As a conversation keeps its last MAX_TURNS turns, a transcript's last MAX_TURNS prefixes count.
        follows = [transcript_key(questions[:end]) for end in range(len(questions) - 1, 0, -1)][:MAX_TURNS]
        reply = answer_reply(
            data["question"],
            user=request.user,
            request_id=request._request.request_id,
            reference_date=data.get("reference_date"),
            conversation_id=transcript_key(questions),
            follows=follows,
        )
        return self._replied(reply, data, data["notes"])

    def _replied(self, reply: dict[str, Any], data: dict[str, Any], notes: Sequence[str]) -> Any:
        created = int(time.time())
        if not data["stream"]:
            return Response(completion_of(reply, created=created, notes=notes))
        usage = bool(data.get("stream_options", {}).get("include_usage"))
        response = StreamingHttpResponse(
            completion_chunks(reply, created=created, notes=notes, usage=usage),
            content_type="text/event-stream; charset=utf-8",
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


# -- models -------------------------------------------------------------------------------------
@extend_schema_serializer(component_name="Model")
class ModelSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.CharField()
    object = serializers.ChoiceField(["model"])
    created = serializers.IntegerField(help_text="0: the model is this server, not a dated release.")
    owned_by = serializers.CharField()


@extend_schema_serializer(component_name="ModelList")
class ModelListSerializer(serializers.Serializer):  # type: ignore[type-arg]
    object = serializers.ChoiceField(["list"])
    data = ModelSerializer(many=True)


MODEL_OBJECT = {"id": MODEL, "object": "model", "created": 0, "owned_by": "ragspine"}


class ModelListApi(OpenAIApi):
    @extend_schema(
        responses={200: ModelListSerializer, **ERROR_RESPONSES},
        summary="List models, OpenAI-compatible",
        operation_id="models_list",
    )
    def get(self, request: Request) -> Response:
        return Response({"object": "list", "data": [MODEL_OBJECT]})


class ModelDetailApi(OpenAIApi):
    @extend_schema(
        responses={200: ModelSerializer, **ERROR_RESPONSES},
        summary="Show a model, OpenAI-compatible",
        operation_id="models_retrieve",
    )
    def get(self, request: Request, model: str) -> Response:
        if model != MODEL:
            raise ModelNotFound(model[:128])
        return Response(MODEL_OBJECT)
