"""The analyst's conversation, kept in the session: turns, follow-up slots and recent questions.

A follow-up (`那香港呢？`, `去年呢？`) names only what changes; the slots it leaves out are taken
from the previous structured turn and passed as `scope`, and the answer says so.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from core.glossary import GlossarySnapshot
from core.intent import parse_intent

TURNS = "ragspine_turns"
RECENT = "ragspine_recent"
MAX_TURNS = 20
MAX_RECENT = 10
_FOLLOW_UP = re.compile(
    r"(呢|怎么样|如何)[？?。!！\s]*$|^(那|那么|还有|再看看?)|^(what about|how about|and)\b", re.IGNORECASE
)


def turns_get(session: Any) -> list[dict[str, Any]]:
    return list(session.get(TURNS, []))


def turn_add(session: Any, turn: dict[str, Any]) -> int:
    turns = turns_get(session)[-(MAX_TURNS - 1) :]
    turns.append(turn)
    session[TURNS] = turns
    recent = [q for q in session.get(RECENT, []) if q != turn["question"]]
    session[RECENT] = [turn["question"], *recent][:MAX_RECENT]
    return len(turns) - 1


def conversation_clear(session: Any) -> None:
    session[TURNS] = []


def follow_up_scope(
    question: str, previous: dict[str, Any] | None, glossary: GlossarySnapshot, reference: date
) -> tuple[dict[str, str], str | None]:
    """Slots to inherit from the previous structured turn, and the note that says so."""
    if previous is None or not _FOLLOW_UP.search(question.strip()):
        return {}, None
    before = previous.get("intent") or {}
    if not before.get("metric"):
        return {}, None
    intent = parse_intent(question, glossary, reference)
    if intent.metric or intent.external_entity:
        return {}, None
    scope: dict[str, str] = {"metric": before["metric"]}
    if not intent.entity and before.get("entity"):
        scope["entity"] = before["entity"]
    if not intent.period and before.get("period"):
        scope["period"] = before["period"]
    if not intent.channel_given and before.get("channel") and before["channel"] != "TOTAL":
        scope["channel"] = before["channel"]
    names = {"metric": "指标", "entity": "实体", "period": "期间", "channel": "渠道"}
    shown = []
    for slot, value in scope.items():
        label = value if slot == "period" else glossary.display(slot, value, "zh")
        shown.append(f"{names[slot]} {label}")
    return scope, "【沿用上一问】" + "，".join(shown)
