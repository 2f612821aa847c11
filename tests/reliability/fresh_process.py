"""The two processes of `test_fresh_after_a_job`: a long-lived reader that answers questions read
from stdin (one JSON line out per question), with the production default of rebuilding its search
index in the background; and a writer that runs one step of a curator's onboarding through the
background job path, then exits. Both use the database that `DATABASE_URL` names."""

from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragspine_site.settings.test")


def _setup() -> None:
    import django
    from django.conf import settings

    django.setup()
    # as a web worker runs: serve the current index while an exact one is built in the background
    settings.RAGSPINE["INDEX_BACKGROUND_REBUILD"] = True
    settings.RAGSPINE["LEXICAL_BACKEND"] = os.environ.get("FRESH_LEXICAL", "inprocess")


def reader() -> None:
    _setup()
    from django.contrib.auth import get_user_model

    from agent.serialize import result_as_dict
    from agent.services import question_ask

    user = get_user_model().objects.get(username="analyst")
    for line in sys.stdin:
        question = line.strip()
        if not question:
            continue
        result = question_ask(question, user=user, reference_date=date(2026, 3, 15)).result
        body = result_as_dict(result)
        docs = sorted({source["doc"] for source in body.get("sources", [])})
        values = [fact["value"] for fact in body.get("facts", [])]
        print(json.dumps({"answer": body["answer"], "docs": docs, "values": values}, ensure_ascii=False), flush=True)


def writer(step: str) -> None:
    _setup()
    from django.test import override_settings

    from documents.jobs import ingest_job_create, reread_job_create
    from documents.models import Document
    from documents.services import ContextChoice
    from facts.services.entities import EntityDraft, entity_create
    from tests.documents.newcomer import newcomer_report

    immediate = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    with override_settings(TASKS=immediate):  # the worker's part, run here: the job commits, then we exit
        if step == "upload":
            job = ingest_job_create(name="yuanxiu.docx", data=newcomer_report())
        elif step == "company":
            entity_create(draft=EntityDraft("SH688321", "远岫精工", "peer", ("远岫精工股份有限公司",), currency="CNY"))
            document = Document.objects.get(name="yuanxiu.docx")
            job = reread_job_create(document=document, context=ContextChoice(issuer="SH688321", by="curator"))
        else:
            raise SystemExit(f"unknown step {step}")
    job.refresh_from_db()
    print(job.status, flush=True)


if __name__ == "__main__":
    reader() if sys.argv[1] == "reader" else writer(sys.argv[2])
