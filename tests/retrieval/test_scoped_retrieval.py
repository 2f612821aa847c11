"""Retrieval scoped to the entity asked (SPEC §7): a question about one company gets passages of
the documents it issued, or that name it, chosen before the top-k, so another company's many
similar passages cannot crowd its own out; another company's passage comes only when nothing
about the asked one matches, under its label. On SQLite and on PostgreSQL."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command

from core.gates.screening import ScreenedRetriever
from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.attribution import Focus
from core.routes.narrative.retrieve import chunks_retrieve
from core.routes.render import ABOUT_ENTITY
from documents.services import document_ingest
from facts.selectors import glossary_snapshot
from retrieval.index import InProcessLexicalIndex, PostgresLexicalIndex, VectorIndex, retrieval_token
from retrieval.models import Chunk
from retrieval.selectors import OrmNarrativeRetriever, chunk_scope
from retrieval.services import chunks_embed
from retrieval.text import tokens
from tests.fakes import BigramHashEmbedder

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"
FILLER = "本公司按照企业会计准则编制财务报表，报告期内未发生会计政策变更。" * 8
ASKED = (
    f"# 2025年年度报告\n\n公司简称：ACME香港\n\n{FILLER}\n\n"
    "## 核心竞争力分析\n\n公司的核心竞争力在于门店网络覆盖主要商圈，会员体系带来稳定复购。\n"
)


def other(n: int) -> str:  # another company's reports: the question's own wording, again and again
    return (
        f"# 2025年年度报告（{n}）\n\n公司简称：ACME东南亚\n\n## 核心竞争力分析\n\n"
        "核心竞争力分析：公司的核心竞争力在于供应链，核心竞争力持续增强。\n"
    )


@pytest.fixture
def reports(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())
    document_ingest(name="asked_report.md", data=ASKED.encode())
    for n in range(12):
        document_ingest(name=f"other_report_{n}.md", data=other(n).encode())
    # a third company's report that speaks of the asked one by name
    document_ingest(
        name="market_review.md",
        data="# 行业综述\n\n公司简称：ACME东南亚\n\n## 同业\n\nACME香港的核心竞争力在于会员体系。\n".encode(),
    )


def ask(question: str, entity: str = "ACME_HK"):
    glossary = glossary_snapshot()
    return narrative_answer(
        question,
        retriever=ScreenedRetriever(OrmNarrativeRetriever(), glossary),
        glossary=glossary,
        cleared=False,
        language="zh",
        focus=Focus((entity,)),
    )


def test_the_asked_companys_passage_is_cited_though_another_has_many_closer_ones(reports: None) -> None:
    # Unscoped, the other company's twelve passages fill the top-k ahead of the asked one's own.
    unscoped = OrmNarrativeRetriever().retrieve("ACME香港的核心竞争力有哪些", cleared=False)
    assert "asked_report.md" not in {chunk.doc for chunk in unscoped}
    outcome = ask("ACME香港的核心竞争力有哪些")
    assert outcome.kind == "answer", outcome.text
    assert "会员体系带来稳定复购" in outcome.text
    assert "asked_report.md" in {source.doc for source in outcome.sources}
    assert {source.doc for source in outcome.sources} <= {"asked_report.md", "market_review.md"}
    assert "供应链" not in outcome.text


def test_the_scope_holds_the_issuers_documents_and_the_passages_naming_it(reports: None) -> None:
    scoped = OrmNarrativeRetriever().retrieve_within(["核心竞争力"], entities=frozenset({"ACME_HK"}), cleared=False)
    assert {chunk.doc for chunk in scoped[0]} == {"asked_report.md", "market_review.md"}
    # an alias in another written form names it too: `Hong Kong` is the same company
    assert chunk_scope(frozenset({"ACME_HK"})).names >= {("hong", "kong"), ("香港",)}


def test_nothing_in_scope_falls_back_to_everything_under_the_other_companys_label(reports: None) -> None:
    glossary = glossary_snapshot()
    assert OrmNarrativeRetriever().retrieve_within(["供应链"], entities=frozenset({"ACME_HK"}), cleared=False) == [[]]
    # The asked company's passages match the question by its name alone: they say nothing of it.
    found = chunks_retrieve(
        "香港的供应链如何",
        retriever=OrmNarrativeRetriever(),
        glossary=glossary,
        cleared=False,
        entities=frozenset({"ACME_HK"}),
    )
    assert found and {chunk.issuer for chunk in found[:3]} == {"ACME_SEA"}
    outcome = ask("香港的供应链如何")
    label = ABOUT_ENTITY["zh"].format(name="ACME东南亚")
    assert outcome.kind == "answer" and outcome.text.startswith(label), outcome.text


def test_the_scope_keeps_clearance(reports: None) -> None:
    document_ingest(
        name="asked_board_minutes.md",
        data="# 董事会纪要\n\n公司简称：ACME香港\n\n## 核心竞争力\n\n核心竞争力：拟收购两家连锁店。\n".encode(),
        sensitivity="RESTRICTED",
    )
    retriever = OrmNarrativeRetriever()
    hidden = retriever.retrieve_within(["核心竞争力"], entities=frozenset({"ACME_HK"}), cleared=False)[0]
    shown = retriever.retrieve_within(["核心竞争力"], entities=frozenset({"ACME_HK"}), cleared=True)[0]
    assert "asked_board_minutes.md" not in {chunk.doc for chunk in hidden}
    assert "asked_board_minutes.md" in {chunk.doc for chunk in shown}


def test_chunks_written_after_the_index_was_built_are_scoped_too(reports: None) -> None:
    base = InProcessLexicalIndex.current()  # built before the next report is written
    update = "# 更新\n\n公司简称：ACME香港\n\n核心竞争力：自有品牌。\n"
    document_ingest(name="asked_update.md", data=update.encode())
    refreshed = InProcessLexicalIndex._refreshed(base, retrieval_token())  # the main index and a delta
    assert refreshed.delta is not None and len(refreshed.delta.ids)
    scope = chunk_scope(frozenset({"ACME_HK"}))
    found = refreshed.search(tokens("核心竞争力"), cleared=False, k=50, scope=scope)
    docs = dict(Chunk.objects.values_list("pk", "document__name"))
    assert "asked_update.md" in {docs[pk] for pk, _ in found}
    assert {docs[pk] for pk, _ in found} == {"asked_report.md", "market_review.md", "asked_update.md"}


def test_the_full_text_backend_keeps_the_same_scope(reports: None) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the full-text backend is PostgreSQL's")
    scope = chunk_scope(frozenset({"ACME_HK"}))
    query = tokens("核心竞争力")
    in_process = {pk for pk, _ in InProcessLexicalIndex().search(query, cleared=False, k=50, scope=scope)}
    full_text = {pk for pk, _ in PostgresLexicalIndex().search(query, cleared=False, k=50, scope=scope)}
    assert full_text == in_process and full_text


def test_the_vector_search_keeps_the_same_scope(reports: None) -> None:
    embedder = BigramHashEmbedder()
    chunks_embed(embedder=embedder)
    scope = chunk_scope(frozenset({"ACME_HK"}))
    vector = embedder.embed_query("核心竞争力")
    found = VectorIndex().search(vector, cleared=False, k=50, space=embedder.signature, scope=scope)
    everything = VectorIndex().search(vector, cleared=False, k=50, space=embedder.signature)
    docs = dict(Chunk.objects.values_list("pk", "document__name"))
    assert {docs[pk] for pk, _ in found} == {"asked_report.md", "market_review.md"}
    assert len(everything) > len(found)
    # hybrid retrieval within the scope, the vectors' ranking fused with BM25's
    with mock.patch("retrieval.selectors.embedder_build", return_value=embedder):
        within = OrmNarrativeRetriever().retrieve_within(["核心竞争力"], entities=frozenset({"ACME_HK"}), cleared=False)
    assert {chunk.doc for chunk in within[0]} == {"asked_report.md", "market_review.md"}
