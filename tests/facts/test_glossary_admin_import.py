"""The glossary CSV in admin: an upload is previewed row by row (what each code and alias will
become, or every row's error in the command's words) and written only on confirm, all or nothing,
exactly as previewed; the export reads back into an empty glossary as the same glossary. Importing
needs the permission to add and change the glossary, exporting the permission to view it."""

from __future__ import annotations

import base64
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from facts import glossary_admin
from facts.models import Alias, Channel, CompanyProfile, Entity, FactMetric, Metric
from facts.services import alias_create, facts_replace, glossary_import
from tests.factories import candidate_make, curator_make, document_make, metric_make

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "demo" / "glossary.csv"
IMPORT = "/admin/facts/entity/glossary/import/"
CONFIRM = "/admin/facts/entity/glossary/import/confirm/"
EXPORT = "/admin/facts/entity/glossary/export/"
HEADER = "kind,code,name,alias,unit,entity_kind,parent,formula,aggregation,sign,year_end_month,currency\n"


@pytest.fixture
def acme() -> None:
    call_command("import_glossary", str(DEMO), stdout=StringIO())


def _client(user: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture
def curator(acme: None) -> Client:
    return _client(curator_make())


@pytest.fixture
def viewer(acme: None) -> Client:
    """A staff user who may view the glossary and change nothing."""
    user = get_user_model().objects.create_user(username="viewer", is_staff=True)
    models = ("entity", "metric", "channel", "alias")
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="facts", codename__in=[f"view_{m}" for m in models])
    )
    return _client(user)


def _state() -> tuple[list[Any], ...]:
    """Everything the glossary CSV carries, in a comparable form."""
    return (
        sorted(Entity.objects.values_list("code", "name", "kind", "parent_id", "year_end_month", "currency")),
        sorted(Metric.objects.values_list("code", "name", "unit_id", "formula", "aggregation", "sign")),
        sorted(Channel.objects.values_list("code", "name")),
        sorted(Alias.objects.values_list("kind", "text", "entity__code", "metric__code", "channel__code")),
    )


def _preview(client: Client, content: str | bytes) -> Any:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return client.post(IMPORT, {"file": SimpleUploadedFile("glossary.csv", data, content_type="text/csv")})


def _confirmation(preview: Any) -> dict[str, str]:
    """What the preview's confirm button posts."""
    form = preview.context["confirm"]
    assert form is not None, preview.content.decode()[:2000]
    return {"content": form["content"].value(), "token": form["token"].value()}


def _plans(response: Any) -> list[tuple[int, str, tuple[str, ...], bool]]:
    return [(row.number, row.action, row.changed, row.alias_added) for row in response.context["rows"]]


def _page_errors(response: Any) -> list[str]:
    return [str(e) for e in response.context["errors"]]


def _empty_the_glossary() -> None:
    for model in (Alias, Metric, Entity, Channel, CompanyProfile):
        model.objects.all().delete()


# -- preview, then confirm ------------------------------------------------------------------------
def test_a_preview_says_what_each_row_will_do_and_only_the_confirm_writes_it(curator: Client) -> None:
    before = _state()
    preview = _preview(
        curator,
        HEADER
        + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,3,JPY\n"
        + "metric,REVENUE,营业总收入,营业总收入,CNY_M,,,,,,,\n"
        + "metric,REVENUE,,营收,,,,,,,,\n"
        + "channel,ONLINE,线上,线上,,,,,,,,\n",
    )
    assert preview.status_code == 200
    assert _plans(preview) == [
        (2, "created", (), True),
        (3, "updated", ("name",), True),
        (4, "updated", ("name",), False),
        (5, "unchanged", (), False),
    ]
    page = preview.content.decode()
    assert "will be created" in page and "will be updated: name" in page and "already in the glossary" in page
    assert _state() == before

    confirmed = curator.post(CONFIRM, _confirmation(preview))
    assert confirmed.status_code == 302 and confirmed["Location"] == "/admin/facts/entity/"
    japan = Entity.objects.get(code="ACME_JP")
    assert (japan.name, japan.parent_id, japan.year_end_month, japan.currency) == ("ACME日本", "ACME_GROUP", 3, "JPY")
    assert Metric.objects.get(code="REVENUE").name == "营业总收入"
    assert Alias.objects.get(text="营业总收入").metric.code == "REVENUE"  # type: ignore[union-attr]
    followed = curator.get(confirmed["Location"])
    assert "Glossary imported: 1 code(s) created, 1 updated, 2 alias(es) added." in followed.content.decode()


def test_a_bad_row_in_the_middle_is_reported_as_the_command_reports_it_and_nothing_is_imported(
    curator: Client, tmp_path: Path
) -> None:
    csv_text = (
        HEADER
        + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,,\n"
        + "entiy,ACME_KR,ACME韩国,韩国,,subsidiary,,,,,,\n"
        + "metric,CAPEX,资本开支,,CNY_M,,,,,negative,,\n"
        + "channel,ONLINE,线上,直播,,,,,,,,\n"
    )
    path = tmp_path / "glossary.csv"
    path.write_text(csv_text, encoding="utf-8")
    stderr = StringIO()
    with pytest.raises(CommandError):
        call_command("import_glossary", str(path), stdout=StringIO(), stderr=stderr)
    before = _state()

    preview = _preview(curator, csv_text)

    assert _page_errors(preview) == stderr.getvalue().splitlines()
    assert _page_errors(preview)[0].startswith("row 3: kind must be entity, metric or channel")
    assert "confirm" not in preview.context
    assert "The file has 2 error(s), so nothing can be imported." in preview.content.decode()
    assert _state() == before


def test_a_bad_row_in_the_middle_found_while_writing_leaves_the_glossary_unchanged(curator: Client) -> None:
    """The long alias fails only when aliases are written, after row 2's entity was: all of it is undone."""
    before = _state()
    preview = _preview(
        curator,
        HEADER
        + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,,\n"
        + "metric,REVENUE,,"
        + "营" * 300
        + ",,,,,,,,\n"
        + "channel,ONLINE,,直播,,,,,,,,\n",
    )
    assert _page_errors(preview)[0].endswith("Ensure this value has at most 255 characters (it has 300).")
    assert _state() == before


def test_a_row_that_went_bad_after_the_preview_makes_the_confirm_write_nothing(curator: Client) -> None:
    preview = _preview(
        curator,
        HEADER
        + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,,\n"
        + "metric,REVENUE,,营收额,,,,,,,,\n"
        + "channel,ONLINE,,直播,,,,,,,,\n",
    )
    confirmation = _confirmation(preview)
    alias_create(kind="metric", text="营收额", code="GROSS_PROFIT")  # another curator, meanwhile
    before = _state()

    refused = curator.post(CONFIRM, confirmation)

    assert refused.status_code == 200
    assert _page_errors(refused) == ["alias '营收额' already points at metric GROSS_PROFIT"]
    assert "The glossary changed after the preview, so nothing was imported." in refused.content.decode()
    assert _state() == before
    assert not Entity.objects.filter(code="ACME_JP").exists()


def test_a_glossary_changed_after_the_preview_is_previewed_again_and_not_imported(curator: Client) -> None:
    preview = _preview(curator, HEADER + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,,\n")
    assert _plans(preview) == [(2, "created", (), True)]
    Entity.objects.create(code="ACME_JP", name="ACME Japan", kind="subsidiary")  # another curator, meanwhile

    again = curator.post(CONFIRM, _confirmation(preview))

    assert again.status_code == 200
    assert "The glossary changed after the preview, so nothing was imported." in again.content.decode()
    assert _plans(again) == [(2, "updated", ("name", "parent"), True)]
    assert Entity.objects.get(code="ACME_JP").name == "ACME Japan"
    assert not Alias.objects.filter(text="日本").exists()
    assert curator.post(CONFIRM, _confirmation(again)).status_code == 302
    assert Entity.objects.get(code="ACME_JP").name == "ACME日本"


def test_a_file_the_glossary_already_holds_offers_nothing_to_confirm(curator: Client) -> None:
    preview = _preview(curator, DEMO.read_bytes())
    assert preview.context["confirm"] is None
    assert {row.action for row in preview.context["rows"]} == {"unchanged"}
    assert "there is nothing to import" in preview.content.decode()


def test_a_preview_of_a_sign_change_counts_the_facts_it_converts_and_converts_none(curator: Client) -> None:
    report = document_make()
    facts_replace(
        document_id=report.pk,
        source_doc=report.name,
        candidates=[candidate_make(metric="CAPEX", value=Decimal("-1577"))],
    )
    preview = _preview(curator, HEADER + "metric,CAPEX,资本开支,,CNY_M,,,,,positive,,\n")
    assert preview.context["tally"]["facts_converted"] == 1
    assert "1 fact(s) will be converted" in preview.content.decode()
    assert FactMetric.objects.get(metric_id="CAPEX").value == Decimal("-1577")
    assert Metric.objects.get(code="CAPEX").sign == "as_printed"

    curator.post(CONFIRM, _confirmation(preview))
    assert FactMetric.objects.get(metric_id="CAPEX").value == Decimal("1577")


def test_a_dry_run_says_what_the_import_would_do_and_writes_nothing(acme: None) -> None:
    metric_make("DIVIDENDS", "股息")
    report = glossary_import(
        rows=[(2, {"kind": "metric", "code": "DIVIDENDS", "name": "派息", "alias": "派息", "unit": ""})], dry_run=True
    )
    assert (report.updated["metric"], report.created["alias"]) == (1, 1)
    assert Metric.objects.get(code="DIVIDENDS").name == "股息"
    assert not Alias.objects.filter(text="派息").exists()


# -- what the confirm step accepts ----------------------------------------------------------------
def test_a_confirm_whose_content_was_changed_is_refused(curator: Client) -> None:
    preview = _preview(curator, HEADER + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,,\n")
    other = HEADER + "entity,ACME_KR,ACME韩国,韩国,,subsidiary,ACME_GROUP,,,,,\n"
    forged = {**_confirmation(preview), "content": base64.b64encode(other.encode()).decode()}
    before = _state()

    refused = curator.post(CONFIRM, forged)

    assert refused.status_code == 200
    assert "The preview was altered after it was made." in refused.content.decode()
    assert _state() == before


def test_a_confirm_of_an_old_preview_is_refused(curator: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    preview = _preview(curator, HEADER + "entity,ACME_JP,ACME日本,日本,,subsidiary,ACME_GROUP,,,,,\n")
    monkeypatch.setattr(glossary_admin, "GLOSSARY_PREVIEW_MAX_AGE", -1)
    refused = curator.post(CONFIRM, _confirmation(preview))
    assert "The preview is more than an hour old." in refused.content.decode()
    assert not Entity.objects.filter(code="ACME_JP").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ((HEADER + "entity,ACME_JP,日本,日本,,,,,,,,\n").encode("gbk"), "The file is not UTF-8 text."),
        (b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xb4\xfe", "The file is not UTF-8 text."),
        (b"", "The submitted file is empty."),
        (b"\r\n\r\n", "The file is empty."),
        (b"kind,code\nentity,ACME_JP\n", "header: missing column(s) alias, name"),
        (b"kind,code,name,alias\nentity,ACME_JP,\x00,x\n", "The file holds NUL characters"),
        (HEADER.encode() + b'entity,ACME_JP,"' + b"x" * 200_000 + b'",x\n', "The file cannot be read as CSV"),
        (HEADER.encode(), "The file has a header but no rows."),
        (
            (HEADER + "entity,ACME_JP," + "长" * 256 + ",,,,,,,,,\n").encode(),
            "row 2: name has more than 255 characters",
        ),
        (b"x" * (1024 * 1024 + 1), "The file is 1.0\xa0MB, over the 1.0\xa0MB the admin imports."),
    ],
    ids=["gbk", "xlsx", "empty", "blank", "columns", "nul", "huge-field", "no-rows", "long-name", "huge-file"],
)
def test_a_file_that_cannot_be_read_gets_a_message_and_writes_nothing(
    curator: Client, content: bytes, message: str
) -> None:
    before = _state()
    response = _preview(curator, content)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert "confirm" not in response.context
    assert _state() == before


# -- export ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("importer", ["admin", "command"])
def test_the_export_imported_into_an_empty_glossary_gives_the_glossary_back(
    curator: Client, importer: str, tmp_path: Path
) -> None:
    Metric.objects.filter(code="CAPEX").update(sign="positive", aggregation="sum")
    Entity.objects.filter(code="ACME_HK").update(year_end_month=3, currency="HKD")
    metric_make("DIVIDENDS", "股息")  # a code without aliases
    before = _state()
    exported = curator.get(EXPORT)
    assert exported.status_code == 200
    assert exported["Content-Disposition"].startswith('attachment; filename="glossary-')
    _empty_the_glossary()
    assert _state()[0] == []

    if importer == "admin":
        assert curator.post(CONFIRM, _confirmation(_preview(curator, exported.content))).status_code == 302
    else:
        path = tmp_path / "glossary.csv"
        path.write_bytes(exported.content)
        call_command("import_glossary", str(path), stdout=StringIO())

    assert _state() == before
    assert curator.get(EXPORT).content == exported.content


# -- who may do what, and where the links are ---------------------------------------------------
def test_a_user_who_may_view_the_glossary_may_export_it_but_not_import(curator: Client, viewer: Client) -> None:
    confirmation = _confirmation(_preview(curator, HEADER + "entity,ACME_JP,ACME日本,日本,,subsidiary,,,,,,\n"))

    exported = viewer.get(EXPORT)
    assert exported.status_code == 200 and "ACME_GROUP" in exported.content.decode("utf-8-sig")
    assert viewer.get(IMPORT).status_code == 403
    assert _preview(viewer, HEADER + "entity,ACME_JP,ACME日本,日本,,subsidiary,,,,,,\n").status_code == 403
    assert viewer.post(CONFIRM, confirmation).status_code == 403
    assert not Entity.objects.filter(code="ACME_JP").exists()


def test_a_staff_user_who_may_not_view_the_glossary_may_not_export_it(acme: None) -> None:
    staff = _client(get_user_model().objects.create_user(username="staff", is_staff=True))
    assert staff.get(EXPORT).status_code == 403


def test_an_anonymous_visitor_is_sent_to_the_login(acme: None) -> None:
    response = Client().get(EXPORT)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


@pytest.mark.parametrize("page", ["/admin/facts/entity/", "/admin/facts/metric/", "/admin/"])
def test_the_glossary_pages_link_to_import_and_export_for_who_may_use_them(
    curator: Client, viewer: Client, page: str
) -> None:
    for_curator = curator.get(page).content.decode()
    assert IMPORT in for_curator and EXPORT in for_curator
    assert "Import glossary CSV" in for_curator and "Export glossary CSV" in for_curator
    for_viewer = viewer.get(page).content.decode()
    assert EXPORT in for_viewer and IMPORT not in for_viewer
