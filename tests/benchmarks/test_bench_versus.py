"""`manage.py bench --versus`: the before/after table of two checkouts' runs, and a clear error
for a directory that is not a checkout (no benchmark runs here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmarks.report import versus_markdown


def run(side: str, backend: str, load: float, per_s: int, p50: float) -> dict:
    asked = {"n": 100, "p50_ms": p50, "p95_ms": p50 * 2, "wrong_answers": 0}
    return {
        "round": 1,
        "side": side,
        "backend": backend,
        "load": [load, load + 0.5],
        "db": {
            "imports": [
                {"rows": 20_000, "growth_mb": 0.5},
                {"rows": 1_000_000, "facts_per_s": per_s, "growth_mb": 16.2},
            ],
            "ask": {"n": 300, "p50_ms": 5.0, "p95_ms": 7.0, "wrong_answers": 0},
        },
        "computed": {
            "facts": 1_000_000,
            "entities": 5_000,
            "import_s": 20.5,
            "asks": {"growth": asked, "formula": asked, "ranking": asked},
        },
    }


def test_each_measure_shows_every_run_of_both_sides_with_its_load() -> None:
    lines = versus_markdown(
        {
            "before": "/base (45616b1)",
            "after": "/new (abc1234)",
            "runs": [run("before", "sqlite", 2.1, 31_000, 33.0), run("after", "sqlite", 2.3, 62_000, 9.5)],
        }
    )
    assert lines[0] == "Before: /base (45616b1); after: /new (abc1234)."
    imported = next(line for line in lines if line.startswith("| `import_facts`, 1,000,000 rows"))
    assert "| sqlite | 31,000/s (RSS +16.2 MB; +0.5 MB at 20,000) | 62,000/s" in imported
    ranking = next(line for line in lines if line.startswith("| ranking over 5,000 entities"))
    assert "33.0 / 66.0 ms (0 wrong of 105) | 9.5 / 19.0 ms (0 wrong of 105) |" in ranking
    assert any(line.endswith("| sqlite | 2.1–2.6 | 2.3–2.8 |") for line in lines)


def test_a_directory_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a RAGSpine checkout"):
        call_command("bench", "--versus", str(tmp_path))
