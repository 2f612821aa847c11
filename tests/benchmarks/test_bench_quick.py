"""`manage.py bench --quick` alone runs every measure at a tenth of its size (the computed shapes
with the series among them, the narrative asks and the lexical scale), and `--quick` with one
measure named runs that one alone. No benchmark runs here: each is replaced by a recorder."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from benchmarks import retrieval_bench
from benchmarks.management.commands import bench


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path) -> dict[str, list[Any]]:
    settings.BASE_DIR = tmp_path
    runs: dict[str, list[Any]] = {"modules": [], "measures": []}

    def module_run(command: list[str], what: str, cwd: Path | None = None) -> dict[str, Any]:
        runs["modules"].append(command)
        return {}

    def measure(name: str) -> Any:
        def run(*args: Any, **kwargs: Any) -> dict[str, Any]:
            runs["measures"].append(name)
            return {"semantic": {}}

        return run

    monkeypatch.setattr(bench, "_module_run", module_run)
    monkeypatch.setattr(bench, "markdown", lambda results: "")
    for name in ("bench_parse", "bench_db", "bench_search"):
        monkeypatch.setattr(bench.Command, name, measure(name))
    monkeypatch.setattr(retrieval_bench, "run", measure("retrieval"))
    monkeypatch.setattr(retrieval_bench, "markdown", lambda results: "")
    monkeypatch.setattr(retrieval_bench, "semantic_markdown", lambda results: "")
    return runs


def module(command: list[str]) -> str:
    return command[command.index("-m") + 1]


def test_quick_alone_runs_every_measure_the_series_narrative_and_lexical_scale_among_them(ran: dict) -> None:
    call_command("bench", "--quick", "--backend", "sqlite", stdout=StringIO())
    modules = {module(command): command for command in ran["modules"]}
    assert set(modules) == {
        "benchmarks.computed_backend",
        "benchmarks.narrative_ask",
        "benchmarks.lexical_scale",
        "benchmarks.ingest_bench",
        "benchmarks.tables_bench",
    }
    computed = modules["benchmarks.computed_backend"]
    assert "--shapes" not in computed and "--series-entities" in computed  # every shape, the series at a tenth
    assert modules["benchmarks.lexical_scale"][modules["benchmarks.lexical_scale"].index("--chunks") + 1] == "10000"
    assert sorted(ran["measures"]) == ["bench_db", "bench_parse", "bench_search", "bench_search", "retrieval"]


def test_quick_with_one_measure_runs_that_one_alone(ran: dict) -> None:
    call_command("bench", "--quick", "--series", "--backend", "sqlite", stdout=StringIO())
    assert [module(command) for command in ran["modules"]] == ["benchmarks.computed_backend"]
    computed = ran["modules"][0]
    assert computed[computed.index("--shapes") + 1] == "series" and "--series-entities" in computed
    assert ran["measures"] == []


def test_the_table_names_every_computed_shape() -> None:
    from benchmarks.computed_backend import SHAPES

    figures = {"n": 1, "p50_ms": 1.0, "p95_ms": 1.0, "wrong_answers": 0, "wrong_examples": []}
    computed = {"backend": "sqlite", "facts": 10, "entities": 2, "asks": {shape: figures for shape in SHAPES}}
    table = bench.markdown({"computed": [computed]})
    assert table.count("`/v1/ask` computed,") == len(SHAPES)
