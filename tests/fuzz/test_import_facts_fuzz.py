"""Fuzzing `import_facts`: whatever the rows, an import writes all of them or none of them (or,
with `--skip-invalid`, exactly the valid ones), every rejection names its row, and no input
raises anything but the import's own clean error."""

from __future__ import annotations

import csv
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facts.models import FactMetric
from facts.services import ImportAborted
from facts.services.fact_import import facts_import, rows_from_csv

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).parent / "corpus" / "facts_rows.csv"
HEADER = [
    "entity",
    "metric",
    "period",
    "channel",
    "value",
    "unit",
    "source_doc",
    "locator",
    "valid_as_of",
    "sensitivity",
    "document",
]

GOOD = {
    "entity": ["ACME_HK", "香港", "ACME中国内地", "ACME_SEA"],
    "metric": ["REVENUE", "营业收入", "毛利率", "NET_PROFIT"],
    "period": ["FY2025", "2025H1", "2025Q4", "2024年"],
    "channel": ["", "TOTAL", "线上"],
    "value": ["1", "24015.8", "-1402.6", "(1,234.5)", "0.001"],
    "unit": ["CNY_M", "百万元", "PCT"],
    "source_doc": ["", "upload.csv"],
    "locator": ["", "row=1"],
    "valid_as_of": ["", "2025-12-31"],
    "sensitivity": ["", "INTERNAL", "public", "RESTRICTED"],
    "document": [""],
}
BAD = {
    "entity": ["华为", "NOPE", "\u200b"],
    "metric": ["NOT_A_METRIC", "收入增长的原因"],
    "period": ["去年", "2025Q5", "1989", "FY2025 FY2024"],
    "channel": ["NOT_A_CHANNEL"],
    "value": ["NaN", "inf", "1e999999", "1.2.3", "abc", "—"],
    "unit": ["NOT_A_UNIT"],
    "source_doc": ["x" * 300],
    "locator": ["y" * 300],
    "valid_as_of": ["2025-13-40", "yesterday"],
    "sensitivity": ["SECRET"],
    "document": ["no-such-report.pdf"],
}


def cell(column: str) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(GOOD[column]),
        st.sampled_from(GOOD[column]),  # twice as likely as a bad cell
        st.sampled_from(BAD[column]),
        st.text(max_size=12),
    )


ROWS = st.lists(st.tuples(*(cell(column) for column in HEADER)), min_size=1, max_size=12)
FUZZ = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture
def glossary(db: Any) -> None:
    call_command("import_glossary", "demo/glossary.csv", stdout=StringIO())


def _numbered(rows: list[tuple[str, ...]]) -> list[tuple[int, tuple[str, ...]]]:
    return [(number, tuple(c.strip() for c in row)) for number, row in enumerate(rows, start=2) if any(row)]


def _import(rows: list[tuple[str, ...]], *, skip_invalid: bool) -> tuple[Any, int]:
    """Run one import inside a savepoint that is rolled back, so each example starts clean."""
    with transaction.atomic():
        before = FactMetric.objects.count()
        try:
            outcome: Any = facts_import(rows=_numbered(rows), source_name="fuzz.csv", skip_invalid=skip_invalid)
        except ImportAborted as aborted:
            outcome = aborted
        written = FactMetric.objects.count() - before
        transaction.set_rollback(True)
    return outcome, written


@FUZZ
@given(ROWS)
def test_an_import_writes_every_row_or_none(glossary: None, rows: list[tuple[str, ...]]) -> None:
    outcome, written = _import(rows, skip_invalid=False)
    if isinstance(outcome, ImportAborted):
        assert written == 0  # atomic: one bad row and nothing is written
        assert outcome.errors and all(error.startswith("row ") for error in outcome.errors)
    else:
        assert outcome.rejected == 0
        assert outcome.created == written
        assert outcome.created + outcome.updated + outcome.unchanged == len(_numbered(rows))


@FUZZ
@given(ROWS)
def test_skip_invalid_writes_exactly_the_valid_rows(glossary: None, rows: list[tuple[str, ...]]) -> None:
    report, written = _import(rows, skip_invalid=True)
    numbered = _numbered(rows)
    assert report.created + report.updated + report.unchanged + report.rejected == len(numbered)
    assert report.created == written
    reported = {int(error.split(":")[0].removeprefix("row ")) for error in report.errors}
    assert reported <= {number for number, _ in numbered}


def test_the_corpus_file_aborts_cleanly_and_skip_invalid_keeps_the_good_rows(glossary: None) -> None:
    rows = list(rows_from_csv(CORPUS))
    with pytest.raises(CommandError, match="invalid row"):
        call_command("import_facts", str(CORPUS), stdout=StringIO(), stderr=StringIO())
    assert FactMetric.objects.count() == 0
    out = StringIO()
    call_command("import_facts", str(CORPUS), "--skip-invalid", stdout=out, stderr=StringIO())
    written = FactMetric.objects.count()
    assert 0 < written < len(rows)
    assert FactMetric.objects.get(entity_id="ACME_HK", metric_id="REVENUE", period="2025", channel_id="TOTAL")


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe\x00garbage",
        b"entity,metric\nACME_HK,REVENUE\n",
        b"entity,metric,period,value,unit\n" * 3,
    ],
    ids=["empty", "not utf-8", "missing columns", "header only"],
)
def test_broken_files_are_refused_with_a_message(glossary: None, tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.csv"
    path.write_bytes(content)
    try:
        call_command("import_facts", str(path), stdout=StringIO(), stderr=StringIO())
    except CommandError as error:
        assert str(error) and "Traceback" not in str(error)
    assert FactMetric.objects.count() == 0


def test_generated_rows_round_trip_through_a_real_csv_file(glossary: None, tmp_path: Path) -> None:
    path = tmp_path / "facts.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerow(["香港", "营业收入", "2025年", "", "24,015.8", "百万元", "", "", "", ""])
    call_command("import_facts", str(path), stdout=StringIO())
    fact = FactMetric.objects.get()
    assert (fact.entity_id, fact.metric_id, str(fact.value), fact.unit_id) == ("ACME_HK", "REVENUE", "24015.8", "CNY_M")
