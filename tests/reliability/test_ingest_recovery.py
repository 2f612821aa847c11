"""A worker killed mid-ingest: the job is queued again (and then succeeds), or fails after its
last attempt; the document is never half-written. The real kill, of a real worker process,
is in `scripts/reliability.py`; here the dead worker is a process that has exited."""

from __future__ import annotations

import socket
import subprocess
import sys
from typing import Any

import pytest
from django.utils import timezone

from documents import services
from documents.jobs import ingest_jobs_recover
from documents.models import Document, IngestJob
from documents.services import document_ingest
from retrieval.models import Chunk
from tests.clients import client_for

pytestmark = pytest.mark.django_db
TEXT = "# 供应商说明\n\n## 成本\n存储芯片价格在第四季度上涨。\n".encode()


def _dead_worker() -> str:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return f"{socket.gethostname()}:{process.pid}"


def _abandoned(attempts: int, worker: str | None = None) -> IngestJob:
    """A job as a killed worker leaves it: claimed, running, its transaction rolled back."""
    return IngestJob.objects.create(
        name="供应商说明.md",
        data=TEXT,
        status=IngestJob.Status.RUNNING,
        progress=60,
        attempts=attempts,
        worker=worker or _dead_worker(),
        started_at=timezone.now(),
    )


def test_a_job_whose_worker_died_is_queued_again_and_completes(demo: Any) -> None:
    job = _abandoned(attempts=1)
    assert not Document.objects.filter(name=job.name).exists()  # nothing half-written
    assert ingest_jobs_recover() == {"requeued": 1, "failed": 0}
    job.refresh_from_db()  # the test settings run the queued task at once
    assert (job.status, job.attempts, job.data) == ("done", 2, b"")
    document = Document.objects.get(name=job.name)
    assert document.status == "ready" and Chunk.objects.filter(document=document).count() >= 1


def test_after_the_last_attempt_the_job_fails_with_a_reason(demo: Any) -> None:
    job = _abandoned(attempts=3)
    assert ingest_jobs_recover() == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == "failed" and "nothing was written" in job.message and job.data == b""
    assert not Document.objects.filter(name=job.name).exists()


def test_a_job_whose_worker_is_alive_is_left_alone(demo: Any) -> None:
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        job = _abandoned(attempts=1, worker=f"{socket.gethostname()}:{live.pid}")
        assert ingest_jobs_recover() == {"requeued": 0, "failed": 0}
        job.refresh_from_db()
        assert job.status == "running"
    finally:
        live.kill()
        live.wait()


def test_a_job_claimed_on_another_host_is_recovered_only_when_stale(demo: Any, settings: Any) -> None:
    job = _abandoned(attempts=1, worker="another-host:1234")
    assert ingest_jobs_recover() == {"requeued": 0, "failed": 0}
    settings.RAGSPINE = {**settings.RAGSPINE, "INGEST_STALE_SECONDS": 0}
    assert ingest_jobs_recover() == {"requeued": 1, "failed": 0}
    job.refresh_from_db()
    assert job.status == "done"


def test_reading_a_job_recovers_it(demo: Any) -> None:
    job = _abandoned(attempts=3)
    body = client_for(demo["users"]["curator"]).get(f"/v1/jobs/{job.pk}").json()
    assert body["status"] == "failed" and body["attempts"] == 3


def test_an_interrupted_replacement_keeps_the_previous_version_whole(demo: Any, monkeypatch: Any) -> None:
    """The transaction is the guarantee: dying after the chunks were written, before the commit,
    leaves the previous version as it was."""
    document_ingest(name="供应商说明.md", data=TEXT)
    before = list(Chunk.objects.filter(document__name="供应商说明.md").values_list("text", flat=True))

    def replace_then_die(**kwargs: Any) -> Any:
        raise KeyboardInterrupt  # stands in for the kill: the chunks are written, the facts not yet

    monkeypatch.setattr(services, "facts_replace", replace_then_die)
    with pytest.raises(KeyboardInterrupt):
        document_ingest(name="供应商说明.md", data=TEXT + "## 新增\n全新的一节。\n".encode())
    after = list(Chunk.objects.filter(document__name="供应商说明.md").values_list("text", flat=True))
    assert after == before
    assert Document.objects.get(name="供应商说明.md").status == "ready"


def test_a_write_the_database_refuses_fails_the_job_with_a_message_and_keeps_nothing(
    demo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import IntegrityError

    from documents import tasks

    def refused(**kwargs: Any) -> None:
        Document.objects.create(name=kwargs["name"], status="ready")  # written, then refused
        raise IntegrityError("FOREIGN KEY constraint failed")

    monkeypatch.setattr(tasks, "document_ingest", lambda **kwargs: _atomic(refused, **kwargs))
    job = IngestJob.objects.create(name="供应商说明.md", data=TEXT)
    tasks.ingest_job_execute(str(job.pk))
    job.refresh_from_db()
    assert (job.status, job.progress, job.data) == ("failed", 100, b"")
    assert "nothing was saved" in job.message and "Traceback" not in job.message
    assert not Document.objects.filter(name=job.name).exists()


def _atomic(function: Any, **kwargs: Any) -> Any:
    from django.db import transaction

    with transaction.atomic():
        return function(**kwargs)
