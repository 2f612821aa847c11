from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.evaluation import GATES, baseline_regressions, golden_evaluate

BASELINES = Path(settings.BASE_DIR) / "eval"


def baseline_default(golden: Path) -> Path:
    """`eval/baseline.json` for `golden.jsonl`, `eval/baseline-<name>.json` for any other set."""
    return BASELINES / ("baseline.json" if golden.stem == "golden" else f"baseline-{golden.stem}.json")


class Command(BaseCommand):
    help = "Run the golden set and report the golden-set measures; fail if any falls below the baseline."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--golden", type=Path, required=True, help="golden.jsonl")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--baseline",
            type=Path,
            help="stored baseline (the ratchet); default eval/baseline.json for golden.jsonl, "
            "eval/baseline-<name>.json for <name>.jsonl",
        )
        parser.add_argument(
            "--write-baseline",
            action="store_true",
            help="store this run as the new baseline, unless it falls below the stored one (the ratchet only rises)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        golden: Path = options["golden"]
        if not golden.is_file():
            raise CommandError(f"{golden}: no such file")
        try:
            report = golden_evaluate(golden).as_dict()
        except ValueError as error:
            raise CommandError(str(error)) from None
        baseline_path: Path = options["baseline"] or baseline_default(golden)
        problems = []
        if baseline_path.is_file():
            problems = baseline_regressions(report, json.loads(baseline_path.read_text(encoding="utf-8")))
        if options["write_baseline"] and not problems:
            stored = {k: report[k] for k in ("gates", "fabrication_count", "passed")}
            baseline_path.write_text(json.dumps(stored, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        report["regressions"] = problems
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
        else:
            for name in GATES:
                value = report["gates"][name]
                self.stdout.write(f"{name:32} {'n/a' if value is None else f'{value:.3f}'}")
            self.stdout.write(f"{'fabrication_count':32} {report['fabrication_count']}")
            self.stdout.write(
                f"{'latency p50 / p95 (ms)':32} {report['latency_ms']['p50']} / {report['latency_ms']['p95']}"
            )
            self.stdout.write(f"passed {len(report['passed'])} of {len(report['passed']) + len(report['failed'])}")
            for case_id, failures in report["failed"].items():
                self.stdout.write(f"  FAIL {case_id}: {'; '.join(failures)}")
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError(f"{len(problems)} regression(s) against {baseline_path}")
