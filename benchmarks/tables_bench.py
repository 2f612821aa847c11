"""TAT-QA dev tables as real layouts: what the extractor makes of them, per format.

Renders every table of `../shared/bench/tatqa_dataset_dev.json` as xlsx, docx and PDF
(`benchmarks.tables.render`), runs `ingestion.extract` and `ingestion.document_facts` on each
with a glossary that names every row label, and compares every number cell with the oracle
(`benchmarks.tables.oracle`). Prints a markdown table (all tables, then the selected ones whose
scale is decidable from print) and, as its last line, the JSON result.

Run: `python -m benchmarks.tables_bench [--limit N] [--formats xlsx,docx,pdf]`
(`manage.py bench --tables` runs it in a fresh process).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import Any

from benchmarks.tables import DATASET, items_load
from benchmarks.tables.render import FORMATS
from benchmarks.tables.score import format_score, truths_and_glossary


def run(*, limit: int | None = None, formats: tuple[str, ...] = FORMATS) -> dict[str, Any]:
    items = items_load()
    if items is None:
        raise SystemExit(f"{DATASET} is missing: the TAT-QA dev split is needed for this benchmark.")
    items = items[:limit] if limit else items
    truths, glossary = truths_and_glossary(items)
    scores = [format_score(items, truths, glossary, fmt) for fmt in formats]
    return {
        "date": date.today().isoformat(),
        "tables": len(truths),
        "selected_tables": sum(t.selected for t in truths),
        "metrics": len(glossary.snapshot.metrics),
        "formats": {score.fmt: score.as_dict() for score in scores},
    }


def markdown(result: dict[str, Any]) -> str:
    """One row per format and table set: exact approved, wrong approved, pending, missing."""
    lines = [
        "| format | tables | scored cells | exact approved | value exact, any scale | wrong approved "
        "| pending | missing | outside the oracle | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for which, title in (("all", "all"), ("selected", "selected")):
        for fmt, score in result["formats"].items():
            figures = score[which]
            outside = sum(figures["outside"].values())
            lines.append(
                f"| {fmt}, {title} | {figures['tables']} | {figures['scored_cells']:,} "
                f"| {figures['exact_approved']:,} ({figures['exact_share']:.1%}) | {figures['value_exact']:,} "
                f"| {figures['wrong_approved']:,} | {figures['pending']:,} | {figures['missing']:,} | {outside:,} "
                f"| {score['seconds'] if which == 'all' else '—'} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N tables")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated, of xlsx,docx,pdf")
    args = parser.parse_args(argv)
    formats = tuple(f for f in args.formats.split(",") if f)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        parser.error(f"unknown format(s): {', '.join(unknown)}; choose from {', '.join(FORMATS)}")
    result = run(limit=args.limit, formats=formats)
    print(markdown(result))
    for fmt, score in result["formats"].items():
        print(f"\n{fmt}: top pending reasons (all tables): {score['all']['top_pending_reasons']}")
    sys.stdout.write(json.dumps(result, ensure_ascii=False, default=str) + "\n")


if __name__ == "__main__":
    main()
