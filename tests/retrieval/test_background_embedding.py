"""Embedding never blocks ingestion: chunks are stored without vectors, embedded
afterwards in batches by the background task (or `manage.py embed`), each vector stamped with
its embedder's signature; until then hybrid search finds them by BM25 and says how many wait.
On SQLite and PostgreSQL, with the deterministic test embedder."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from typing import Any
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient

from common.access import user_cleared
from documents.models import Document
from documents.services import document_ingest
from retrieval.embedders import EmbedderError
from retrieval.index import vectors_token
from retrieval.models import Chunk
from retrieval.selectors import chunk_search, chunks_unembedded, vectors_pending
from retrieval.services import chunks_embed
from retrieval.tasks import embedding_catch_up
from tests.fakes import BigramHashEmbedder

pytestmark = pytest.mark.django_db
NOTE = "# 仓储\n## 一\n华南智能仓投产后单件物流成本下降。\n## 二\n冷链车队扩编。\n## 三\n分拣线升级完成。\n"
QUESTION = "华南智能仓物流成本"


class Failing(BigramHashEmbedder):
    """Embeds `succeed` batches, then fails like an embedding server going away."""

    def __init__(self, succeed: int = 0) -> None:
        super().__init__()
        self.succeed = succeed

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self.calls >= self.succeed:
            self.calls += 1
            raise EmbedderError("embedding server unavailable")
        return super().embed(texts)


@pytest.fixture
def configured() -> Iterator[BigramHashEmbedder]:
    """The test embedder as the configured one, everywhere the product builds its embedder."""
    embedder = BigramHashEmbedder()
    targets = [
        "retrieval.tasks",
        "retrieval.services",
        "retrieval.selectors",
        "retrieval.api",
        "retrieval.management.commands.embed",
        "documents.admin",
    ]
    patches = [mock.patch(f"{target}.embedder_build", return_value=embedder) for target in targets]
    for patch in patches:
        patch.start()
    try:
        yield embedder
    finally:
        for patch in patches:
            patch.stop()


def _note_chunks() -> Any:
    return Chunk.objects.filter(document__name="note.md")


def test_ingestion_stores_chunks_first_and_the_background_task_embeds_them_after_commit(
    demo: Any, configured: BigramHashEmbedder, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as queued:
        outcome = document_ingest(name="note.md", data=NOTE.encode())
        # Ingestion has returned: the chunks are stored, searchable, and not embedded yet.
        assert configured.calls == 0 and outcome.chunks == 3
        assert all(chunk.embedding is None and chunk.embedder == "" for chunk in _note_chunks())
        assert chunk_search(QUESTION, cleared=False, mode="hybrid", k=3)[0].doc == "note.md"
    assert len(queued) == 1
    queued[0]()  # the commit: the task is enqueued (the test backend runs it at once)
    assert configured.calls >= 1
    assert {chunk.embedder for chunk in _note_chunks()} == {configured.signature}
    assert chunk_search(QUESTION, cleared=False, mode="vector", k=3)[0].doc == "note.md"


def test_a_failing_embedder_never_fails_ingestion_and_bm25_keeps_every_chunk(
    demo: Any, configured: BigramHashEmbedder, analyst: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    failing = Failing()
    with (
        mock.patch("retrieval.services.embedder_build", return_value=failing),
        django_capture_on_commit_callbacks(execute=True),
    ):
        outcome = document_ingest(name="note.md", data=NOTE.encode())
    assert failing.calls == 1  # the background task tried, failed, and ingestion did not notice
    assert Document.objects.get(name="note.md").status == "ready" and outcome.chunks == 3
    visible = (
        Chunk.objects.filter(active=True).exclude(sensitivity="RESTRICTED").exclude(document__sensitivity="RESTRICTED")
    )
    assert vectors_pending(cleared=False) == visible.count() > 0
    response = analyst.get("/v1/search", {"q": QUESTION, "mode": "hybrid", "k": 3})
    assert response.status_code == 200 and response.json()[0]["doc"] == "note.md"
    assert response["X-Vectors-Pending"] == str(visible.count())
    assert "X-Vectors-Pending" not in analyst.get("/v1/search", {"q": QUESTION, "mode": "bm25"})


def test_batches_already_written_survive_a_failure_and_the_next_run_continues(demo: Any) -> None:
    document = document_ingest(name="note.md", data=NOTE.encode()).document
    with pytest.raises(EmbedderError):
        chunks_embed(embedder=Failing(succeed=1), document_id=document.pk, batch=1)
    signature = BigramHashEmbedder().signature
    assert _note_chunks().filter(embedder=signature).count() == 1
    assert chunks_unembedded(signature, document_id=document.pk).count() == 2
    outcome = chunks_embed(embedder=BigramHashEmbedder(), document_id=document.pk, batch=2)
    assert (outcome.embedded, outcome.remaining) == (2, 0)


def test_each_vector_records_its_embedder_and_a_new_embedder_re_embeds_instead_of_mixing(demo: Any) -> None:
    document = document_ingest(name="note.md", data=NOTE.encode()).document
    old, new = BigramHashEmbedder(dim=64), BigramHashEmbedder(dim=32)
    stamp = vectors_token()
    chunks_embed(embedder=old, document_id=document.pk)
    assert vectors_token() != stamp  # every batch tells the vector indexes to reload
    assert {c.embedder for c in _note_chunks()} == {"bigram-hash/64"}
    with mock.patch("retrieval.selectors.embedder_build", return_value=new):
        # The old space is never searched with the new model's question vector.
        assert chunk_search(QUESTION, cleared=False, mode="vector", k=3) == []
        assert chunk_search(QUESTION, cleared=False, mode="hybrid", k=3)[0].doc == "note.md"  # BM25 meanwhile
    assert chunks_unembedded(new.signature, document_id=document.pk).count() == 3
    chunks_embed(embedder=new, document_id=document.pk)
    assert {c.embedder for c in _note_chunks()} == {"bigram-hash/32"}
    assert all(len(c.embedding) == 32 for c in _note_chunks())
    with mock.patch("retrieval.selectors.embedder_build", return_value=new):
        assert chunk_search(QUESTION, cleared=False, mode="vector", k=3)[0].doc == "note.md"


def test_a_chunk_replaced_while_its_batch_was_embedded_is_not_resurrected(demo: Any) -> None:
    document = document_ingest(name="note.md", data=NOTE.encode()).document
    changed = NOTE.replace("冷链车队扩编", "冷链车队缩编")

    def reingest(done: int, total: int) -> None:
        if done == 1:
            document_ingest(name="note.md", data=changed.encode())

    outcome = chunks_embed(embedder=BigramHashEmbedder(), document_id=document.pk, batch=1, progress=reingest)
    # One chunk embedded before the replacement; the replaced ones are skipped, none revived.
    assert outcome.embedded == 1 and _note_chunks().count() == 3
    texts = {c.text: c.embedder for c in _note_chunks()}
    assert "冷链车队缩编。" in texts and texts["冷链车队缩编。"] == ""  # the new chunk waits for its own vector


def test_embed_command_takes_missing_or_all_and_fails_clearly(demo: Any, configured: BigramHashEmbedder) -> None:
    document_ingest(name="note.md", data=NOTE.encode())
    total = Chunk.objects.filter(active=True).count()
    out = StringIO()
    call_command("embed", "--no-progress", stdout=out)
    assert out.getvalue().strip() == f"embedded {total} chunk(s) with {configured.signature}; 0 without a vector"
    out = StringIO()
    call_command("embed", "--missing", "--no-progress", stdout=out)
    assert out.getvalue().startswith("embedded 0 chunk(s)")
    out = StringIO()
    call_command("embed", "--all", "--batch", "7", "--no-progress", stdout=out)
    assert out.getvalue().startswith(f"embedded {total} chunk(s)")
    with pytest.raises(CommandError, match="--batch must be at least 1"):
        call_command("embed", "--batch", "0")
    with (
        mock.patch("retrieval.management.commands.embed.chunks_embed", side_effect=EmbedderError("down")),
        pytest.raises(CommandError, match=r"embedding stopped: down; finished batches are kept"),
    ):
        call_command("embed", "--no-progress")


def test_embed_command_without_an_embedder_says_what_to_set(demo: Any) -> None:
    with pytest.raises(CommandError, match="RAGSPINE_EMBEDDER"):
        call_command("embed", "--no-progress")


def test_admin_shows_embedding_progress(demo: Any, configured: BigramHashEmbedder) -> None:
    document = document_ingest(name="note.md", data=NOTE.encode()).document
    chunks_embed(embedder=configured, document_id=document.pk)
    client = APIClient()
    client.force_login(demo["users"]["curator"])
    page = client.get("/admin/documents/document/").content.decode()
    pending = vectors_pending(cleared=user_cleared(demo["users"]["curator"]))
    assert pending > 0 and f"其余 {pending} 个正由后台嵌入" in page and f"（{configured.signature}）" in page
    assert "3 / 3" in page and "0 / " in page  # note.md embedded; demo documents waiting


def test_the_worker_catches_up_on_chunks_left_without_a_vector(
    demo: Any, configured: BigramHashEmbedder, settings: Any
) -> None:
    document_ingest(name="note.md", data=NOTE.encode())  # the test transaction never commits: no task ran
    assert vectors_pending(cleared=True) > 0
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
    assert embedding_catch_up() is True
    assert embedding_catch_up() is False  # one queued task is enough
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    DBTaskResult.objects.all().delete()
    assert embedding_catch_up() is True and vectors_pending(cleared=True) == 0
    assert embedding_catch_up() is False  # nothing left to embed


def test_load_demo_embeds_its_chunks_when_an_embedder_is_set(demo: Any, configured: BigramHashEmbedder) -> None:
    out = StringIO()
    with mock.patch("demo.management.commands.load_demo.embedder_build", return_value=configured):
        call_command("load_demo", stdout=out)
    total = Chunk.objects.filter(active=True).count()
    assert f"vectors: {total} chunk(s) embedded with {configured.signature}" in out.getvalue()
    assert vectors_pending(cleared=True) == 0
