"""`common.access`: the sensitivity rule has one home, and every path that loads rows uses it."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser, Permission
from django.db import connection

from agent.models import QueryLog
from agent.selectors import query_log_list
from common.access import sensitivity_strictest_sql, user_cleared, visible_to, visible_to_sql
from core.engine import sensitivity_max
from core.model.facts import RESTRICTED, SENSITIVITIES
from documents.models import Document, IngestJob
from documents.selectors import document_list, ingest_job_list
from facts.models import FactMetric

ROOT = Path(__file__).resolve().parents[2]
APPS = ("agent", "common", "documents", "facts", "faq", "ingestion", "retrieval", "ragspine_site")


@pytest.mark.django_db
def test_visible_to_hides_restricted_rows_from_the_uncleared_only(demo) -> None:
    secret = Document.objects.get(name="东南亚扩张计划_内部.docx")
    assert secret.sensitivity == RESTRICTED
    assert secret in visible_to(Document.objects.all(), cleared=True)
    assert secret not in visible_to(Document.objects.all(), cleared=False)
    assert secret not in document_list(cleared=False) and secret in document_list(cleared=True)
    # across a relation: a fact whose own row is not RESTRICTED, from a RESTRICTED document
    across = visible_to(FactMetric.objects.all(), cleared=False, lookups=("sensitivity", "document__sensitivity"))
    assert not across.filter(document=secret).exists()
    assert not across.filter(sensitivity=RESTRICTED).exists()


@pytest.mark.django_db
def test_user_clearance_follows_the_permission(demo) -> None:
    assert user_cleared(demo["users"]["analyst_cleared"]) and not user_cleared(demo["users"]["analyst"])
    assert not user_cleared(AnonymousUser()) and not user_cleared(None)


@pytest.mark.django_db
def test_clearance_is_granted_directly_or_through_a_group_and_only_by_the_facts_permission(demo) -> None:
    from django.contrib.auth.models import Group
    from django.contrib.contenttypes.models import ContentType

    users = type(demo["users"]["analyst"])
    fresh = lambda name: users.objects.get(username=name)  # noqa: E731 - a new object forgets the remembered answer
    granted = Permission.objects.get(codename="can_view_restricted", content_type__app_label="facts")
    other_app = ContentType.objects.get_for_model(Group)
    look_alike = Permission.objects.create(codename="can_view_restricted", name="look-alike", content_type=other_app)
    user = users.objects.create(username="probe")
    user.user_permissions.add(look_alike)
    assert not user_cleared(fresh("probe"))  # the same codename in another app is no clearance
    group = Group.objects.create(name="cleared readers")
    group.permissions.add(granted)
    user.groups.add(group)
    assert user_cleared(fresh("probe"))  # through a group
    user.groups.remove(group)
    user.user_permissions.add(granted)
    assert user_cleared(fresh("probe"))  # directly
    users.objects.filter(username="probe").update(is_active=False)
    assert not user_cleared(fresh("probe"))
    users.objects.filter(username="probe").update(is_active=True, is_superuser=True)
    user.user_permissions.clear()
    assert user_cleared(fresh("probe"))


@pytest.mark.django_db
def test_restricted_jobs_and_traces_stay_with_the_cleared(demo) -> None:
    curator, cleared = demo["users"]["curator"], demo["users"]["analyst_cleared"]
    curator.user_permissions.remove(Permission.objects.get(codename="can_view_restricted"))
    curator = type(curator).objects.get(pk=curator.pk)  # forget the remembered clearance
    secret = Document.objects.get(name="东南亚扩张计划_内部.docx")
    job = IngestJob.objects.create(name="x.docx", data=b"", document=secret)
    own = IngestJob.objects.create(name="y.docx", data=b"", sensitivity=RESTRICTED, created_by=curator)
    assert job not in ingest_job_list(user=curator) and own in ingest_job_list(user=curator)
    QueryLog.objects.create(request_id="a" * 32, asker_cleared=True, user=cleared)
    assert not query_log_list(cleared=False).filter(asker_cleared=True).exists()
    assert query_log_list(cleared=True).filter(asker_cleared=True).exists()


def test_the_raw_sql_form_of_the_rule_binds_the_constant() -> None:
    assert visible_to_sql("c.sensitivity", "d.sensitivity", cleared=True) == ("", [])
    condition, params = visible_to_sql("c.sensitivity", "d.sensitivity", cleared=False)
    assert condition == " AND c.sensitivity <> %s AND d.sensitivity <> %s" and params == [RESTRICTED, RESTRICTED]


@pytest.mark.django_db
def test_the_raw_sql_strictest_level_is_the_cores_and_ignores_an_absent_relation() -> None:
    # what `sensitivity_max` says, with an outer join's NULL adding nothing and an unknown level
    # ("CONFIDENTIAL") failing closed
    levels = (*SENSITIVITIES, "CONFIDENTIAL")
    level, params = sensitivity_strictest_sql("t.own", "t.document")
    for own, document in itertools.product(levels, (*levels, None)):
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {level} FROM (SELECT CAST(%s AS VARCHAR(12)) AS own, CAST(%s AS VARCHAR(12)) AS document) t",
                [*params, own, document],
            )
            derived = cursor.fetchone()[0]
        assert derived == sensitivity_max([own] if document is None else [own, document]), (own, document)


FILTER_WRITTEN_OUT = re.compile(
    r"exclude\([^)]*sensitivity|sensitivity\s*(<>|!=)\s*(%s|'RESTRICTED'|RESTRICTED)|restricted_hidden"
)


def test_no_module_writes_the_restricted_filter_out_again() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts and path != ROOT / "common" / "access.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FILTER_WRITTEN_OUT.search(line)
    ]
    assert offenders == []
