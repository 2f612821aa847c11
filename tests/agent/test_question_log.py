"""What the team asks: with `RAGSPINE["LOG_QUESTIONS"]` on, team leads (`agent.view_question_text`)
read the question text in the query log; everyone else reads the log without it; with it off, no
one does. The ask page says, while it is on, that questions are logged and leads see them."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client, override_settings

from agent.models import QueryLog
from tests.factories import curator_make

pytestmark = pytest.mark.django_db

LOGS = "/admin/agent/querylog/"
ASKED = "蓝鲸项目的毛利率为什么下降"
ON = {**settings.RAGSPINE, "LOG_QUESTIONS": True}
OFF = {**settings.RAGSPINE, "LOG_QUESTIONS": False}


def _staff(username: str, *codenames: str) -> Client:
    user = get_user_model().objects.create_user(username=username, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="agent", codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def log() -> QueryLog:
    return QueryLog.objects.create(
        request_id="cd" * 8,
        route="narrative",
        routing_mode="deterministic",
        clarification_mode="none",
        answer_kind="answer",
        question=ASKED,
    )


def test_the_lead_permission_exists_in_its_own_right() -> None:
    permission = Permission.objects.get(content_type__app_label="agent", codename="view_question_text")
    assert permission.name


@override_settings(RAGSPINE=ON)
def test_a_lead_reads_the_question_text_and_others_read_the_log_without_it(log: QueryLog) -> None:
    lead = _staff("lead", "view_querylog", "view_question_text")
    other = _staff("member", "view_querylog")
    change = f"{LOGS}{log.pk}/change/"
    assert ASKED in lead.get(LOGS).content.decode() and ASKED in lead.get(change).content.decode()
    assert ASKED in lead.get(LOGS, {"q": "蓝鲸"}).content.decode()  # leads search the text too
    listing, page = other.get(LOGS), other.get(change)
    assert listing.status_code == page.status_code == 200
    assert "narrative" in listing.content.decode()  # the log itself, without the text
    assert ASKED not in listing.content.decode() and ASKED not in page.content.decode()
    # A search by the words asked is no way round: the box is not there, and a typed one is ignored.
    assert ASKED not in other.get(LOGS, {"q": "蓝鲸"}).content.decode()
    assert 'name="q"' not in listing.content.decode()


@override_settings(RAGSPINE=OFF)
def test_with_the_setting_off_no_one_reads_a_stored_question(log: QueryLog) -> None:
    lead = _staff("lead", "view_querylog", "view_question_text")
    assert ASKED not in lead.get(LOGS).content.decode()
    assert ASKED not in lead.get(f"{LOGS}{log.pk}/change/").content.decode()


def test_the_ask_page_says_questions_are_logged_only_while_they_are(demo: dict[str, Any]) -> None:
    web = Client()
    web.force_login(demo["users"]["analyst"])
    web.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    with override_settings(RAGSPINE=ON):
        page = web.get("/").content.decode()
        assert 'class="log-notice"' in page and "team leads" in page
        refused = web.post("/ask", {"question": ""}).content.decode()  # the page again, with the error
        assert 'class="log-notice"' in refused
    with override_settings(RAGSPINE=OFF):
        assert 'class="log-notice"' not in web.get("/").content.decode()


@override_settings(RAGSPINE=ON)
def test_the_curator_role_does_not_make_a_curator_a_lead(log: QueryLog) -> None:
    curator = Client()
    curator.force_login(curator_make())
    assert ASKED not in curator.get(LOGS).content.decode()
