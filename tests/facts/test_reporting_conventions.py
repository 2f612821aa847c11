"""A company's reporting conventions (its fiscal year end and its currency): set by a curator in
admin or in the glossary CSV, checked on the way in, and carried by the glossary snapshot."""

from __future__ import annotations

import csv
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.test import Client

from facts.models import Entity
from facts.selectors import glossary_snapshot
from facts.services import ImportAborted, glossary_import
from tests.factories import curator_make, entity_make

pytestmark = pytest.mark.django_db

HEADER = ["kind", "code", "name", "alias", "unit", "entity_kind", "parent", "year_end_month", "currency"]


def _rows(*rows: dict[str, str]) -> list[tuple[int, dict[str, str]]]:
    return [(number, {key: "" for key in HEADER} | row) for number, row in enumerate(rows, start=2)]


def _entity(code: str = "TSMC", **cells: str) -> dict[str, str]:
    return {"kind": "entity", "code": code, "name": f"{code} Ltd", "entity_kind": "peer", **cells}


def test_the_glossary_csv_sets_and_the_snapshot_carries_the_conventions(tmp_path: Path) -> None:
    path = tmp_path / "glossary.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, HEADER)
        writer.writeheader()
        writer.writerow(_entity("TSMC", alias="台积电", year_end_month="12", currency="TWD"))
        writer.writerow(_entity("TSMC", alias="台積電"))  # an alias-only row keeps them
        writer.writerow(_entity("MSFT", year_end_month="06", currency="usd"))
        writer.writerow(_entity("NOTSET"))
    call_command("import_glossary", str(path), stdout=StringIO())
    entities = glossary_snapshot().entities
    assert (entities["TSMC"].year_end_month, entities["TSMC"].currency) == (12, "TWD")
    assert (entities["MSFT"].year_end_month, entities["MSFT"].currency) == (6, "USD")
    assert (entities["NOTSET"].year_end_month, entities["NOTSET"].currency) == (None, "")


def test_a_file_without_the_columns_or_with_blank_cells_keeps_what_the_glossary_holds() -> None:
    glossary_import(rows=_rows(_entity(year_end_month="3", currency="JPY")))
    glossary_import(rows=[(2, {"kind": "entity", "code": "TSMC", "name": "TSMC Ltd", "alias": "Taiwan Semi"})])
    glossary_import(rows=_rows(_entity(alias="TSM")))
    entity = Entity.objects.get(code="TSMC")
    assert (entity.year_end_month, entity.currency) == (3, "JPY")
    report = glossary_import(rows=_rows(_entity(year_end_month="12")))
    assert report.updated["entity"] == 1
    entity.refresh_from_db()
    assert (entity.year_end_month, entity.currency) == (12, "JPY")


@pytest.mark.parametrize(
    ("row", "error"),
    [
        (
            _entity(year_end_month="13"),
            "row 2: entity TSMC: year_end_month must be the number of the month the fiscal year ends in, "
            "1 to 12, not '13'",
        ),
        (_entity(year_end_month="0"), "not '0'"),
        (_entity(year_end_month="December"), "not 'December'"),
        (_entity(year_end_month="6.5"), "not '6.5'"),
        (
            _entity(currency="US$"),
            "row 2: entity TSMC: currency must be an ISO 4217 code of three letters (USD, EUR, CNY …), not 'US$'",
        ),
        (_entity(currency="EURO"), "not 'EURO'"),
        (
            {"kind": "metric", "code": "REVENUE", "name": "营业收入", "unit": "CNY_M", "currency": "CNY"},
            "row 2: only an entity has a currency; metric REVENUE cannot",
        ),
    ],
)
def test_a_bad_convention_is_a_row_numbered_error_and_nothing_is_written(row: dict[str, str], error: str) -> None:
    good = _entity("GOOD", year_end_month="12", currency="USD")
    with pytest.raises(ImportAborted) as aborted:
        glossary_import(rows=_rows(row, good))
    assert any(error in message for message in aborted.value.errors), aborted.value.errors
    assert not Entity.objects.exists()


def test_two_values_for_one_company_are_an_error() -> None:
    rows = _rows(_entity(currency="USD"), _entity(alias="TSM", currency="TWD"))
    with pytest.raises(ImportAborted, match="row 3: entity TSMC is in currency both 'USD' and 'TWD'"):
        glossary_import(rows=rows)


def test_the_command_reports_a_bad_month_without_a_stack_trace(tmp_path: Path) -> None:
    path = tmp_path / "glossary.csv"
    path.write_text("kind,code,name,alias,year_end_month\nentity,TSMC,TSMC Ltd,,Dec\n", encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_glossary", str(path), stdout=StringIO(), stderr=err)
    assert "row 2: entity TSMC: year_end_month must be" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_the_model_validates_the_conventions_and_the_database_bounds_the_month() -> None:
    entity = Entity(code="TSMC", name="TSMC Ltd", kind="peer", year_end_month=13, currency="usd")
    with pytest.raises(ValidationError) as invalid:
        entity.full_clean()
    assert set(invalid.value.message_dict) == {"year_end_month", "currency"}
    entity.year_end_month, entity.currency = 9, "USD"
    entity.full_clean()
    entity.save()
    with pytest.raises(IntegrityError), transaction.atomic():
        Entity.objects.filter(pk=entity.pk).update(year_end_month=0)


def test_a_curator_sets_the_conventions_in_admin_and_the_next_snapshot_has_them() -> None:
    entity = entity_make()
    client = Client()
    client.force_login(curator_make())
    url = f"/admin/facts/entity/{entity.pk}/change/"
    page = client.get(url)
    assert 'name="year_end_month"' in page.content.decode() and 'name="currency"' in page.content.decode()
    assert "公司财年结束的月份，1–12" in page.content.decode()
    data = {
        "code": "ACME_HK",
        "name": "ACME香港",
        "kind": "subsidiary",
        "year_end_month": "13",
        "currency": "HKD",
        "aliases-TOTAL_FORMS": "0",
        "aliases-INITIAL_FORMS": "0",
    }
    refused = client.post(url, data)
    assert refused.status_code == 200
    assert list(refused.context["adminform"].form.errors) == ["year_end_month"]
    saved = client.post(url, {**data, "year_end_month": "3"})
    assert saved.status_code == 302
    info = glossary_snapshot().entities["ACME_HK"]
    assert (info.year_end_month, info.currency) == (3, "HKD")
    listed = client.get("/admin/facts/entity/?currency=HKD")
    assert "ACME_HK" in listed.content.decode()
