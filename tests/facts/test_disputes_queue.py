""" "This figure is wrong" where curators work: an open dispute waits in the review queue beside
its fact (with the analyst's note, who filed it and when), the admin index counts the open ones,
and a curator corrects the figure, confirms it or rejects the fact, each recorded on the dispute.
A curator who may not see a RESTRICTED fact sees neither its dispute nor a count that gives it away."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from facts.models import FactDispute, FactMetric, Metric
from facts.selectors import fact_list
from facts.services.disputes import dispute_file, disputes_settle
from tests.factories import curator_make

pytestmark = pytest.mark.django_db

QUEUE = "/admin/facts/factmetric/review/"
SETTLE = QUEUE + "dispute/"


def _fact(locator: str = "sheet=ACME集团!D3") -> FactMetric:
    return FactMetric.objects.get(locator=locator)


def _secret() -> FactMetric:
    secret = FactMetric.objects.filter(document__sensitivity="RESTRICTED", review_status="approved").first()
    assert secret is not None
    return secret


def _file(fact: FactMetric, note: str, user: Any) -> FactDispute:
    dispute = dispute_file(fact_id=fact.pk, note=note, user=user, cleared=True)
    assert dispute is not None
    return dispute


def _admin(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _disputes_section(page: str) -> str:
    found = re.search(r'<section id="disputes".*?</section>', page, re.S)
    assert found is not None, "no disputes section on the review queue"
    return found.group(0)


def _index_entry(page: str) -> str:
    found = re.search(r'<th scope="row" id="facts-opendisputes">(.*?)</th>', page, re.S)
    assert found is not None, "no open-dispute entry on the admin index"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(1))).strip()


def _messages(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_an_open_dispute_waits_in_the_review_queue_grouped_with_its_fact(demo: dict[str, Any]) -> None:
    analyst, other = demo["users"]["analyst"], demo["users"]["analyst_cleared"]
    fact = _fact()
    first = _file(fact, "年报里是 118,430.2", analyst)
    _file(fact, "与年报不符", other)
    _file(_fact("sheet=ACME集团!C3"), "另一个数字", analyst)
    FactDispute.objects.create(fact=fact, note="早已处理", status="confirmed")
    section = _disputes_section(_admin(curator_make("reviewer")).get(QUEUE).content.decode())
    groups = re.findall(r'<tbody class="dispute-group" data-fact="(\d+)">(.*?)</tbody>', section, re.S)
    assert [int(pk) for pk, _ in groups].count(fact.pk) == 1 and len(groups) == 2  # one group per fact
    group = dict((int(pk), body) for pk, body in groups)[fact.pk]
    assert "年报里是 118,430.2" in group and "与年报不符" in group and "早已处理" not in group
    assert "analyst" in group and "analyst_cleared" in group  # who filed each
    assert timezone.localtime(first.created_at).strftime("%Y-%m-%d %H:%M") in group  # and when
    assert str(fact.value) in group and fact.locator in group and fact.source_doc in group
    assert 'data-open-disputes="3"' in section


def test_the_admin_index_counts_the_open_disputes(demo: dict[str, Any]) -> None:
    curator = _admin(curator_make("reviewer"))
    assert "0" in _index_entry(curator.get("/admin/").content.decode())
    fact = _fact()
    _file(fact, "one", demo["users"]["analyst"])
    _file(fact, "two", demo["users"]["analyst"])
    FactDispute.objects.create(fact=fact, note="done", status="corrected")
    entry = _index_entry(curator.get("/admin/").content.decode())
    assert re.search(r"\b2\b", entry), entry
    link = re.search(r'id="facts-opendisputes">\s*<a href="([^"]+)"', curator.get("/admin/").content.decode())
    assert link is not None and link.group(1) == QUEUE + "#disputes"


def test_an_uncleared_curator_sees_no_restricted_dispute_nor_a_count_that_gives_it_away(demo: dict[str, Any]) -> None:
    analyst = demo["users"]["analyst_cleared"]
    _file(_fact(), "open to all", analyst)
    _file(_secret(), "secret note", analyst)
    uncleared, cleared = _admin(curator_make("curator2")), _admin(demo["users"]["curator"])
    seen = _disputes_section(uncleared.get(QUEUE).content.decode())
    assert "open to all" in seen and "secret note" not in seen and 'data-open-disputes="1"' in seen
    assert re.search(r"\b1\b", _index_entry(uncleared.get("/admin/").content.decode()))
    seen = _disputes_section(cleared.get(QUEUE).content.decode())
    assert "secret note" in seen and 'data-open-disputes="2"' in seen
    assert re.search(r"\b2\b", _index_entry(cleared.get("/admin/").content.decode()))
    # Nor can the uncleared curator resolve it: the fact is as missing as one that does not exist.
    response = uncleared.post(SETTLE, {"fact": _secret().pk, "outcome": "confirmed"}, follow=True)
    assert response.status_code == 200 and _messages(response)
    assert FactDispute.objects.get(note="secret note").status == "open"


def test_a_curator_corrects_the_value_and_every_open_dispute_on_it_records_it(demo: dict[str, Any]) -> None:
    fact = _fact()
    before = fact.value
    one = _file(fact, "年报里是 118,430.2", demo["users"]["analyst"])
    two = _file(fact, "wrong", demo["users"]["analyst_cleared"])
    curator = curator_make("reviewer")
    form = {"fact": fact.pk, "outcome": "corrected", "value": "118430.2", "resolution": "按年报更正", "back": "x=1"}
    response = _admin(curator).post(SETTLE, form)
    assert response.status_code == 302 and response["Location"] == QUEUE + "?x=1"
    fact.refresh_from_db()
    assert fact.value == Decimal("118430.2") and fact.review_status == "approved"
    for dispute in (one, two):
        dispute.refresh_from_db()
        assert dispute.status == "corrected" and dispute.resolution == "按年报更正"
        assert (dispute.value_disputed, dispute.value_corrected) == (before, Decimal("118430.2"))
        assert dispute.resolved_by == curator and dispute.resolved_at is not None
    assert LogEntry.objects.filter(object_id=str(fact.pk)).count() == 1  # logged as an admin change on the fact
    assert "data-fact" not in _disputes_section(_admin(curator).get(QUEUE).content.decode())


def test_a_curator_confirms_the_figure_and_it_stays(demo: dict[str, Any]) -> None:
    fact = _fact()
    dispute = _file(fact, "wrong?", demo["users"]["analyst"])
    response = _admin(curator_make("reviewer")).post(
        SETTLE, {"fact": fact.pk, "outcome": "confirmed", "resolution": "核对无误"}
    )
    assert response.status_code == 302
    dispute.refresh_from_db()
    assert (dispute.status, dispute.resolution, dispute.value_disputed) == ("confirmed", "核对无误", fact.value)
    assert dispute.value_corrected is None
    assert FactMetric.objects.get(pk=fact.pk).value == fact.value


def test_a_curator_rejects_the_fact_and_it_answers_no_more(demo: dict[str, Any]) -> None:
    fact = _fact()
    dispute = _file(fact, "这不是集团的数字", demo["users"]["analyst"])
    _admin(curator_make("reviewer")).post(SETTLE, {"fact": fact.pk, "outcome": "rejected"})
    dispute.refresh_from_db()
    fact.refresh_from_db()
    assert dispute.status == "rejected" and dispute.resolved_at is not None
    assert fact.review_status == "rejected" and not fact_list(cleared=True).filter(pk=fact.pk).exists()


def test_a_correction_needs_a_new_figure_and_a_settled_dispute_is_not_settled_twice(demo: dict[str, Any]) -> None:
    fact = _fact()
    dispute = _file(fact, "wrong", demo["users"]["analyst"])
    curator = _admin(curator_make("reviewer"))
    for refused in ({"value": ""}, {"value": "abc"}, {"value": str(fact.value)}):
        response = curator.post(SETTLE, {"fact": fact.pk, "outcome": "corrected", **refused}, follow=True)
        assert _messages(response), refused
    assert curator.post(SETTLE, {"fact": fact.pk, "outcome": "withdrawn"}, follow=True).status_code == 200
    dispute.refresh_from_db()
    assert dispute.status == "open" and FactMetric.objects.get(pk=fact.pk).value == fact.value
    curator.post(SETTLE, {"fact": fact.pk, "outcome": "confirmed"})
    response = curator.post(SETTLE, {"fact": fact.pk, "outcome": "rejected"}, follow=True)
    assert _messages(response) and FactMetric.objects.get(pk=fact.pk).review_status == "approved"
    assert LogEntry.objects.count() == 1  # the confirmation alone


def test_settling_needs_the_right_to_change_facts(demo: dict[str, Any]) -> None:
    fact = _fact()
    _file(fact, "wrong", demo["users"]["analyst"])
    viewer = get_user_model().objects.create_user(username="viewer", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["view_factmetric", "view_factdispute"]))
    client = _admin(viewer)
    assert "wrong" in _disputes_section(client.get(QUEUE).content.decode())  # seen, with no form to settle it
    assert 'action="' + SETTLE not in client.get(QUEUE).content.decode()
    assert client.post(SETTLE, {"fact": fact.pk, "outcome": "confirmed"}).status_code == 403
    analyst = _admin(demo["users"]["analyst"])  # not staff: the admin sends it to log in
    response = analyst.post(SETTLE, {"fact": fact.pk, "outcome": "confirmed"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert FactDispute.objects.get().status == "open"


def test_a_correction_of_a_positive_metric_keeps_the_figure_as_printed(demo: dict[str, Any]) -> None:
    fact = _fact()
    Metric.objects.filter(code=fact.metric_id).update(sign="positive")
    _file(fact, "printed negative", demo["users"]["analyst"])
    disputes = FactDispute.objects.all()
    fact_after, settled = disputes_settle(
        disputes=disputes, fact_id=fact.pk, outcome="corrected", user=curator_make("reviewer"), value=Decimal("-1577.0")
    )
    assert (fact_after.value, fact_after.printed_value) == (Decimal("1577.0"), Decimal("-1577.0"))
    assert [d.value_corrected for d in settled] == [Decimal("1577.0")]
    with pytest.raises(ValidationError):
        disputes_settle(disputes=disputes, fact_id=fact.pk, outcome="confirmed", user=None)
