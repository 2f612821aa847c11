"""FAQ matching over a per-process key index (rebuilt when the FAQ table changes)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.db.models import Count, F, Max, QuerySet
from django.utils import timezone

from common.access import visible_to
from core.gates.faq import faq_exclusion, faq_key, jaccard
from core.model.types import RESTRICTED, ParsedIntent
from core.ports import FaqHit
from retrieval.text import tokens

from .models import FAQItem

NO_MATCH = "no FAQ item matches this wording"
DISABLED = "the matching item is disabled"
OUTSIDE_WINDOW = "the matching item is outside its validity window"
RESTRICTED_ITEM = "the matching item is RESTRICTED (never served as a cached answer)"


def faq_item_list(*, cleared: bool) -> QuerySet[FAQItem]:
    """FAQ items the caller may see (the API lists and edits these)."""
    return visible_to(FAQItem.objects.all(), cleared=cleared)


@dataclass(frozen=True)
class FaqVerdict:
    item: FAQItem | None
    reason: str


class _KeyIndex:
    _lock = threading.Lock()
    _stamp: tuple[int, object] | None = None
    _keys: dict[str, list[int]] = {}
    _tokens: list[tuple[frozenset[str], int]] = []

    @classmethod
    def candidates(cls, question: str) -> list[int]:
        stamp = FAQItem.objects.aggregate(n=Count("pk"), last=Max("updated_at"))
        current = (stamp["n"], stamp["last"])
        if cls._stamp != current:
            with cls._lock:
                keys: dict[str, list[int]] = {}
                token_sets: list[tuple[frozenset[str], int]] = []
                for pk, text, aliases in FAQItem.objects.values_list("pk", "question", "aliases"):
                    for wording in [text, *(aliases or [])]:
                        keys.setdefault(faq_key(wording), []).append(pk)
                        token_sets.append((frozenset(tokens(wording)), pk))
                cls._keys, cls._tokens, cls._stamp = keys, token_sets, current
        found = list(cls._keys.get(faq_key(question), []))
        threshold = float(settings.RAGSPINE.get("FAQ_SIMILARITY", 0) or 0)
        if not found and threshold > 0:
            words = frozenset(tokens(question))
            scored = sorted(((jaccard(words, ws), pk) for ws, pk in cls._tokens), reverse=True)
            found = [pk for score, pk in scored if score >= threshold][:3]
        return found


def faq_decide(intent: ParsedIntent, *, reference_date: date) -> FaqVerdict:
    """Which item would answer, or why none does. No side effects (the admin's tester uses it)."""
    excluded = faq_exclusion(intent)
    if excluded:
        return FaqVerdict(None, excluded)
    ids = _KeyIndex.candidates(intent.raw_question)
    if not ids:
        return FaqVerdict(None, NO_MATCH)
    reason = NO_MATCH
    for item in FAQItem.objects.filter(pk__in=ids).order_by("-version", "pk"):
        if item.sensitivity == RESTRICTED:
            reason = RESTRICTED_ITEM
        elif not item.enabled:
            reason = DISABLED
        elif (item.valid_from and reference_date < item.valid_from) or (
            item.valid_until and reference_date > item.valid_until
        ):
            reason = OUTSIDE_WINDOW
        else:
            return FaqVerdict(item, "hit")
    return FaqVerdict(None, reason)


class OrmFaqLookup:
    """The core's `FaqLookup` port: a hit is counted and returned as a vetted answer."""

    def lookup(self, intent: ParsedIntent, *, cleared: bool, reference_date: date) -> FaqHit | None:
        verdict = faq_decide(intent, reference_date=reference_date)
        if verdict.item is None:
            return None
        item = verdict.item
        FAQItem.objects.filter(pk=item.pk).update(hit_count=F("hit_count") + 1, last_hit_at=timezone.now())
        return FaqHit(id=item.pk, version=item.version, answer=item.answer, source=item.source)
