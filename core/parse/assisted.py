"""The model-assisted parser: deterministic first, the LLM only when inconclusive.

`LlmAssistedParser` wraps the rule parser. When the rules find no slot and no cue, it asks the
LLM for a JSON route plus slot codes, validates them against the whitelist of routes and the
glossary's codes, and falls back to the deterministic result on anything invalid
(`routing.mode = llm_fallback`). The security gate is not its business: the orchestrator still
screens the raw question, so no parser output can reach a competitor.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import date
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.periods import period_parse
from core.model.intent import ParsedIntent, Routing
from core.model.registry import ROUTE_STRUCTURED, ROUTES
from core.parse.intent import is_inconclusive, parse_intent
from core.ports import LLMProvider, ProviderError

ROUTER_SYSTEM = (
    "You route analyst questions. Reply with JSON only: "
    '{"route": one of ' + ", ".join(ROUTES) + ', "metric": code or null, "entity": code or null, '
    '"period": label like FY2025/2025H1/2025Q4 or null, "channel": code or null, '
    '"confidence": 0..1, "reason": short text}. Use only the codes listed.'
)


class LlmAssistedParser:
    def __init__(self, llm: LLMProvider):
        self.llm = llm

    def parse(self, question: str, *, glossary: GlossarySnapshot, reference_date: date) -> ParsedIntent:
        intent = parse_intent(question, glossary, reference_date)
        if not is_inconclusive(intent):
            return intent
        prompt = json.dumps(
            {
                "question": question,
                "metrics": sorted(glossary.metrics),
                "entities": [e.code for e in glossary.in_scope_entities()[:50]],
                "channels": sorted(glossary.channels),
            },
            ensure_ascii=False,
        )
        try:
            response = self.llm.create_message(
                system=ROUTER_SYSTEM, messages=[{"role": "user", "content": prompt}], tools=[]
            )
        except ProviderError:
            return _fallback(intent, "the router LLM is unavailable")
        return routing_apply(intent, response.text, glossary, reference_date)


def routing_apply(intent: ParsedIntent, reply: str, glossary: GlossarySnapshot, reference_date: date) -> ParsedIntent:
    """Validate an LLM routing reply; anything off the whitelist keeps the deterministic parse."""
    data = _json_object(reply)
    if data is None:
        return _fallback(intent, "the router reply was not JSON")
    route = data.get("route")
    if route not in ROUTES:
        return _fallback(intent, f"route {str(route)[:20]!r} is not allowed")
    slots: dict[str, Any] = {}
    for kind in ("metric", "entity", "channel"):
        code = data.get(kind)
        if code in (None, ""):
            continue
        records = {"metric": glossary.metrics, "entity": glossary.entities, "channel": glossary.channels}[kind]
        if not isinstance(code, str) or code not in records or (kind == "entity" and glossary.is_external(code)):
            return _fallback(intent, f"{kind} {str(code)[:20]!r} is not a glossary code")
        slots[kind] = code
    period = None
    if data.get("period") not in (None, ""):
        period = period_parse(str(data["period"]), reference_date)
        if period is None:
            return _fallback(intent, "the period is not a period label")
    if route == ROUTE_STRUCTURED and "metric" not in slots and intent.metric is None:
        return _fallback(intent, "a structured route needs a metric")
    try:
        confidence = min(max(float(data.get("confidence", 0.5)), 0.0), 1.0)
    except (TypeError, ValueError):
        confidence = 0.5
    reason = re.sub(r"\s+", " ", str(data.get("reason", "")))[:80] or "LLM routing"
    return replace(
        intent,
        route=route,
        metric=slots.get("metric", intent.metric),
        metrics=(slots["metric"],) if "metric" in slots else intent.metrics,
        entity=slots.get("entity", intent.entity),
        entities=(slots["entity"],) if "entity" in slots else intent.entities,
        period=period or intent.period,
        periods=(period,) if period else intent.periods,
        channel=slots.get("channel", intent.channel),
        channel_given=("channel" in slots) or intent.channel_given,
        routing=Routing("llm_assisted", round(confidence, 2), reason),
    )


def _json_object(text: str) -> dict[str, Any] | None:
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if match is None:
        return None
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _fallback(intent: ParsedIntent, why: str) -> ParsedIntent:
    return replace(intent, routing=Routing("llm_fallback", intent.routing.confidence, f"{why}; rules kept"))
