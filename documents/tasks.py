"""Background tasks (Django's tasks framework; the worker is `manage.py ingest_worker`)."""

from __future__ import annotations

from django.tasks import task


@task()
def ingest_job_run(job_id: str) -> str:
    from .services import ingest_job_execute

    return str(ingest_job_execute(job_id).status)
