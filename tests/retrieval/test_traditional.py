"""Traditional and Simplified Chinese meet in the lexical index: the stored tokens and
the question's tokens pass the same normalisation (OpenCC t2s), so either script finds the
other, on SQLite and PostgreSQL, in-process and with the PostgreSQL full-text backend."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings

from documents.services import document_ingest
from retrieval.selectors import chunk_search

pytestmark = pytest.mark.django_db
SIMPLIFIED = "# 科考简报\n## 极地\n极地科考站改用风能后，柴油补给费用明显下降，雪地车队继续扩编。\n"
TRADITIONAL = "# 門店簡報\n## 灣區\n灣區門店客流回暖，會員復購帶動線上銷售額穩步增長。\n"
CASES = [
    ("極地科考站的柴油補給費用為什麼下降", "simplified.md"),  # a Traditional question, a Simplified passage
    ("湾区门店会员复购", "traditional.md"),  # a Simplified question, a Traditional passage
    ("灣區門店會員復購", "traditional.md"),
]


@pytest.fixture
def both_scripts(demo: Any) -> None:
    document_ingest(name="simplified.md", data=SIMPLIFIED.encode())
    document_ingest(name="traditional.md", data=TRADITIONAL.encode())


@pytest.mark.parametrize(("question", "expected"), CASES)
def test_either_script_finds_the_other_through_bm25(both_scripts: None, question: str, expected: str) -> None:
    hits = chunk_search(question, cleared=False, mode="bm25", k=3)
    assert hits and hits[0].doc == expected


@pytest.mark.parametrize(("question", "expected"), CASES)
def test_the_postgres_full_text_backend_agrees(both_scripts: None, question: str, expected: str) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the full-text backend is PostgreSQL's")
    with override_settings(RAGSPINE={**settings.RAGSPINE, "LEXICAL_BACKEND": "postgres"}):
        hits = chunk_search(question, cleared=False, mode="bm25", k=3)
    assert hits and hits[0].doc == expected
