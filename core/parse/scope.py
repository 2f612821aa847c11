"""Narrowing a parsed question with an explicit `scope` (the narrowing buttons send one).

Takes the parsed intent, the `scope` mapping (metric, entity, channel, period), the glossary and
the reference date; returns the intent with those slots replaced, each resolved through the
glossary or the period grammar. A value neither knows raises `ScopeError`, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.periods import period_parse
from core.model.intent import ParsedIntent
from core.model.registry import ROUTE_NARRATIVE, ROUTE_STRUCTURED


class ScopeError(ValueError):
    """A `scope` value the glossary does not know."""


# -- scope ---------------------------------------------------------------------------------
def scope_apply(
    intent: ParsedIntent, scope: Mapping[str, str], glossary: GlossarySnapshot, reference: date
) -> ParsedIntent:
    """Narrow the parsed slots with an explicit `scope` (the narrowing buttons use it)."""
    changes: dict[str, Any] = {}
    for kind in ("metric", "entity", "channel"):
        raw = scope.get(kind)
        if raw in (None, ""):
            continue
        code = glossary.resolve(kind, raw)
        if code is None:
            raise ScopeError(f"scope.{kind} '{str(raw)[:64]}' is not in the glossary")
        changes[kind] = code
        plural = {"metric": "metrics", "entity": "entities"}.get(kind)
        if plural:
            changes[plural] = (code,)
        else:
            changes["channel_given"] = True
            changes["channels"] = (code,)
        if kind == "metric":
            changes["unknown_metric"] = None  # the analyst chose a known metric for the term
    raw_period = scope.get("period")
    if raw_period not in (None, ""):
        period = period_parse(str(raw_period), reference)
        if period is None:
            raise ScopeError(f"scope.period '{str(raw_period)[:64]}' is not a period")
        changes["period"] = period
        changes["periods"] = (period,)
    if not changes:
        return intent
    if "metric" in changes and intent.route == ROUTE_NARRATIVE:
        changes["route"] = ROUTE_STRUCTURED
    return replace(intent, **changes)
