"""`aggregation` on a metric: curated in the glossary CSV and admin, blank for the
unit's default, and read into the snapshot the answers use."""

from __future__ import annotations

from pathlib import Path

import pytest

from facts.models import Metric
from facts.selectors import glossary_snapshot
from facts.services import ImportAborted, glossary_import, glossary_rows_read
from tests.factories import metric_make

pytestmark = pytest.mark.django_db

HEADER = "kind,code,name,alias,unit,entity_kind,parent,formula,aggregation\n"


def _import(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "glossary.csv"
    path.write_text(text, encoding="utf-8")
    return glossary_import(rows=glossary_rows_read(path))


def test_the_csv_sets_aggregation_and_a_blank_cell_keeps_it(tmp_path: Path) -> None:
    _import(
        tmp_path, HEADER + "metric,HEADCOUNT,员工人数,员工人数,COUNT,,,,end\nmetric,REVENUE,营业收入,营收,CNY_M,,,,\n"
    )
    assert Metric.objects.get(code="HEADCOUNT").aggregation == "end"
    _import(tmp_path, HEADER + "metric,HEADCOUNT,员工人数,员工数,COUNT,,,,\n")
    assert Metric.objects.get(code="HEADCOUNT").aggregation == "end"
    snapshot = glossary_snapshot()
    assert snapshot.metrics["HEADCOUNT"].adds_up == "end"
    assert snapshot.metrics["REVENUE"].adds_up == "sum"  # blank: from the unit


def test_an_unknown_aggregation_is_refused_with_its_row(tmp_path: Path) -> None:
    with pytest.raises(ImportAborted) as aborted:
        _import(tmp_path, HEADER + "metric,HEADCOUNT,员工人数,员工人数,COUNT,,,,average\n")
    assert "row 2" in str(aborted.value.errors if hasattr(aborted.value, "errors") else aborted.value)
    assert not Metric.objects.filter(code="HEADCOUNT").exists()


def test_a_percentage_defaults_to_none() -> None:
    metric_make("GROSS_MARGIN", "毛利率", unit="PCT")
    assert glossary_snapshot().metrics["GROSS_MARGIN"].adds_up == "none"
