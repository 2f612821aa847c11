"""What the MCP tools do, as plain Django code: one function per tool, taking the caller.

Each validates its arguments with the serializer of the API endpoint it mirrors and reads
through that endpoint's selectors, with the caller's clearance, so a tool can show nothing the
API would not show the same user: `ask_tool` is `POST /v1/ask`, `search_tool` is
`GET /v1/search`, `facts_tool` is `GET /v1/facts`, and `document_tool` opens a cited locator
as the document page does. Bad input raises `ToolInputError`, whose message is safe to show;
a document the caller may not see is not found, in the same words as one that does not exist.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from agent.api import AskApi
from agent.conversation import ConversationError
from common.access import user_cleared
from common.api.errors import error_message
from documents.models import Document
from documents.selectors import locator_context
from facts.api import FactListApi
from facts.models import FactMetric
from facts.selectors import FactFilterError, fact_filter, fact_list, glossary_snapshot
from retrieval.api import SearchApi
from retrieval.models import Chunk
from retrieval.selectors import SearchModeUnavailable, chunk_search

from .answers import answer_lineage, answer_reply

if TYPE_CHECKING:
    from core.glossary import GlossarySnapshot


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
NOTHING_IN_ENGLISH = (
    "No passage matched. The documents are mostly in Chinese: the names of companies, metrics and "
    "channels are searched under their Chinese names too, other words only as written. Search again "
    "with the Chinese words (e.g. 供应链 成本, not supply chain costs)."
)


class ToolInputError(ValueError):
    """Arguments a tool cannot use; the message says which and why."""


def _validated(serializer: serializers.Serializer, named: dict[str, str] | None = None) -> dict[str, Any]:  # type: ignore[type-arg]
    """The serializer's data, or `ToolInputError` naming each argument as the tool calls it
    (`named` maps the REST parameter to the tool's argument: `q` is `query`)."""
    if not serializer.is_valid():
        errors = {(named or {}).get(key, key): value for key, value in serializer.errors.items()}
        raise ToolInputError(error_message(errors))
    return dict(serializer.validated_data)


def _given(**arguments: Any) -> dict[str, Any]:
    return {name: value for name, value in arguments.items() if value is not None}


def ask_tool(
    user: Any,
    *,
    question: str,
    conversation_id: str | None = None,
    reference_date: date | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """The answer to `question` and its lineage, as `POST /v1/ask` gives them."""
    data = _validated(
        AskApi.InputSerializer(
            data=_given(question=question, conversation_id=conversation_id, reference_date=reference_date)
        )
    )
    try:
        reply = answer_reply(
            data["question"],
            user=user,
            request_id=request_id,
            reference_date=data.get("reference_date"),
            conversation_id=data.get("conversation_id") or None,
        )
    except ConversationError as error:
        raise ToolInputError(f"conversation_id: {error}") from None
    return {"answer": reply["answer"], "conversation_id": reply["conversation_id"], **answer_lineage(reply)}


def search_tool(user: Any, *, query: str, k: int = 10, mode: str = "hybrid") -> dict[str, Any]:
    """Passages ranked for `query`, as `GET /v1/search` ranks them, each with its document id
    and locator (what `document_tool` opens)."""
    data = _validated(SearchApi.InputSerializer(data={"q": query, "k": k, "mode": mode}), {"q": "query"})
    try:
        hits = chunk_search(data["q"], cleared=user_cleared(user), k=data["k"], mode=data["mode"], names=True)
    except SearchModeUnavailable as error:
        raise ToolInputError(f"mode: {error}") from None
    found: dict[str, Any] = {}
    if not hits and not _CJK.search(data["q"]):
        found["note"] = NOTHING_IN_ENGLISH
    return found | {
        "hits": [
            {
                "chunk_id": hit.chunk_id,
                "doc": hit.doc,
                "document_id": hit.document_id,
                "locator": hit.locator,
                "score": round(hit.score, 6),
                "snippet": hit.snippet,
            }
            for hit in hits
        ]
    }


class PageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    limit = serializers.IntegerField(min_value=1, max_value=1000, default=50)
    offset = serializers.IntegerField(min_value=0, default=0)


def _fact_rows(facts: list[FactMetric]) -> list[dict[str, Any]]:
    return list(FactListApi.OutputSerializer(facts, many=True).data)


def facts_tool(
    user: Any,
    *,
    metric: str | None = None,
    entity: str | None = None,
    period: str | None = None,
    channel: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> dict[str, Any]:
    """Approved facts with their sources, filtered as `GET /v1/facts` filters them."""
    filters = _validated(
        FactListApi.FilterSerializer(data=_given(metric=metric, entity=entity, period=period, channel=channel))
    )
    page = _validated(PageSerializer(data={"limit": limit, "offset": offset}))
    try:
        facts = fact_filter(fact_list(cleared=user_cleared(user)), filters=filters).order_by("pk")
    except FactFilterError as error:
        raise ToolInputError(f"{error.field}: {error}") from None
    rows = list(facts[page["offset"] : page["offset"] + page["limit"]])
    return {"count": facts.count(), "facts": _fact_rows(rows)}


class DocumentInputSerializer(serializers.Serializer):  # type: ignore[type-arg]
    document_id = serializers.IntegerField(min_value=1)
    locator = serializers.CharField(max_length=255, trim_whitespace=False)
    around = serializers.IntegerField(min_value=0, max_value=5, default=1)


def _passage(chunk: Chunk) -> dict[str, Any]:
    return {"chunk_id": chunk.pk, "locator": chunk.locator, "heading": chunk.heading, "text": chunk.text}


def _document(document: Document) -> dict[str, Any]:
    return {
        "id": document.pk,
        "name": document.name,
        "media_type": document.media_type,
        "sensitivity": document.sensitivity,
        "issuer": document.issuer,
        "report_type": document.report_type,
        "report_period": document.report_period,
    }


def document_tool(user: Any, *, document_id: int, locator: str, around: int = 1) -> dict[str, Any]:
    """The passage or table cell at a cited locator (a source's `document_id` and `locator`),
    with what surrounds it."""
    data = _validated(DocumentInputSerializer(data={"document_id": document_id, "locator": locator, "around": around}))
    context = locator_context(
        document_id=data["document_id"], locator=data["locator"], cleared=user_cleared(user), around=data["around"]
    )
    if context is None:
        raise ToolInputError(
            f"Nothing at locator {data['locator'][:80]!r} in document {data['document_id']}: "
            "no such document, or no passage or cell there that you may see."
        )
    found: dict[str, Any] = {"document": _document(context.document), "locator": context.locator}
    if context.passage is not None:
        return found | {
            "kind": "passage",
            "passage": _passage(context.passage),
            "before": [_passage(chunk) for chunk in context.before],
            "after": [_passage(chunk) for chunk in context.after],
        }
    assert context.cell is not None
    return found | {
        "kind": "cell",
        "cell": _fact_rows([context.cell])[0],
        "row": _fact_rows(context.row),
        "column": _fact_rows(context.column),
        "place": [_passage(chunk) for chunk in context.place],
    }


def _others(glossary: GlossarySnapshot, kind: str, record: Any) -> list[str]:
    """The names a code answers to besides the one listed as its `name`."""
    return [text for text in glossary.aliases_of(kind, record.code) if text != record.name]


def glossary_tool(user: Any, *, kind: str | None = None) -> dict[str, Any]:
    """The codes `facts` and `ask` understand, with every name and alias each answers to: the
    metrics (with their unit), the companies (the home company and its subsidiaries, and peers;
    never a competitor, which no question may ask about) and the channels. The glossary holds no
    figure and no RESTRICTED level, so every caller sees the same list."""
    glossary = glossary_snapshot()
    found: dict[str, Any] = {}
    if kind in (None, "metric"):
        found["metrics"] = [
            {"code": m.code, "name": m.name, "unit": m.unit, "aliases": _others(glossary, "metric", m)}
            for m in sorted(glossary.metrics.values(), key=lambda m: m.code)
        ]
    if kind in (None, "entity"):
        found["entities"] = [
            {"code": e.code, "name": e.name, "kind": e.kind, "aliases": _others(glossary, "entity", e)}
            for e in sorted(glossary.entities.values(), key=lambda e: e.code)
            if not glossary.is_external(e.code)
        ]
    if kind in (None, "channel"):
        found["channels"] = [
            {"code": c.code, "name": c.name, "aliases": _others(glossary, "channel", c)}
            for c in sorted(glossary.channels.values(), key=lambda c: c.code)
        ]
    return found
