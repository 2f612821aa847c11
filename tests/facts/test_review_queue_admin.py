"""The review queue as a curator works it (`admin/facts/factmetric/review/`): groups, filters and
the group actions, each atomic and logged."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.test import Client

from documents.models import Document
from facts.models import Alias, FactMetric
from facts.reasons import reason_shown
from facts.services import alias_create
from tests.factories import curator_make, document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db

QUEUE = "/admin/facts/factmetric/review/"
KEY = {"entity_id": "ACME_HK", "metric_id": "REVENUE", "period_type": "FY", "period": "2019", "channel_id": "TOTAL"}
PARENT = "a parent-company statement (income of the parent alone): never the group's figure"


@pytest.fixture
def curator() -> Client:
    entity_make()
    metric_make()
    metric_make("NET_PROFIT", "净利润")
    metric_make("NET_ASSETS", "净资产")
    client = Client()
    client.force_login(curator_make())
    return client


def _pending(value: str, locator: str, note: str = "", document: Any = None, **fields: Any) -> FactMetric:
    document = document or Document.objects.filter(name="report.pdf").first() or document_make("report.pdf")
    return FactMetric.objects.create(
        **{**KEY, "suggested_alias": "", **fields},
        value=Decimal(value),
        unit_id="CNY_M",
        source_doc=document.name,
        document=document,
        locator=locator,
        review_status="pending",
        review_note=note,
    )


def _messages(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_the_queue_groups_candidates_by_key_with_statement_locator_and_document(curator: Client) -> None:
    report = document_make("sifang_2019.pdf")
    _pending("1200.5", "page=40,table=1", document=report)
    _pending("980.1", "page=90,table=2", PARENT, document=report)
    _pending("33.3", "page=41,table=1", document=report, metric_id="NET_PROFIT")
    page = curator.get(QUEUE).content.decode()
    assert page.count('class="review-group"') == 2
    assert "ACME香港 × 营业收入 <code>REVENUE</code> × FY2019" in page
    revenue = page.split("ACME香港 × 营业收入")[1].split("review-group")[0]
    assert "1200.5 CNY_M" in revenue and "980.1 CNY_M" in revenue
    assert "合并 · consolidated" in revenue and "母公司 · parent" in revenue
    assert "page=90,table=2" in revenue
    assert f'href="/admin/documents/document/{report.pk}/change/"' in revenue
    assert "母公司报表（income，仅母公司）：不是合并数" in revenue


def test_the_queue_filters_by_document_statement_reason_and_metric_name(curator: Client) -> None:
    first, second = document_make("first.pdf"), document_make("second.pdf")
    _pending("1.1", "p=1", document=first)
    _pending("2.2", "p=2", PARENT, document=second)
    _pending("3.3", "p=3", "unknown row label '坪效'", document=second, metric_id=None, suggested_alias="坪效")
    _pending("4.4", "p=4", "no scale stated (x name none)", document=second, metric_id="NET_PROFIT")

    def shown(**query: Any) -> set[str]:
        page = curator.get(QUEUE, query).content.decode()
        return {v for v in ("1.1 ", "2.2 ", "3.3 ", "4.4 ") if v in page}

    assert shown(document=first.pk) == {"1.1 "}
    assert shown(statement="parent") == {"2.2 "}
    assert shown(statement="consolidated") == {"1.1 ", "3.3 ", "4.4 "}
    assert shown(reason="label") == {"3.3 "}
    assert shown(reason="scale") == {"4.4 "}
    assert shown(reason="other") == {"1.1 "}
    assert shown(q="营业收入") == {"1.1 ", "2.2 "}
    assert shown(q="坪效") == {"3.3 "}


def test_the_changelist_finds_a_metric_by_its_name_and_shows_reasons_in_chinese(curator: Client) -> None:
    _pending("1.1", "p=1", "unknown row label '坪效'")
    page = curator.get("/admin/facts/factmetric/", {"q": "营业收入", "reason": "label"}).content.decode()
    assert "术语表不认识行标签「坪效」" in page
    assert reason_shown("unknown row label '坪效'", "en") == "unknown row label '坪效'"


def test_approve_this_one_rejects_the_others_of_its_key_and_logs_both(curator: Client) -> None:
    chosen = _pending("1200.5", "page=40", "conflicting values in document (page=40, page=90)")
    other = _pending("980.1", "page=90", PARENT)
    elsewhere = _pending("33.3", "page=41", metric_id="NET_PROFIT")
    response = curator.post(QUEUE + "choose/", {"choose": chosen.pk, "back": "statement=consolidated"})
    assert response.status_code == 302 and response["Location"].endswith("review/?statement=consolidated")
    assert FactMetric.objects.get(pk=chosen.pk).review_status == "approved"
    assert FactMetric.objects.get(pk=other.pk).review_status == "rejected"
    assert FactMetric.objects.get(pk=elsewhere.pk).review_status == "pending"
    assert set(LogEntry.objects.values_list("object_id", flat=True)) == {str(chosen.pk), str(other.pk)}


def test_approve_this_one_is_refused_while_an_approved_fact_holds_the_key(curator: Client) -> None:
    FactMetric.objects.create(**KEY, value=Decimal("7"), unit_id="CNY_M", source_doc="a.pdf", locator="p=1")
    chosen, other = _pending("1200.5", "page=40"), _pending("980.1", "page=90")
    response = curator.post(QUEUE + "choose/", {"choose": chosen.pk}, follow=True)
    assert response.status_code == 200
    assert "already has an approved fact: 7 CNY_M from a.pdf p=1" in _messages(response)[0]
    assert set(FactMetric.objects.filter(pk__in=[chosen.pk, other.pk]).values_list("review_status", flat=True)) == {
        "pending"
    }
    assert not LogEntry.objects.exists()


def test_approve_this_one_is_refused_for_a_candidate_without_metric(curator: Client) -> None:
    chosen = _pending("1.1", "p=1", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")
    response = curator.post(QUEUE + "choose/", {"choose": chosen.pk}, follow=True)
    assert "the fact has no metric" in _messages(response)[0]
    assert FactMetric.objects.get(pk=chosen.pk).review_status == "pending"


def test_set_the_metric_company_and_period_of_a_group(curator: Client) -> None:
    entity_make("SIFANG", "四方股份")
    rows = [_pending("1.1", "p=1", "unknown row label '营收'"), _pending("2.2", "p=2")]
    response = curator.post(
        QUEUE + "key/", {"facts": [r.pk for r in rows], "metric": "净利润", "entity": "SIFANG", "period": "2020年"}
    )
    assert response.status_code == 302
    for row in FactMetric.objects.filter(pk__in=[r.pk for r in rows]):
        assert (row.metric_id, row.entity_id, row.period_type, row.period) == ("NET_PROFIT", "SIFANG", "FY", "2020")
        assert (row.review_status, row.review_note) == ("pending", "")
    assert LogEntry.objects.count() == 2


def test_a_wrong_period_or_metric_is_a_form_error_and_writes_nothing(curator: Client) -> None:
    row = _pending("1.1", "p=1")
    response = curator.post(QUEUE + "key/", {"facts": [row.pk], "metric": "净利润", "period": "sometime"}, follow=True)
    assert response.status_code == 200
    assert any("is not one period" in m for m in _messages(response))
    response = curator.post(QUEUE + "key/", {"facts": [row.pk], "metric": "坪效"}, follow=True)
    assert response.status_code == 200
    assert any("No metric in the glossary is called '坪效'" in m for m in _messages(response))
    assert FactMetric.objects.get(pk=row.pk).metric_id == "REVENUE"
    assert not LogEntry.objects.exists()


def test_a_group_correction_with_one_row_gone_writes_nothing(curator: Client) -> None:
    rows = [_pending("1.1", "p=1"), _pending("2.2", "p=2")]
    FactMetric.objects.filter(pk=rows[1].pk).update(review_status="rejected")
    response = curator.post(QUEUE + "key/", {"facts": [r.pk for r in rows], "metric": "净利润"}, follow=True)
    assert "no longer wait for review" in _messages(response)[0]
    assert FactMetric.objects.get(pk=rows[0].pk).metric_id == "REVENUE"


def test_the_alias_form_preselects_nothing_and_offers_the_same_concept_first(curator: Client) -> None:
    _pending("1.1", "p=1", "unknown row label '四、净利润'", metric_id=None, suggested_alias="四、净利润")
    page = curator.get(QUEUE).content.decode()
    form = page.split('class="label-alias"')[1].split("</form>")[0]
    options = [o.split('"')[1] for o in form.split("<option value=")[1:]]
    assert options[:2] == ["", "NET_PROFIT"]  # 净资产 is another concept
    assert "selected" not in form
    assert '<optgroup label="相近 · closest"><option value="NET_PROFIT">' in form


def test_adding_a_label_as_alias_gives_its_waiting_candidates_the_metric(curator: Client) -> None:
    label = "unknown row label '四、净利润'"
    waiting = [
        _pending("1.1", "p=1", label, metric_id=None, suggested_alias="四、净利润"),
        _pending("2.2", "p=2", f"{label}; no scale stated (x name none)", metric_id=None, suggested_alias="四、净利润"),
    ]
    unrelated = _pending("3.3", "p=3", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")
    response = curator.post(QUEUE + "alias/", {"text": "四、净利润", "metric": "NET_PROFIT"}, follow=True)
    assert "2 条候选已取得该指标" in _messages(response)[0]
    assert Alias.objects.get(text="四、净利润").target_code == "NET_PROFIT"
    first, second = (FactMetric.objects.get(pk=w.pk) for w in waiting)
    assert (first.metric_id, first.review_status, first.review_note) == ("NET_PROFIT", "pending", "")
    assert second.review_note == "no scale stated (x name none)"
    assert FactMetric.objects.get(pk=unrelated.pk).metric_id is None
    # Then one click approves the candidate whose only reason was the label.
    curator.post(QUEUE + "choose/", {"choose": first.pk})
    assert FactMetric.objects.get(pk=first.pk).review_status == "approved"


def test_an_alias_that_already_names_another_metric_is_a_message_not_a_503(curator: Client) -> None:
    alias_create(kind="metric", text="营业收入:", code="REVENUE")
    row = _pending("1.1", "p=1", "unknown row label '营业收入：'", metric_id=None, suggested_alias="营业收入：")
    response = curator.post(QUEUE + "alias/", {"text": "营业收入：", "metric": "NET_PROFIT"}, follow=True)
    assert response.status_code == 200
    assert "already names metric REVENUE" in _messages(response)[0]
    assert list(Alias.objects.values_list("text", flat=True)) == ["营业收入:"]
    assert FactMetric.objects.get(pk=row.pk).metric_id is None
    response = curator.post(QUEUE + "alias/", {"text": "营业收入：", "metric": ""}, follow=True)
    assert response.status_code == 200 and _messages(response)


def test_the_fact_list_links_the_grouped_review_queue(curator: Client) -> None:
    page = curator.get("/admin/facts/factmetric/").content.decode()
    assert 'href="/admin/facts/factmetric/review/"' in page
