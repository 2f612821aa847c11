"""The analyst hears back on "this figure is wrong": the message on filing says where the report
went, the figure on the answer shows its dispute's status when the turn is reopened or the
question asked again, and "my reports" lists the analyst's own disputes with status and
resolution, with the answers' clearance."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from agent.models import Conversation
from facts.models import FactDispute, FactMetric
from facts.services.disputes import disputes_settle

pytestmark = pytest.mark.django_db

QUESTION = "集团2024年营收是多少"


def _web(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"  # the English msgids, whatever the catalogue says
    return client


def _fact() -> FactMetric:
    return FactMetric.objects.get(locator="sheet=ACME集团!D3")


def _dispute(web: Client, note: str = "年报里是 118,430.2") -> str:
    """Ask, then say the figure is wrong from its row, as the page's form posts it (htmx)."""
    web.post("/ask", {"question": QUESTION}, HTTP_HX_REQUEST="true")
    fact = _fact()
    form = {"document_id": fact.document_id, "locator": fact.locator, "note": note, "turn": 0}
    response = web.post("/disputes", form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def _settle(outcome: str, **extra: Any) -> None:
    curator = get_user_model().objects.get(username="curator")
    disputes_settle(disputes=FactDispute.objects.all(), fact_id=_fact().pk, outcome=outcome, user=curator, **extra)


def _status_on_figure(page: str) -> list[str]:
    return re.findall(r'class="dispute-status ([a-z]+)"', page)


def test_filing_says_it_went_to_the_review_queue_and_links_my_reports(demo: dict[str, Any]) -> None:
    said = _dispute(_web(demo["users"]["analyst"]))
    assert 'role="status"' in said and "review queue" in said and 'href="/reports"' in said
    assert FactDispute.objects.get().status == "open"


def test_my_reports_lists_the_analysts_disputes_with_status_and_resolution(demo: dict[str, Any]) -> None:
    web = _web(demo["users"]["analyst"])
    _dispute(web)
    page = web.get("/reports").content.decode()
    assert "年报里是 118,430.2" in page and _status_on_figure(page) == ["open"]
    assert "118,340.2" in page  # the figure disputed, as the answer showed it
    _settle("corrected", value=Decimal("118430.2"), resolution="按年报更正")
    page = web.get("/reports").content.decode()
    assert _status_on_figure(page) == ["corrected"] and "按年报更正" in page and "118,430.2" in page
    # Only the analyst's own: another analyst's report is not listed.
    assert "年报里是" not in _web(demo["users"]["analyst_cleared"]).get("/reports").content.decode()


def test_a_report_on_a_figure_now_restricted_is_not_listed_to_the_uncleared(demo: dict[str, Any]) -> None:
    web = _web(demo["users"]["analyst"])
    _dispute(web, "a note about it")
    FactMetric.objects.filter(pk=_fact().pk).update(sensitivity="RESTRICTED")
    page = web.get("/reports").content.decode()
    assert "a note about it" not in page and "118,340.2" not in page


def test_the_figure_shows_its_status_when_the_turn_is_reopened_and_asked_again(demo: dict[str, Any]) -> None:
    analyst = demo["users"]["analyst"]
    web = _web(analyst)
    _dispute(web)
    conversation = Conversation.objects.get(user=analyst).external_id
    web.get(f"/conversations/{conversation}/turns/0")
    assert _status_on_figure(web.get("/").content.decode()) == ["open"]
    _settle("confirmed", resolution="核对无误")
    page = web.get(web.get(f"/conversations/{conversation}/turns/0")["Location"]).content.decode()
    assert _status_on_figure(page) == ["confirmed"] and "核对无误" in page
    again = web.post("/ask", {"question": QUESTION}, HTTP_HX_REQUEST="true").content.decode()
    assert _status_on_figure(again) == ["confirmed"]
    # Another analyst's answer to the same question carries no one else's report.
    other = _web(demo["users"]["analyst_cleared"]).post("/ask", {"question": QUESTION}, HTTP_HX_REQUEST="true")
    assert _status_on_figure(other.content.decode()) == []


def test_a_corrected_figure_says_its_new_value_and_a_rejected_one_says_it_was_withdrawn(demo: dict[str, Any]) -> None:
    web = _web(demo["users"]["analyst"])
    _dispute(web)
    _settle("corrected", value=Decimal("118430.2"))
    page = web.get("/").content.decode()
    assert _status_on_figure(page) == ["corrected"] and "118,430.2" in page
    _dispute(web, "still wrong")
    _settle("rejected")
    assert "rejected" in _status_on_figure(web.get("/reports").content.decode())


def test_the_header_links_my_reports_and_the_page_needs_a_login(demo: dict[str, Any]) -> None:
    web = _web(demo["users"]["analyst"])
    assert re.search(r'<nav>.*href="/reports".*</nav>', web.get("/").content.decode(), re.S)
    empty = web.get("/reports")
    assert empty.status_code == 200 and "dispute-status" not in empty.content.decode()
    anonymous = Client().get("/reports")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
