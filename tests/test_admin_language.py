"""The admin in one language at a time. The project's catalogue never overrides a word of Django's
own (a bare msgid such as "Change" translated for a table column would rename every admin "Change"
link): a word that means something else here carries a context (`pgettext`). And the admin's index
shows the product's title, in English with no Chinese, in Chinese with Django's own words."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import django
import polib
import pytest
from django.test import Client

from tests.factories import curator_make

ROOT = Path(__file__).resolve().parents[1]
DJANGO = Path(django.__file__).resolve().parent
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _django_catalogue(language: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in (
        *DJANGO.glob(f"conf/locale/{language}/LC_MESSAGES/django.po"),
        *DJANGO.glob(f"contrib/*/locale/{language}/LC_MESSAGES/django.po"),
    ):
        for entry in polib.pofile(str(path)):
            if entry.msgctxt is None and entry.msgstr:
                found.setdefault(entry.msgid, entry.msgstr)
    return found


@pytest.mark.parametrize("language", ["zh_Hans", "en"])
def test_the_catalogue_overrides_no_word_of_djangos_own(language: str) -> None:
    django_words = _django_catalogue(language)
    ours = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))
    overrides = sorted(
        f"{entry.msgid!r}: {entry.msgstr!r} (Django: {django_words[entry.msgid]!r})"
        for entry in ours
        if entry.msgctxt is None
        and entry.msgid in django_words
        and entry.msgstr
        and entry.msgstr != django_words[entry.msgid]
    )
    assert overrides == []


def _index(language: str) -> str:
    browser = Client(headers={"accept-language": language})
    browser.force_login(curator_make(f"lead_{language}"))
    response = browser.get("/admin/", headers={"accept-language": language})
    assert response.status_code == 200
    return response.content.decode()


def _visible(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.django_db
def test_the_admin_index_in_english_shows_no_chinese_and_the_products_title(demo) -> None:
    page = _visible(_index("en"))
    assert "RAGSpine" in page and "Django administration" not in page
    assert CJK.findall(page) == [], sorted(set(re.findall(r"\S*[\u4e00-\u9fff]\S*", page)))


@pytest.mark.django_db
def test_the_admin_index_in_chinese_keeps_djangos_words_for_its_links(demo) -> None:
    html = _index("zh-hans")
    page = _visible(html)
    assert "RAGSpine" in page and "Django 管理" not in page
    assert "变动额" not in page and "修改" in page  # every change link is Django's own word


# -- the custom admin pages, one language at a time -------------------------------------------------
# Data seeded in English only, so any Chinese an English page shows is a label.
PAGES = {
    "review queue": "/admin/facts/factmetric/review/",
    "fact list": "/admin/facts/factmetric/",
    "upload": "/admin/documents/document/upload/",
    "ingest jobs": "/admin/documents/ingestjob/",
    "document": "/admin/documents/document/{document}/change/",
    "document list": "/admin/documents/document/",
    "company": "/admin/documents/document/{newcomer}/company/",
    "glossary import": "/admin/facts/entity/glossary/import/",
    "formula try": "/admin/facts/metric/{metric}/try/?try_entity=ACME&try_period=FY2019",
    "faq test": "/admin/faq/faqitem/test/?question=What+is+the+refund+policy",
    "faq list": "/admin/faq/faqitem/",
    "glossary gaps": "/admin/agent/querylog/gaps/",
    "feedback": "/admin/agent/querylog/feedback/",
    "disputes": "/admin/facts/factdispute/",
}


@pytest.fixture
def english_data(db: Any) -> dict[str, str]:
    """A company, its metrics, a report with warnings and candidates waiting for the reasons the
    queue names, a report whose company the glossary lacks, jobs in each state: all in English."""
    from datetime import timedelta
    from decimal import Decimal

    from django.utils import timezone

    from agent.models import QueryLog
    from documents.models import Document, IngestJob
    from facts.models import Channel, Entity, FactDispute, FactMetric, Metric, Unit

    Unit.objects.get_or_create(code="USD_M")
    Channel.objects.update_or_create(code="TOTAL", defaults={"name": "Total"})
    Entity.objects.create(code="ACME", name="Acme Corp", kind="home")
    for code, name in (("REVENUE", "Revenue"), ("COST", "Cost of sales")):
        Metric.objects.create(code=code, name=name, unit_id="USD_M")
    gross = Metric.objects.create(code="GROSS", name="Gross profit", unit_id="USD_M", formula="REVENUE - COST")
    report = Document.objects.create(
        name="acme_2019.pdf",
        sha256="0" * 64,
        status="ready",
        warnings=[
            {"code": "table.no_period_axis", "text": "no facts read", "place": "page=3,table=1", "count": 0},
            {"code": "pdf.undecodable_lines", "text": "3 lines", "place": "", "count": 3},
        ],
    )
    key = {"entity_id": "ACME", "period_type": "FY", "period": "2019", "channel_id": "TOTAL", "unit_id": "USD_M"}
    lineage = {"source_doc": report.name, "document": report}
    FactMetric.objects.create(
        **key, **lineage, metric_id="REVENUE", value=Decimal("100"), locator="page=4,table=1", review_status="approved"
    )
    for value, note, locator in (
        ("101", "conflicts with the approved value 100 from acme_2019.pdf", "page=5,table=1"),
        ("99", "a parent-company statement (revenue of the parent alone): never the group's figure", "page=9"),
    ):
        FactMetric.objects.create(
            **key, **lineage, metric_id="REVENUE", value=Decimal(value), locator=locator,
            review_status="pending", review_note=note,
        )  # fmt: skip
    FactMetric.objects.create(
        **key, **lineage, metric_id=None, suggested_alias="Widgets sold", value=Decimal("7"), locator="page=6",
        review_status="pending", review_note="unknown row label 'Widgets sold'; no scale stated in the table",
    )  # fmt: skip
    approved = FactMetric.objects.get(review_status="approved")
    FactDispute.objects.create(fact=approved, note="The report says 100.5", value_disputed=approved.value)
    newcomer = Document.objects.create(
        name="globex_2024.docx",
        sha256="1" * 64,
        status="ready",
        issuer_proposed={"full_name": "Globex Inc", "short_name": "Globex", "code": "GLOBEX", "evidence": "page=1"},
    )
    IngestJob.objects.create(name="queued.pdf", data=b"", status="queued")
    IngestJob.objects.create(
        name="retried.pdf",
        data=b"",
        status="failed",
        message="the worker stopped during ingestion 3 times; nothing was written",
    )
    IngestJob.objects.create(
        name="acme_2019.pdf", data=b"", status="done", document=report, issuer="ACME", report_period="FY2019",
        outcome={
            "document": "acme_2019.pdf", "status": "created", "chunks": 4, "sensitivity": "INTERNAL",
            "facts": {"approved": 1, "pending": 3, "conflicts": 1}, "warnings": report.warnings,
        },
    )  # fmt: skip
    QueryLog.objects.create(
        request_id="r1", route="facts", routing_mode="rules", clarification_mode="none", answer_kind="facts",
        unrecognized_terms=["EBITDA margin"], feedback=-1, feedback_reason="Wrong year",
        created_at=timezone.now() - timedelta(days=1),
    )  # fmt: skip
    return {"document": str(report.pk), "newcomer": str(newcomer.pk), "metric": str(gross.pk)}


def _admin_page(language: str, url: str) -> str:
    browser = Client(headers={"accept-language": language})
    browser.force_login(curator_make(f"curator_{language}"))
    response = browser.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def _shown(html: str) -> str:
    """The text a curator reads, with its submit buttons' words: no datalist (suggestions, not
    shown) and no scripts; less 元, a currency sign an English help text names."""
    html = re.sub(r"<datalist\b.*?</datalist>", " ", html, flags=re.S)
    html = re.sub(r'<input\b[^>]*type="submit"[^>]*value="([^"]*)"[^>]*>', r" \1 ", html)
    return _visible(html).replace("元", "")


@pytest.mark.django_db
@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_custom_admin_page_in_english_shows_no_chinese(english_data: dict[str, str], page: str) -> None:
    shown = _shown(_admin_page("en", PAGES[page].format(**english_data)))
    assert CJK.findall(shown) == [], sorted(set(re.findall(r"\S*[\u3400-\u4dbf\u4e00-\u9fff]\S*", shown)))


# Per page: words an English-only label would show, and words its Chinese says.
CHINESE_LABELS = {
    "review queue": (
        ("Approve", "Reject selected", "unknown metric", "Fact metrics"),
        ("批准此条", "原因", "审核队列"),
    ),
    "fact list": (
        ("fact metric", "open disputes", "printed", "approved", "pending"),
        ("原因", "报表", "已批准", "待审核"),
    ),
    "upload": (("Upload", "Ingest jobs"), ("上传", "发行主体")),
    "ingest jobs": (
        ("ingest job", "outcome", "reloads every", "done"),  # "queued" is a file name here
        ("结果", "导入任务", "自动刷新", "排队中", "已完成"),
    ),
    "document": (("Re-read", "chunks", "nothing waits", "approved;"), ("用当前词表重新读取", "审核")),
    "document list": (("media type", "warnings", "uploaded at"), ("警告",)),
    "company": (("Create and read", "Other names"), ("首页",)),
    "glossary import": (("Preview the import",), ("首页",)),
    "formula try": (("Try it", "formula:"), ("试算",)),
    "faq test": (("FAQ items", "Reference date"), ("测试", "首页")),
    "faq list": (("FAQ item", "test this question", "hit count"), ("测试问题",)),
    "glossary gaps": (("Add alias", "Dismiss"), ("添加别名", "忽略")),
    "feedback": (("By route", "Helpful"), ("按路由", "有用")),
    "disputes": (("fact dispute", "disputes (", "figure"), ("数字有误的反馈", "未处理")),
}


@pytest.mark.django_db
@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_custom_admin_page_in_chinese_says_its_labels_in_chinese(english_data: dict[str, str], page: str) -> None:
    shown = _shown(_admin_page("zh-hans", PAGES[page].format(**english_data)))
    english, chinese = CHINESE_LABELS[page]
    assert [word for word in english if word.lower() in shown.lower()] == []
    assert [word for word in chinese if word not in shown] == []
