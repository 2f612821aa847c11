"""`import_glossary` with the optional `formula` column and alias-only rows."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from facts.models import Alias, Channel, Entity, Metric
from facts.selectors import glossary_snapshot, glossary_token
from facts.services import ImportAborted, glossary_import, glossary_rows_read
from tests.factories import metric_make

pytestmark = pytest.mark.django_db

HEADER = "kind,code,name,alias,unit,entity_kind,parent,formula\n"
OLD_HEADER = "kind,code,name,alias,unit,entity_kind,parent\n"


@pytest.fixture
def stored_metrics() -> None:
    metric_make("REVENUE", "营业收入")
    metric_make("OPERATING_PROFIT", "营业利润")
    metric_make("NET_PROFIT", "净利润")
    metric_make("NET_MARGIN", "净利率", unit="PCT")
    Metric.objects.filter(code="NET_MARGIN").update(formula="NET_PROFIT / REVENUE")


def _import(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "glossary.csv"
    path.write_text(text, encoding="utf-8")
    return glossary_import(rows=glossary_rows_read(path))


def _state() -> tuple[object, ...]:
    return (
        Entity.objects.count(),
        Channel.objects.count(),
        Alias.objects.count(),
        sorted(Metric.objects.values_list("code", "name", "unit_id", "formula")),
    )


def test_a_file_without_the_formula_column_imports_and_keeps_formulas(stored_metrics, tmp_path: Path) -> None:
    report = _import(
        tmp_path,
        OLD_HEADER + "metric,GROSS_PROFIT,毛利,毛利润,CNY_M,,\nmetric,NET_MARGIN,净利率,净利润率,PCT,,\n",
    )
    assert report.created["metric"] == 1 and report.created["alias"] == 2
    assert Metric.objects.get(code="GROSS_PROFIT").formula == ""
    assert Metric.objects.get(code="NET_MARGIN").formula == "NET_PROFIT / REVENUE"


def test_formula_metrics_may_use_formula_metrics_and_reach_the_snapshot(stored_metrics, tmp_path: Path) -> None:
    token = glossary_token()
    report = _import(
        tmp_path,
        HEADER + "metric,OPERATING_MARGIN,营业利润率,营业利润率,PCT,,,OPERATING_PROFIT / REVENUE\n"
        "metric,OPERATING_MARGIN,营业利润率,operating margin,PCT,,,OPERATING_PROFIT/REVENUE\n"
        "metric,OPERATING_MARGIN,营业利润率,经营利润率,PCT,,,\n"
        "metric,MARGIN_GAP,利润率差,利润率差,PCT,,,OPERATING_MARGIN - NET_MARGIN\n",
    )
    assert report.created == {"entity": 0, "metric": 2, "channel": 0, "alias": 4}
    assert glossary_token() != token
    formulas = glossary_snapshot().formula_metrics
    assert set(formulas) == {"NET_MARGIN", "OPERATING_MARGIN", "MARGIN_GAP"}
    assert formulas["OPERATING_MARGIN"].formula.text == "OPERATING_PROFIT / REVENUE"  # the first row's text
    assert formulas["MARGIN_GAP"].formula.codes == ("OPERATING_MARGIN", "NET_MARGIN")
    assert formulas["MARGIN_GAP"].unit == "PCT"
    assert glossary_snapshot().resolve("metric", "经营利润率") == "OPERATING_MARGIN"


def test_a_formula_in_the_file_replaces_the_stored_one(stored_metrics, tmp_path: Path) -> None:
    report = _import(tmp_path, HEADER + "metric,NET_MARGIN,净利率,,PCT,,,NET_PROFIT / REVENUE * 1\n")
    assert report.updated["metric"] == 1
    assert glossary_snapshot().formula_metrics["NET_MARGIN"].formula.text == "NET_PROFIT / REVENUE * 1"


def test_alias_only_rows_fill_name_and_unit_from_the_glossary_or_the_file(stored_metrics, tmp_path: Path) -> None:
    report = _import(
        tmp_path,
        HEADER + "metric,REVENUE,,营收,,,,\n"
        "metric,NET_MARGIN,,净利润率,,,,\n"
        "metric,CAPEX,,capex,,,,\n"
        "metric,CAPEX,资本开支,资本支出,CNY_M,,,\n"
        "channel,ONLINE,线上,线上,,,,\n"
        "channel,ONLINE,,电商,,,,\n",
    )
    assert report.created == {"entity": 0, "metric": 1, "channel": 1, "alias": 6}
    assert report.updated == {"entity": 0, "metric": 0, "channel": 0}
    assert Metric.objects.get(code="REVENUE").name == "营业收入"
    assert Metric.objects.get(code="NET_MARGIN").formula == "NET_PROFIT / REVENUE"
    assert (Metric.objects.get(code="CAPEX").name, Metric.objects.get(code="CAPEX").unit_id) == ("资本开支", "CNY_M")
    glossary = glossary_snapshot()
    assert glossary.resolve("metric", "净利润率") == "NET_MARGIN" and glossary.resolve("channel", "电商") == "ONLINE"


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ("metric,NEW_ONE,,新指标,CNY_M,,,\n", ["row 2: name is empty, and metric NEW_ONE is not in the glossary yet"]),
        ("metric,NEW_ONE,新指标,新指标,,,,\n", ["row 2: metric NEW_ONE needs a unit code"]),
        ("metric,REVENUE,,营收,CNY_M,,,\nmetric,REVENUE,,收入,USD_M,,,\n", ["row 3: metric REVENUE is in unit both"]),
        ("metric,REVENUE,营业收入,营收,,,,\nmetric,REVENUE,收入,收,,,,\n", ["row 3: metric REVENUE is named both"]),
        (
            "metric,BAD_MARGIN,坏指标,坏指标,PCT,,,NET_PROFIT / TURNOVER\n",
            ["row 2: metric BAD_MARGIN formula 'NET_PROFIT / TURNOVER': unknown metric code TURNOVER at column 14"],
        ),
        (
            "metric,BAD_MARGIN,坏指标,坏指标,PCT,,,(NET_PROFIT / REVENUE\n"
            "metric,BAD_MARGIN,坏指标,坏,PCT,,,(NET_PROFIT / REVENUE\n",
            ["rows 2, 3: metric BAD_MARGIN formula '(NET_PROFIT / REVENUE': missing ')' for '(' at column 1"],
        ),
        (
            "metric,A_RATIO,甲,甲,PCT,,,B_RATIO * 2\nmetric,B_RATIO,乙,乙,PCT,,,A_RATIO / 2\n",
            [
                "row 2: metric A_RATIO formula 'B_RATIO * 2': cycle A_RATIO → B_RATIO → A_RATIO",
                "row 3: metric B_RATIO formula 'A_RATIO / 2': cycle B_RATIO → A_RATIO → B_RATIO",
            ],
        ),
        (  # a cycle through a formula already in the glossary
            "metric,NET_PROFIT,,,,,,NET_MARGIN * REVENUE\n",
            [
                "row 2: metric NET_PROFIT formula 'NET_MARGIN * REVENUE': cycle NET_PROFIT → NET_MARGIN → NET_PROFIT",
                "metric NET_MARGIN (formula 'NET_PROFIT / REVENUE', already in the glossary): cycle",
            ],
        ),
        ("entity,ACME_HK,ACME香港,香港,,subsidiary,,REVENUE * 2\n", ["row 2: only a metric has a formula; entity"]),
        ("channel,ONLINE,线上,线上,,,,REVENUE\n", ["row 2: only a metric has a formula; channel ONLINE cannot"]),
        (
            "metric,X_RATIO,比率,比率,PCT,,,NET_PROFIT / REVENUE\n"
            "metric,X_RATIO,比率,率,PCT,,,OPERATING_PROFIT / REVENUE\n",
            ["row 3: metric X_RATIO has two formulas: 'NET_PROFIT / REVENUE' (row 2) and 'OPERATING_PROFIT / REVENUE'"],
        ),
        ("metric,REVENUE,,营收,,,,,surplus\n", ["row 2: more values than the header has columns"]),
    ],
    ids=[
        "new-code-without-name",
        "new-metric-without-unit",
        "two-units",
        "two-names",
        "unknown-code",
        "syntax-error",
        "cycle-in-file",
        "cycle-through-stored",
        "formula-on-entity",
        "formula-on-channel",
        "two-formulas",
        "extra-values",
    ],
)
def test_bad_rows_are_refused_with_row_numbers_and_nothing_is_written(
    stored_metrics, tmp_path: Path, rows: str, expected: list[str]
) -> None:
    before, token = _state(), glossary_token()
    with pytest.raises(ImportAborted) as aborted:
        _import(tmp_path, HEADER + rows + "metric,CAPEX,资本开支,资本开支,CNY_M,,,\n")
    errors = aborted.value.errors
    assert len(errors) == len(expected), errors
    for start in expected:
        assert len([e for e in errors if e.startswith(start)]) == 1, (start, errors)
    assert _state() == before and glossary_token() == token


def test_the_command_prints_each_formula_error_with_its_row(stored_metrics, tmp_path: Path) -> None:
    path = tmp_path / "glossary.csv"
    path.write_text(
        HEADER + "metric,GOOD_MARGIN,好指标,好指标,PCT,,,OPERATING_PROFIT / REVENUE\n"
        "metric,BAD_MARGIN,坏指标,坏指标,PCT,,,OPERATING_PROFIT / / REVENUE\n",
        encoding="utf-8",
    )
    err = StringIO()
    with pytest.raises(CommandError, match="1 error"):
        call_command("import_glossary", str(path), stdout=StringIO(), stderr=err)
    assert "row 3: metric BAD_MARGIN formula 'OPERATING_PROFIT / / REVENUE': unexpected '/' at column 20" in (
        err.getvalue()
    )
    assert not Metric.objects.filter(code__in=["GOOD_MARGIN", "BAD_MARGIN"]).exists()


def test_the_demo_glossary_defines_its_margins(demo) -> None:
    formulas = glossary_snapshot().formula_metrics
    assert {code: m.formula.text for code, m in formulas.items()} == {
        "OPERATING_MARGIN": "OPERATING_PROFIT / REVENUE",
        "NET_MARGIN": "NET_PROFIT / REVENUE",
    }
    assert glossary_snapshot().resolve("metric", "净利率") == "NET_MARGIN"


def test_saving_a_formula_bumps_the_glossary_version(stored_metrics) -> None:
    assert set(glossary_snapshot().formula_metrics) == {"NET_MARGIN"}
    token = glossary_token()
    metric = Metric.objects.get(code="OPERATING_PROFIT")
    metric.formula = "REVENUE - 1"
    metric.save()
    assert glossary_token() != token
    assert set(glossary_snapshot().formula_metrics) == {"NET_MARGIN", "OPERATING_PROFIT"}
