"""FAQ matching over a per-process key index (rebuilt when the FAQ table changes): reads only."""

from __future__ import annotations

import threading

from django.conf import settings
from django.db.models import Count, Max, QuerySet

from common.access import visible_to
from core.gates.faq import faq_key, jaccard
from core.ports import FaqCandidate
from retrieval.text import tokens

from .models import FAQItem


def faq_item_list(*, cleared: bool) -> QuerySet[FAQItem]:
    """FAQ items the caller may see (the API lists and edits these)."""
    return visible_to(FAQItem.objects.all(), cleared=cleared)


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


class OrmFaqLookup:
    """The core's `FaqLookup` port: the items whose wording matches, newest version first. The
    gate (`core.gates.faq.faq_decide`) decides which may answer; `faq.services.faq_hit_count`
    counts a served one."""

    def candidates(self, question: str) -> list[FaqCandidate]:
        ids = _KeyIndex.candidates(question)
        if not ids:
            return []
        return [
            FaqCandidate(
                id=item.pk,
                version=item.version,
                question=item.question,
                answer=item.answer,
                source=item.source,
                sensitivity=item.sensitivity,
                enabled=item.enabled,
                valid_from=item.valid_from,
                valid_until=item.valid_until,
            )
            for item in FAQItem.objects.filter(pk__in=ids).order_by("-version", "pk")
        ]
