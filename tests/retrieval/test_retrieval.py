"""Documents, chunks and search on both database backends."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from documents.models import Document
from documents.services import IngestError, document_ingest, sensitivity_classify
from retrieval.index import PostgresLexicalIndex, retrieval_token
from retrieval.models import Chunk
from retrieval.selectors import chunk_search
from retrieval.services import chunks_embed
from retrieval.text import tokens
from tests.fakes import BigramHashEmbedder
from tests.ingestion.builders import docx_bytes

pytestmark = pytest.mark.django_db
SECRET_DOC = "东南亚扩张计划_内部.docx"


def test_demo_documents_are_chunked_with_structural_locators(demo) -> None:
    assert Document.objects.count() == 11  # 5 fact documents (one also narrative) + 6 narrative ones
    secret = Document.objects.get(name=SECRET_DOC)
    assert secret.sensitivity == "RESTRICTED" and secret.status == "ready"
    assert set(secret.chunks.values_list("sensitivity", flat=True)) == {"RESTRICTED"}
    assert "section=财务影响,para=1-2" in set(secret.chunks.values_list("locator", flat=True))
    mdna = Chunk.objects.filter(document__name="ACME_FY2025_管理层讨论与分析.pdf").values_list("locator", flat=True)
    assert mdna and all(loc.startswith("page=") and ",para=" in loc for loc in mdna)
    assert all(chunk.tokens.split() for chunk in Chunk.objects.all())


def test_unchanged_files_are_skipped_and_changed_ones_replaced(demo) -> None:
    data = "# 备忘\n## 要点\n香港门店租约到期。\n".encode()
    first = document_ingest(name="memo.md", data=data)
    token = retrieval_token()
    again = document_ingest(name="memo.md", data=data)
    assert (first.status, again.status) == ("created", "unchanged") and retrieval_token() == token
    changed = document_ingest(name="memo.md", data=data + "## 新增\n深圳仓投产。\n".encode())
    assert changed.status == "replaced" and changed.chunks == 2 and retrieval_token() != token
    assert Document.objects.filter(name="memo.md").count() == 1


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.md", b"   \n", "empty"),
        ("latin.md", "caf\xe9".encode("latin-1"), "UTF-8"),
        ("binary.txt", b"\x00\x01\x02binary", "binary"),
        ("tool.exe", b"MZ", "unsupported"),
        ("headings.md", b"# title\n## section\n", "no text"),
    ],
)
def test_bad_files_fail_clearly_and_write_nothing(demo, name: str, data: bytes, message: str) -> None:
    before = (Document.objects.count(), Chunk.objects.count(), retrieval_token())
    with pytest.raises(IngestError, match=message):
        document_ingest(name=name, data=data)
    assert (Document.objects.count(), Chunk.objects.count(), retrieval_token()) == before


def test_ingest_command_reports_each_file_and_keeps_going(demo, tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# 好\n## 一\n华南智能仓投产。\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\xfa")
    (tmp_path / "tool.exe").write_bytes(b"MZ")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="2 of 3 file"):
        call_command("ingest", str(tmp_path), "--no-progress", stdout=out, stderr=err)
    assert "good.md: created, 1 chunk(s), 0 fact(s)" in out.getvalue()
    assert "bad.txt: failed, nothing written" in err.getvalue() and "not supported" in err.getvalue()
    assert not Document.objects.filter(name__in=["bad.txt", "deck.pdf"]).exists()
    again = StringIO()
    call_command("ingest", str(tmp_path / "good.md"), "--no-progress", stdout=again)
    assert "unchanged" in again.getvalue()


def test_sensitivity_is_classified_when_not_given(demo) -> None:
    assert document_ingest(name="a.md", data="sensitivity: PUBLIC\n正文。".encode()).document.sensitivity == "PUBLIC"
    assert document_ingest(name="绝密_b.md", data="正文。".encode()).document.sensitivity == "RESTRICTED"
    assert document_ingest(name="c.md", data="本文件严格保密。".encode()).document.sensitivity == "RESTRICTED"
    assert document_ingest(name="d.md", data="正文。".encode()).document.sensitivity == "INTERNAL"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        # A RESTRICTED hint in the name or the body wins over every other hint, wherever it is.
        ("express_logistics_plan.md", "本计划严格保密。", "RESTRICTED"),
        ("press_release.md", "发布前严格保密。", "RESTRICTED"),
        ("public_summary.md", "This summary is confidential.", "RESTRICTED"),
        ("confidential-plan.docx", "正文。", "RESTRICTED"),
        ("CONFIDENTIAL.PLAN.md", "正文。", "RESTRICTED"),
        ("fy2025confidential_plan.md", "正文。", "RESTRICTED"),
        ("公司confidential计划.md", "正文。", "RESTRICTED"),
        # INTERNAL before PUBLIC, over the name and the body.
        ("press_release.md", "内部讨论稿。", "INTERNAL"),
        ("public_faq.md", "For internal use.", "INTERNAL"),
        # ASCII hints are whole words: `_ - .` and digits bound them, letters do not.
        ("press_release.md", "正文。", "PUBLIC"),
        ("q3-press.md", "正文。", "PUBLIC"),
        ("2025public.md", "正文。", "PUBLIC"),
        ("express.md", "正文。", "INTERNAL"),
        ("pressure_test.md", "正文。", "INTERNAL"),
        ("republican.md", "正文。", "INTERNAL"),
        ("unrestricted_notes.md", "正文。", "INTERNAL"),
        ("notes.md", "This memo is unrestricted.", "INTERNAL"),
        ("notes.md", "International public briefing.", "PUBLIC"),
        # A negated PUBLIC hint says "not public": never PUBLIC, at least INTERNAL.
        ("notes.md", "非公开信息，仅供参考。", "INTERNAL"),
        ("public_summary.md", "本文件不公开。", "INTERNAL"),
        ("notes.md", "未公开数据。", "INTERNAL"),
        ("notes.md", "不得对外公开。", "INTERNAL"),
        ("notes.md", "Not public: for the board only.", "INTERNAL"),
        ("notes.md", "Non-public information.", "INTERNAL"),
        ("public.md", "Not for public release.", "INTERNAL"),
        # A negated RESTRICTED hint is no RESTRICTED hint (and says nothing else).
        ("notes.md", "A non-confidential summary.", "INTERNAL"),
        ("notes.md", "本摘要非机密。", "INTERNAL"),
        ("notes.md", "A non-confidential summary of the confidential plan.", "RESTRICTED"),
        # A PUBLIC hint alone, and no hint at all (the default).
        ("industry_weekly.md", "公开资料整理。", "PUBLIC"),
        ("notes.md", "正文。", "INTERNAL"),
    ],
)
def test_sensitivity_hints_are_anchored_and_restricted_wins(name: str, text: str, expected: str) -> None:
    assert sensitivity_classify(name=name, text=text) == expected


def test_explicit_metadata_then_front_matter_come_before_any_hint() -> None:
    assert sensitivity_classify(name="confidential.md", text="严格保密", explicit="public") == "PUBLIC"
    assert sensitivity_classify(name="press_release.md", text="sensitivity: RESTRICTED\n正文。") == "RESTRICTED"
    assert sensitivity_classify(name="confidential.md", text="sensitivity: INTERNAL\n严格保密。") == "INTERNAL"
    assert sensitivity_classify(name="notes.md", text="正文。", default="PUBLIC") == "PUBLIC"
    with pytest.raises(IngestError):
        sensitivity_classify(name="notes.md", text="正文。", explicit="SECRET")


def test_an_upload_whose_body_is_restricted_is_restricted_whatever_its_name(demo) -> None:
    outcome = document_ingest(name="express_logistics_plan.md", data="# 物流计划\n本计划严格保密。\n".encode())
    assert outcome.document.sensitivity == "RESTRICTED"
    assert set(outcome.document.chunks.values_list("sensitivity", flat=True)) == {"RESTRICTED"}


def test_office_uploads_are_classified_by_name_title_and_body(demo) -> None:
    def paragraphs(*texts: str, title: str = "") -> Callable[[Any], None]:
        def build(document: Any) -> None:
            if title:
                document.add_heading(title, level=0)
            for text in texts:
                document.add_paragraph(text)

        return build

    cases = {
        "express_logistics_plan.docx": (paragraphs("本计划严格保密。"), "RESTRICTED"),
        "confidential-plan.docx": (paragraphs("正文。"), "RESTRICTED"),
        "press_release.docx": (paragraphs("正文。"), "PUBLIC"),
        "express.docx": (paragraphs("正文。"), "INTERNAL"),
        "plan.docx": (paragraphs("正文。", title="机密：东南亚物流计划"), "RESTRICTED"),
        "declared.docx": (paragraphs("sensitivity: PUBLIC", "内部。", title="计划"), "PUBLIC"),
    }
    for name, (build, expected) in cases.items():
        assert document_ingest(name=name, data=docx_bytes(build)).document.sensitivity == expected, name


def test_search_api_ranks_and_filters_by_clearance(analyst: APIClient, cleared: APIClient) -> None:
    hits = analyst.get("/v1/search", {"q": "存储芯片", "k": 5, "mode": "bm25"}).json()
    assert hits[0]["doc"] == "供应链与原材料成本说明.md" and set(hits[0]) == {
        "chunk_id",
        "doc",
        "locator",
        "score",
        "snippet",
    }
    for client, visible in ((analyst, False), (cleared, True)):
        found = client.get("/v1/search", {"q": "蓝鲸 并购 估值", "mode": "hybrid"}).json()
        assert any(h["doc"] == SECRET_DOC for h in found) is visible
        assert any("蓝鲸" in h["snippet"] for h in found) is visible


@pytest.mark.parametrize(
    "params",
    [
        {"q": ""},
        {"q": "x" * 2001},
        {"q": "芯片", "k": 0},
        {"q": "芯片", "k": 500},
        {"q": "芯片", "mode": "magic"},
        {"q": "芯片", "mode": "vector"},
        {},
    ],
)
def test_search_rejects_bad_parameters(analyst: APIClient, params: dict) -> None:
    response = analyst.get("/v1/search", params)
    assert response.status_code == 400 and response.json()["error"]["type"] == "bad_request"


def test_a_revoked_clearance_counts_from_the_next_search(demo) -> None:
    from django.contrib.auth.models import Group, Permission
    from django.test.utils import CaptureQueriesContext

    from tests.clients import client_for

    granted = Permission.objects.get(codename="can_view_restricted", content_type__app_label="facts")
    user = type(demo["users"]["analyst"]).objects.create(username="reader")
    group = Group.objects.create(name="cleared readers")
    group.permissions.add(granted)
    user.groups.add(group)
    user.user_permissions.add(granted)
    client = client_for(user)

    def secret_found() -> bool:
        response = client.get("/v1/search", {"q": "蓝鲸 并购 估值", "mode": "bm25"})
        assert response.status_code == 200
        return any(h["doc"] == SECRET_DOC for h in response.json())

    assert secret_found()
    user.user_permissions.remove(granted)  # still cleared through the group
    assert secret_found()
    user.groups.remove(group)  # downgraded: the very next search no longer sees RESTRICTED chunks
    assert not secret_found()
    user.groups.add(group)
    assert secret_found()
    group.permissions.remove(granted)  # revoked on the group
    assert not secret_found()
    type(user).objects.filter(pk=user.pk).update(is_superuser=True)
    assert secret_found()
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    assert client.get("/v1/search", {"q": "蓝鲸"}).status_code == 401
    type(user).objects.filter(pk=user.pk).update(is_active=True, is_superuser=False)
    with CaptureQueriesContext(connection) as queries:
        assert not secret_found()
    reads = [q["sql"] for q in queries.captured_queries]
    assert any("can_view_restricted" in sql for sql in reads), "clearance is read on every request"
    assert not any("can_view_restricted" in sql and "authtoken_token" not in sql for sql in reads), (
        "the token, its user and the clearance are read in one query"
    )


def test_search_needs_authentication(demo) -> None:
    assert APIClient().get("/v1/search", {"q": "芯片"}).status_code == 401


def test_a_new_document_is_searchable_on_the_next_request(demo, analyst: APIClient) -> None:
    assert analyst.get("/v1/search", {"q": "火星仓库"}).json() == []
    document_ingest(name="mars.md", data="# 火星\n## 仓储\n火星仓库启用。\n".encode())
    assert analyst.get("/v1/search", {"q": "火星仓库"}).json()[0]["doc"] == "mars.md"


def test_vector_and_hybrid_search_with_an_embedder(demo) -> None:
    embedder = BigramHashEmbedder()
    public = document_ingest(name="vec.md", data="# 向量\n## 一\n华南智能仓投产后单件物流成本下降。\n".encode())
    secret = document_ingest(
        name="vec_secret.md", data="# 机密\n## 一\n华南智能仓的秘密选址。\n".encode(), sensitivity="RESTRICTED"
    )
    for outcome in (public, secret):
        chunks_embed(embedder=embedder, document_id=outcome.document.pk)
    assert Chunk.objects.get(document__name="vec.md").embedding is not None
    with mock.patch("retrieval.selectors.embedder_build", return_value=embedder):
        vector = chunk_search("华南智能仓物流成本", cleared=False, mode="vector", k=3)
        hybrid = chunk_search("华南智能仓物流成本", cleared=False, mode="hybrid", k=5)
        cleared_hits = chunk_search("华南智能仓秘密选址", cleared=True, mode="vector", k=3)
    assert vector[0].doc == "vec.md" and all(h.doc != "vec_secret.md" for h in vector + hybrid)
    assert any(h.doc == "vec_secret.md" for h in cleared_hits)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'retrieval_chunk'")
            names = {row[0] for row in cursor.fetchall()}
            assert "chunk_embedding_hnsw_64" in names and "chunk_tokens_fts" in names
            for switch in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):  # leave the HNSW scan
                cursor.execute(f"SET LOCAL {switch} = off")
            literal = "[" + ",".join(["0.125"] * 64) + "]"
            cursor.execute(
                "EXPLAIN SELECT id FROM retrieval_chunk WHERE active AND embedding IS NOT NULL AND "
                "vector_dims(embedding) = 64 ORDER BY (embedding::vector(64)) <=> %s::vector(64) LIMIT 5",
                [literal],
            )
            assert "chunk_embedding_hnsw_64" in " ".join(row[0] for row in cursor.fetchall())


def test_a_question_and_its_glossary_variants_are_embedded_in_one_call(demo) -> None:
    from core.routes.narrative.retrieve import chunks_retrieve, queries_rewrite
    from facts.selectors import glossary_snapshot
    from retrieval.selectors import OrmNarrativeRetriever

    embedder = BigramHashEmbedder()
    chunks_embed(embedder=embedder)
    glossary = glossary_snapshot()

    class OneByOne:  # the same retriever without its batch method
        def __init__(self) -> None:
            self.inner = OrmNarrativeRetriever()

        def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list:
            return self.inner.retrieve(query, cleared=cleared, k=k)

        def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list:
            return self.inner.documents_find(query, cleared=cleared, k=k)

    # Every variant of this question swaps a name for another one, none a near copy of it.
    question = "线上退货率为什么上升"
    variants = queries_rewrite(question, glossary)
    assert len(variants) > 2
    with mock.patch("retrieval.selectors.embedder_build", return_value=embedder):
        for cleared in (False, True):
            embedder.calls, embedder.queries = 0, []
            batched = chunks_retrieve(question, retriever=OrmNarrativeRetriever(), glossary=glossary, cleared=cleared)
            assert embedder.calls == 1 and embedder.queries == [variants]
            single = chunks_retrieve(question, retriever=OneByOne(), glossary=glossary, cleared=cleared)
            assert embedder.calls == 1 + len(variants)
            assert batched == single and batched
            assert cleared or all(c.doc != SECRET_DOC for c in batched)


def test_a_variant_that_only_lengthens_a_name_takes_the_questions_vector(demo) -> None:
    """`acme香港…` and `香港营业收入…` are `香港收入…` with a name written longer: the same question to
    the vector channel, so they are not embedded again (they still search the lexical index)."""
    from core.routes.narrative.retrieve import chunks_retrieve, queries_rewrite
    from facts.selectors import glossary_snapshot
    from retrieval.selectors import OrmNarrativeRetriever

    embedder = BigramHashEmbedder()
    chunks_embed(embedder=embedder)
    glossary, question = glossary_snapshot(), "香港收入为什么下降"
    variants = queries_rewrite(question, glossary)
    lengthened = [v for v in variants[1:] if question in v or v.replace("营业", "") == question]
    assert lengthened and len(lengthened) < len(variants) - 1
    with mock.patch("retrieval.selectors.embedder_build", return_value=embedder):
        embedder.queries = []
        chunks_retrieve(question, retriever=OrmNarrativeRetriever(), glossary=glossary, cleared=True)
    assert embedder.queries == [[v for v in variants if v not in lengthened]]


@pytest.mark.parametrize(
    ("text", "other", "near"),
    [
        ("acme香港收入为什么下降", "香港收入为什么下降", True),  # a name written longer
        ("香港营业收入为什么下降", "香港收入为什么下降", True),
        ("香港收入为什么下降", "香港营业收入为什么下降", True),  # and shorter
        ("香港收入为什么下降", "香港收入为什么下降", True),
        ("hk收入为什么下降", "香港收入为什么下降", False),  # another name
        ("香港收入为什么上升", "香港收入为什么下降", False),
        ("acme香港收入为什么上升", "香港收入为什么下降", False),  # two stretches differ
    ],
)
def test_a_near_copy_differs_by_words_added_to_or_cut_from_one_stretch(text: str, other: str, near: bool) -> None:
    from retrieval.selectors import near_copy

    assert near_copy(text, other) is near


def test_postgres_full_text_backend_ranks_and_filters(demo) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the full-text backend is PostgreSQL's")
    index = PostgresLexicalIndex()
    hits = index.search(tokens("存储芯片价格"), cleared=False, k=5)
    docs = list(Chunk.objects.filter(pk__in=[pk for pk, _ in hits]).values_list("document__name", flat=True))
    assert "供应链与原材料成本说明.md" in docs
    hidden = index.search(tokens("蓝鲸 估值"), cleared=False, k=5)
    shown = index.search(tokens("蓝鲸 估值"), cleared=True, k=5)
    secret_ids = set(Chunk.objects.filter(document__name=SECRET_DOC).values_list("pk", flat=True))
    assert not secret_ids & {pk for pk, _ in hidden} and secret_ids & {pk for pk, _ in shown}
    assert index.search(["it's", "a\\b", "'"], cleared=True, k=3) == []


@pytest.mark.django_db(transaction=True)
def test_the_first_search_after_a_write_finds_it_and_the_index_rebuilds_in_the_background(demo, settings) -> None:
    import time

    from retrieval.index import InProcessLexicalIndex

    settings.RAGSPINE = {**settings.RAGSPINE, "INDEX_BACKGROUND_REBUILD": True}
    InProcessLexicalIndex._snapshot = None
    assert chunk_search("蓝鲸", cleared=True, mode="bm25")  # builds synchronously: no index yet
    Chunk.objects.filter(document__name="供应链与原材料成本说明.md").update(sensitivity="RESTRICTED")
    # The index still holds the chunk as INTERNAL, but the row read applies the clearance again.
    assert all(h.doc != "供应链与原材料成本说明.md" for h in chunk_search("存储芯片", cleared=False, mode="bm25"))
    document_ingest(name="mars.md", data="# 火星\n## 仓储\n火星仓库启用。\n".encode())
    # The first search after the write finds the new chunk: the index is refreshed before it runs.
    assert chunk_search("火星仓库", cleared=False, mode="bm25")[0].doc == "mars.md"
    refreshed = InProcessLexicalIndex._snapshot
    for _ in range(100):
        if InProcessLexicalIndex._snapshot is not refreshed:
            break
        time.sleep(0.05)
    rebuilt = InProcessLexicalIndex._snapshot
    assert rebuilt is not refreshed and rebuilt.delta is None  # the exact index landed in the background
    assert chunk_search("火星仓库", cleared=False, mode="bm25")[0].doc == "mars.md"


@pytest.mark.django_db(transaction=True)
def test_a_refresh_serves_new_and_drops_deleted_chunks_before_the_rebuild_lands(demo, settings, monkeypatch) -> None:
    import threading
    import time

    from documents.services import document_delete
    from retrieval.index import InProcessLexicalIndex

    settings.RAGSPINE = {**settings.RAGSPINE, "INDEX_BACKGROUND_REBUILD": True}
    InProcessLexicalIndex._snapshot = None
    index = InProcessLexicalIndex()
    assert index.search(tokens("存储芯片"), cleared=False, k=5)  # builds synchronously: no index yet
    release, build = threading.Event(), InProcessLexicalIndex._build
    monkeypatch.setattr(InProcessLexicalIndex, "_build", staticmethod(lambda token: release.wait(60) and build(token)))

    gone = Document.objects.get(name="供应链与原材料成本说明.md")
    gone_ids = set(gone.chunks.values_list("pk", flat=True))
    document_delete(document=gone)
    mars = document_ingest(name="mars.md", data="# 火星\n## 仓储\n火星仓库启用。\n".encode()).document
    secret = document_ingest(
        name="mars-secret.md", data="# 火星\n## 仓储\n火星仓库的秘密货架。\n".encode(), sensitivity="RESTRICTED"
    ).document
    for _ in range(200):
        hits = index.search(tokens("火星仓库"), cleared=False, k=5)
        if hits:
            break
        time.sleep(0.05)
    snapshot = InProcessLexicalIndex._snapshot
    assert snapshot is not None and snapshot.delta is not None  # the refresh, while the rebuild waits
    assert {pk for pk, _ in hits} == set(mars.chunks.values_list("pk", flat=True))
    cleared_hits = {pk for pk, _ in index.search(tokens("火星仓库"), cleared=True, k=5)}
    assert set(secret.chunks.values_list("pk", flat=True)) <= cleared_hits
    assert not gone_ids & {pk for pk, _ in index.search(tokens("存储芯片价格"), cleared=True, k=50)}

    release.set()  # the full rebuild lands and replaces the refresh with an exact index
    for _ in range(200):
        if InProcessLexicalIndex._snapshot.delta is None:
            break
        time.sleep(0.05)
    rebuilt = InProcessLexicalIndex._snapshot
    assert rebuilt.delta is None and rebuilt.built == rebuilt.token == retrieval_token()
    exact = build(retrieval_token())
    for question in ("火星仓库", "存储芯片价格", "香港收入为什么下降", "蓝鲸 估值"):
        for cleared in (False, True):
            assert index.search(tokens(question), cleared=cleared, k=10) == exact.search(
                tokens(question), cleared=cleared, k=10
            )


def test_a_fresh_process_cuts_queries_as_ingestion_cut_the_chunks(demo, monkeypatch) -> None:
    """A web worker that never ingested must still know the glossary's words when it searches."""
    from retrieval import text
    from retrieval.selectors import OrmNarrativeRetriever

    monkeypatch.setattr(text, "_jieba", None)
    monkeypatch.setattr(text, "_loaded_words", set())
    monkeypatch.setattr(text, "_taught", None, raising=False)
    assert "营业收入" not in text.tokens("营业收入为什么下降")  # what an untaught segmenter does
    OrmNarrativeRetriever().retrieve("营业收入为什么下降", cleared=False)
    assert "营业收入" in text.tokens("营业收入为什么下降")
