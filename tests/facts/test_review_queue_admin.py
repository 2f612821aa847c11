"""The review queue as a curator works it (`admin/facts/factmetric/review/`): groups, filters and
the group actions, each atomic and logged."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.test import Client

from documents.models import Document
from facts.models import Alias, FactMetric, Metric, Unit
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
    assert 'class="statement">合并<' in revenue and 'class="statement">母公司<' in revenue
    assert "page=90,table=2" in revenue
    assert "母公司报表（income，仅母公司）：不是合并数" in revenue
    # One document on the page is named once above the groups; several, on each row.
    link = f'href="/admin/documents/document/{report.pk}/change/"'
    assert page.count(link) == 1 and link not in revenue
    _pending("7", "page=3", document=document_make("other.pdf"), period="2018")
    page = curator.get(QUEUE).content.decode()
    assert page.count(link) == 3 and "other.pdf" in page


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
    assert "已有批准值：7 CNY_M，来自 a.pdf p=1" in _messages(response)[0]
    assert set(FactMetric.objects.filter(pk__in=[chosen.pk, other.pk]).values_list("review_status", flat=True)) == {
        "pending"
    }
    assert not LogEntry.objects.exists()


def test_approve_this_one_is_refused_for_a_candidate_without_metric(curator: Client) -> None:
    chosen = _pending("1.1", "p=1", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")
    response = curator.post(QUEUE + "choose/", {"choose": chosen.pk}, follow=True)
    assert "该事实没有指标" in _messages(response)[0] and "坪效" in _messages(response)[0]
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
    assert any("不是一个期间" in m for m in _messages(response))
    response = curator.post(QUEUE + "key/", {"facts": [row.pk], "metric": "坪效"}, follow=True)
    assert response.status_code == 200
    assert any("术语表中没有指标「坪效」" in m for m in _messages(response))
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
    assert re.findall(r'name="closest" value="(\w+)"', form) == ["NET_PROFIT"]  # 净资产 is another concept
    assert "selected" not in form and "<option" not in form
    assert re.search(r'<input type="text" name="metric" list="metric-names"[^>]*>', form)
    assert page.count('<datalist id="metric-names">') == 1 and '<option value="NET_ASSETS">净资产</option>' in page


def test_the_per_group_markup_does_not_grow_with_the_glossary(curator: Client) -> None:
    """Every group's alias and metric inputs type against the page's one list of metrics: a
    glossary of many metrics adds one option each to the page, not one to each group."""
    for n in range(8):
        label = f"标签{n}"
        _pending(f"{n}.5", f"p={n}", f"unknown row label '{label}'", metric_id=None, suggested_alias=label)
    before = len(curator.get(QUEUE).content)
    for n in range(70):
        metric_make(f"EXTRA_{n:02}", f"附加指标{n:02}")
    page = curator.get(QUEUE).content.decode()
    groups = page.split('<tbody class="review-group">')[1:]
    assert len(groups) == 8 and not any("EXTRA_" in group for group in groups)
    assert page.count("EXTRA_00") == 1  # in the one datalist
    assert len(page.encode()) - before < 70 * 120, len(page.encode()) - before


def test_enter_in_a_field_corrects_or_does_nothing_never_rejects(curator: Client) -> None:
    """A form's first submit button is what Enter in one of its fields presses."""
    _pending("1.1", "p=1", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")
    group = curator.get(QUEUE).content.decode().split('<tbody class="review-group">')[1]
    first = re.search(r'<form method="post" id="group-1" action="([^"]+)">.*?<button([^>]*)>', group, re.S)
    assert first and first.group(1) == QUEUE + "key/" and "formaction" not in first.group(2)
    label_form = group.split('class="label-forms"')[1]
    assert re.search(r"<button[^>]*>", label_form).group(0).count("disabled") == 1


def test_a_group_says_its_shared_reasons_once_and_each_row_its_own(curator: Client) -> None:
    label = "unknown row label '资产总计'"
    _pending("1.1", "p=1", label, metric_id=None, suggested_alias="资产总计")
    _pending("2.2", "p=2", f"{PARENT}; {label}", metric_id=None, suggested_alias="资产总计")
    group = curator.get(QUEUE).content.decode().split('<tbody class="review-group">')[1]
    assert group.count("术语表不认识行标签「资产总计」") == 1
    header, rows = group.split('<tr class="candidate">', 1)
    assert "术语表不认识行标签「资产总计」" in header and "母公司报表（income，仅母公司）" in rows


def test_the_alias_takes_a_closest_choice_or_a_metric_typed_by_name_and_refuses_an_unknown_one(
    curator: Client,
) -> None:
    row = _pending("1.1", "p=1", "unknown row label '纯利'", metric_id=None, suggested_alias="纯利")
    response = curator.post(QUEUE + "alias/", {"text": "纯利", "metric": "不存在的指标"}, follow=True)
    assert any("术语表中没有指标「不存在的指标」" in m for m in _messages(response))
    assert not Alias.objects.filter(text="纯利").exists()
    response = curator.post(QUEUE + "alias/", {"text": "纯利", "metric": "净利润"}, follow=True)  # a name typed
    assert Alias.objects.get(text="纯利").target_code == "NET_PROFIT"
    assert FactMetric.objects.get(pk=row.pk).metric_id == "NET_PROFIT"
    other = _pending("2.2", "p=2", "unknown row label '营收'", metric_id=None, suggested_alias="营收")
    curator.post(QUEUE + "alias/", {"text": "营收", "metric": "", "closest": "REVENUE"})  # a quick choice
    assert FactMetric.objects.get(pk=other.pk).metric_id == "REVENUE"


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


def _approved(value: str, locator: str, **fields: Any) -> FactMetric:
    return FactMetric.objects.create(
        **{**KEY, **fields}, value=Decimal(value), unit_id="CNY_M", source_doc="a.pdf", locator=locator
    )


def test_reject_selected_rejects_a_groups_ticked_candidates_and_logs_each(curator: Client) -> None:
    _approved("1200.5", "page=40")
    parent, again, kept = _pending("980.1", "page=90", PARENT), _pending("1200.5", "page=13"), _pending("7", "p=7")
    response = curator.post(QUEUE + "reject/", {"facts": [parent.pk, again.pk], "back": "key=held"}, follow=True)
    assert response.redirect_chain[-1][0].endswith("review/?key=held")
    assert "已驳回 2 条候选" in _messages(response)[0]
    statuses = dict(FactMetric.objects.filter(pk__in=[parent.pk, again.pk, kept.pk]).values_list("pk", "review_status"))
    assert statuses == {parent.pk: "rejected", again.pk: "rejected", kept.pk: "pending"}
    assert set(LogEntry.objects.values_list("object_id", flat=True)) == {str(parent.pk), str(again.pk)}


def test_a_rejection_of_a_candidate_gone_meanwhile_writes_nothing(curator: Client) -> None:
    rows = [_pending("1.1", "p=1"), _pending("2.2", "p=2")]
    FactMetric.objects.filter(pk=rows[1].pk).update(review_status="approved")
    response = curator.post(QUEUE + "reject/", {"facts": [r.pk for r in rows]}, follow=True)
    assert "no longer wait for review" in _messages(response)[0]
    assert FactMetric.objects.get(pk=rows[0].pk).review_status == "pending"
    response = curator.post(QUEUE + "reject/", {"facts": ["x"]}, follow=True)
    assert response.status_code == 200 and _messages(response)


def test_the_page_rejects_every_candidate_it_shows_and_only_those(curator: Client) -> None:
    _approved("1200.5", "page=40")
    held = [_pending("980.1", "page=90", PARENT), _pending("1200.5", "page=13")]
    open_key = _pending("33.3", "page=41", metric_id="NET_PROFIT")
    page = curator.get(QUEUE, {"key": "held"}).content.decode()
    form = page.split('id="page-reject"')[1].split("</form>")[0]
    assert sorted(int(v) for v in re.findall(r'name="facts" value="(\d+)"', form)) == sorted(h.pk for h in held)
    assert "驳回本页全部 2 条" in form
    curator.post(QUEUE + "reject/", {"facts": [h.pk for h in held]})
    assert FactMetric.objects.get(pk=open_key.pk).review_status == "pending"
    assert "没有待审核的候选" in curator.get(QUEUE, {"key": "held"}).content.decode()


def test_the_key_and_period_filters(curator: Client) -> None:
    _approved("1200.5", "page=40")
    beside = _pending("980.1", "page=90", PARENT)
    earlier = _pending("1100", "page=41", period="2018")
    label = _pending("3.3", "p=3", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")

    def shown(**query: Any) -> set[int]:
        page = curator.get(QUEUE, query).content.decode()
        return {int(v) for v in re.findall(r'name="facts" value="(\d+)" checked', page)}

    assert shown(key="held") == {beside.pk}
    assert shown(key="open") == {earlier.pk, label.pk}
    assert shown(period="FY2018") == {earlier.pk}
    assert shown(period="2019年", key="held") == {beside.pk}
    page = curator.get(QUEUE, {"period": "sometime"}).content.decode()
    assert "不是一个期间" in page and not shown(period="sometime")  # an error, not every candidate


def test_the_document_filter_of_a_document_whose_queue_was_cleared_shows_an_empty_queue(curator: Client) -> None:
    cleared_doc, other = document_make("done.pdf"), document_make("other.pdf")
    done = _pending("1.1", "p=1", document=cleared_doc)
    _pending("2.2", "p=2", document=other, period="2018")
    FactMetric.objects.filter(pk=done.pk).update(review_status="rejected")
    page = curator.get(QUEUE, {"document": cleared_doc.pk}).content.decode()
    assert "没有待审核的候选" in page and "2.2 CNY_M" not in page


def test_groups_with_a_metric_come_before_labels_the_glossary_does_not_know(curator: Client) -> None:
    _pending("3.3", "p=3", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")
    _pending("1.1", "p=1")
    page = curator.get(QUEUE).content.decode()
    assert page.index("营业收入 <code>REVENUE</code>") < page.index("「坪效」（未知指标")


def test_a_group_beside_an_approved_figure_offers_rejection_not_approval(curator: Client) -> None:
    _approved("1200.5", "page=40")
    _pending("980.1", "page=90", PARENT)
    _pending("33.3", "page=41", metric_id="NET_PROFIT")
    page = curator.get(QUEUE).content.decode()
    revenue, profit = page.split("× 营业收入")[1].split("review-group")[0], page.split("× 净利润")[1]
    assert "只能驳回" in revenue and 'name="choose"' not in revenue
    assert 'name="choose"' in profit


def test_a_label_the_glossary_learnt_since_is_given_its_metric_in_one_click(curator: Client) -> None:
    waiting = _pending("1.1", "p=1", "unknown row label '资产总计'", metric_id=None, suggested_alias="资产总计")
    alias_create(kind="metric", text="资产总计", code="NET_ASSETS")  # on the metric's page, say
    page = curator.get(QUEUE).content.decode()
    known = page.split('class="label-known"')[1].split("</form>")[0]
    assert 'name="closest" value="NET_ASSETS"' in known and "净资产" in known
    # The alias is there already for that metric: no error, the candidates are re-read.
    response = curator.post(QUEUE + "alias/", {"text": "资产总计", "metric": "NET_ASSETS"}, follow=True)
    assert "1 条候选已取得该指标" in _messages(response)[0]
    assert FactMetric.objects.get(pk=waiting.pk).metric_id == "NET_ASSETS"
    assert Alias.objects.filter(text="资产总计").count() == 1


def test_a_new_metric_made_of_a_label_takes_its_waiting_candidates(curator: Client) -> None:
    label = "unknown row label '资产总计'"
    rows = [
        _pending("2464.9", "page=60", label, metric_id=None, suggested_alias="资产总计"),
        _pending("1309.3", "page=62", f"{PARENT}; {label}", metric_id=None, suggested_alias="资产总计"),
    ]
    page = curator.get(QUEUE).content.decode()
    assert 'name="choose"' not in page and "先给指标" in page  # approving would be refused
    form = page.split('class="label-metric"')[1].split("</form>")[0]
    assert 'name="name" value="资产总计"' in form and 'name="unit" list="unit-names" value="CNY_M"' in form
    data = {"text": "资产总计", "code": "TOTAL_ASSETS", "name": "总资产", "unit": "CNY_M", "aggregation": "end"}
    response = curator.post(QUEUE + "metric/", data, follow=True)
    assert "已新建指标「总资产」" in _messages(response)[0] and "2 条候选已取得该指标" in _messages(response)[0]
    metric = Metric.objects.get(code="TOTAL_ASSETS")
    assert (metric.name, metric.unit_id, metric.aggregation) == ("总资产", "CNY_M", "end")
    assert Alias.objects.get(text="资产总计").target_code == "TOTAL_ASSETS"
    first, second = (FactMetric.objects.get(pk=r.pk) for r in rows)
    assert (first.metric_id, first.review_status, first.review_note) == ("TOTAL_ASSETS", "pending", "")
    assert second.review_note == PARENT
    curator.post(QUEUE + "choose/", {"choose": first.pk})
    assert FactMetric.objects.get(pk=first.pk).review_status == "approved"
    assert FactMetric.objects.get(pk=second.pk).review_status == "rejected"


def test_a_new_metric_that_clashes_is_a_message_and_writes_nothing(curator: Client) -> None:
    row = _pending("1.1", "p=1", "unknown row label '坪效'", metric_id=None, suggested_alias="坪效")
    for data, said in [
        ({"code": "REVENUE", "unit": "CNY_M"}, "代码"),  # a code taken
        ({"code": "bad code", "unit": "CNY_M"}, "code"),
        ({"code": "", "unit": "CNY_M"}, "代码"),
        ({"code": "PING_XIAO", "unit": "平方米"}, "术语表中没有单位 平方米"),  # no unit is made on the way
    ]:
        response = curator.post(QUEUE + "metric/", {"text": "坪效", **data}, follow=True)
        assert response.status_code == 200 and any(said in m for m in _messages(response)), _messages(response)
    assert not Metric.objects.filter(name="坪效").exists() and not Alias.objects.filter(text="坪效").exists()
    assert not Unit.objects.filter(code="平方米").exists()
    assert FactMetric.objects.get(pk=row.pk).metric_id is None
    assert not LogEntry.objects.exists()


def test_a_curator_without_the_right_to_add_metrics_cannot_make_one(curator: Client) -> None:
    from django.contrib.auth.models import Permission

    user = curator_make("no_metrics")
    user.groups.clear()
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_factmetric", "change_factmetric"]))
    client = Client()
    client.force_login(user)
    response = client.post(QUEUE + "metric/", {"text": "坪效", "code": "PING_XIAO", "unit": "CNY_M"})
    assert response.status_code == 403 and not Metric.objects.filter(code="PING_XIAO").exists()


@pytest.mark.parametrize(
    ("note", "words", "kind"),
    [
        (
            "under the heading '营业外收入', which the glossary does not name with '其他'",
            "标题「营业外收入」下的「其他」：术语表未给出对应指标",
            "label",
        ),
        ("'GeneVida GmbH' heads 4 rows of this table: name each under its heading", "出现 4 次", "label"),
        ("a total row: the glossary does not say which metric '合计' totals", "合计行：术语表未说明「合计」", "label"),
        (
            "columns '期末 账面余额', '期末 账面价值' all hold FY2019: add their groups as channels or split the table",
            "都是 FY2019 的数：请把各列组设为渠道",
            "other",
        ),
    ],
)
def test_the_label_and_column_reasons_read_in_chinese_under_their_kind(note: str, words: str, kind: str) -> None:
    from facts.reasons import reason_kinds

    assert words in reason_shown(note, "zh") and reason_kinds(note) == [kind]


def test_a_metric_set_by_hand_answers_a_heading_reason(curator: Client) -> None:
    note = "under the heading '营业外收入', which the glossary does not name with '其他'; " + PARENT
    row = _pending("1.1", "p=1", note, suggested_alias="其他")
    assert 'class="label-alias"' in curator.get(QUEUE).content.decode()  # the guess waits for a person
    curator.post(QUEUE + "key/", {"facts": [row.pk], "metric": "净利润"})
    assert FactMetric.objects.get(pk=row.pk).review_note == PARENT
    page = curator.get(QUEUE).content.decode()
    assert 'class="label-alias"' not in page  # the label's reason is answered


def test_the_queue_is_on_the_admin_index_app_index_and_sidebar_with_its_pending_count(curator: Client) -> None:
    _pending("1200.5", "page=40")
    _pending("980.1", "page=90", PARENT)
    FactMetric.objects.create(**{**KEY, "metric_id": "NET_PROFIT"}, value=Decimal(1), unit_id="CNY_M", locator="p=1")
    link = re.compile(r'<a href="/admin/facts/factmetric/review/"[^>]*>审核队列（2）</a>')
    for url in ("/admin/", "/admin/facts/", "/admin/documents/document/"):  # the index, the app, a sidebar
        page = curator.get(url).content.decode()
        assert link.search(page), url


def test_the_queue_entry_counts_only_what_the_user_may_see_and_needs_the_facts_view_permission() -> None:
    from django.contrib.auth import get_user_model

    from tests.factories import curator_make

    entity_make()
    metric_make()
    _pending("1.1", "p=1")
    restricted = document_make("board.pdf", sensitivity="RESTRICTED")
    _pending("2.2", "p=2", document=restricted, sensitivity="RESTRICTED", period="2020")
    client = Client()
    client.force_login(curator_make())
    assert "审核队列（1）" in client.get("/admin/").content.decode()
    staff = get_user_model().objects.create_user(username="clerk", is_staff=True)
    client.force_login(staff)
    assert "审核队列" not in client.get("/admin/").content.decode()


def test_a_label_given_a_metric_shows_its_candidates_waiting_with_it_whatever_reason_was_filtered(
    curator: Client,
) -> None:
    _pending("1.1", "p=1", "unknown row label '纯利'", metric_id=None, suggested_alias="纯利")
    back = "reason=label&q=%E7%BA%AF%E5%88%A9&document=7"
    response = curator.post(QUEUE + "alias/", {"text": "纯利", "metric": "NET_PROFIT", "back": back})
    assert response.status_code == 302
    kept = response["Location"].split("?", 1)[1]
    assert "reason=" not in kept and "document=7" in kept and "q=%E7%BA%AF%E5%88%A9" in kept
    refused = curator.post(QUEUE + "alias/", {"text": "纯利", "metric": "不存在的指标", "back": back})
    assert "reason=label" in refused["Location"]  # nothing changed: the queue as the curator left it
