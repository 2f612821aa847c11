"""Reads of the agent app: conversations and their turns, a follow-up's context, and the trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from core.model.intent import ParsedIntent
from core.model.registry import ROUTE_FAQ

from .conversation import MAX_RECENT, intent_from_json
from .models import Conversation, ConversationTurn, QueryLog


def query_log_list(*, cleared: bool) -> QuerySet[QueryLog]:
    """Traces a curator may read: a cleared analyst's question may name RESTRICTED matters, so
    its trace (and the terms it used) is shown only to cleared curators."""
    logs = QueryLog.objects.all()
    return logs if cleared else logs.exclude(asker_cleared=True)


def conversation_get(*, user: AbstractBaseUser | AnonymousUser | None, external_id: str) -> Conversation | None:
    if user is None or not user.is_authenticated:
        return None
    return Conversation.objects.filter(user_id=user.pk, external_id=external_id).first()


def turn_list(*, conversation: Conversation | None, cleared: bool) -> QuerySet[ConversationTurn]:
    """The conversation's kept turns, oldest first. A turn answered with RESTRICTED clearance is
    listed only while the user still has it."""
    if conversation is None:
        return ConversationTurn.objects.none()
    turns = conversation.turns.all()
    return turns if cleared else turns.exclude(asker_cleared=True)


def turn_get(*, conversation: Conversation | None, position: int, cleared: bool) -> ConversationTurn | None:
    return turn_list(conversation=conversation, cleared=cleared).filter(position=position).first()


def previous_intent(conversation: Conversation | None) -> ParsedIntent | None:
    """The last answered intent of the conversation: what a follow-up may inherit. A turn the FAQ
    answered is passed over (a definition asked in between does not end the analysis it
    interrupts); any other answered turn, a narrative one included, is the context."""
    if conversation is None:
        return None
    answered = conversation.turns.exclude(intent__isnull=True).order_by("-position")
    for data, route in answered.values_list("intent", "result__route"):
        if route != ROUTE_FAQ:
            return intent_from_json(data) if data else None
    return None


def previous_intent_along(
    *, user: AbstractBaseUser | AnonymousUser | None, external_ids: Sequence[str]
) -> ParsedIntent | None:
    """`previous_intent` along a chain of this user's conversations, newest first: the last
    answered intent in the first of them that has one.

    A chat client sends its whole transcript each time; each prefix of it is a conversation of
    its own (so an edited or regenerated turn starts a branch instead of rewriting another), and
    a follow-up continues the chain of its prefixes as a turn of one conversation would.
    """
    if not external_ids or user is None or not user.is_authenticated:
        return None
    rank = {external_id: index for index, external_id in enumerate(external_ids)}
    turns = ConversationTurn.objects.filter(
        conversation__user_id=user.pk, conversation__external_id__in=list(rank)
    ).exclude(intent__isnull=True)
    rows = turns.values_list("conversation__external_id", "position", "intent", "result__route")
    for _, _, data, route in sorted(rows, key=lambda row: (rank[row[0]], -row[1])):
        if route != ROUTE_FAQ:
            return intent_from_json(data) if data else None
    return None


@dataclass(frozen=True)
class RecentQuestion:
    """A question the user asked, and where its answer is stored: it re-opens as it was."""

    question: str
    conversation: str  # the conversation's external id
    position: int


def recent_questions(*, user: AbstractBaseUser | AnonymousUser, cleared: bool) -> list[RecentQuestion]:
    """The user's last distinct questions, newest first, across their conversations, each with
    its latest stored answer."""
    turns = ConversationTurn.objects.filter(conversation__user_id=user.pk)
    if not cleared:
        turns = turns.exclude(asker_cleared=True)
    recent: dict[str, RecentQuestion] = {}
    rows = turns.order_by("-created_at", "-pk").values_list("question", "conversation__external_id", "position")
    for question, conversation, position in rows[: MAX_RECENT * 5]:
        recent.setdefault(question, RecentQuestion(question, conversation, position))
        if len(recent) == MAX_RECENT:
            break
    return list(recent.values())
