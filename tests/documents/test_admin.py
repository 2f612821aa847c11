"""Document admin: what a curator without clearance may learn from the document list."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from core.types import RESTRICTED
from documents.models import Document
from facts.models import FactMetric
from tests.factories import curator_make

pytestmark = pytest.mark.django_db

DECK = "ACME_FY2025_Annual_Results.pptx"


def fact_counts(user: Any) -> dict[str, int]:
    browser = Client()
    browser.force_login(user)
    listing = browser.get("/admin/documents/document/").content.decode()
    rows = re.findall(
        r'<th class="field-name"><a [^>]*>([^<]+)</a></th>.*?<td class="field-fact_count">(\d+)</td>', listing
    )
    return {name: int(count) for name, count in rows}


def test_the_fact_count_counts_only_the_facts_the_curator_may_see(demo: dict[str, Any]) -> None:
    deck = Document.objects.get(name=DECK)
    total = deck.facts.count()
    secret = deck.facts.order_by("pk").first()
    FactMetric.objects.filter(pk=secret.pk).update(sensitivity=RESTRICTED)  # one figure reclassified
    uncleared, cleared = curator_make("curator_uncleared"), demo["users"]["curator"]
    assert fact_counts(cleared)[DECK] == total
    assert fact_counts(uncleared)[DECK] == total - 1  # the count does not give the RESTRICTED one away
    assert "东南亚扩张计划_内部.docx" not in fact_counts(uncleared)
