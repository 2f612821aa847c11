from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from facts.commands import import_or_explain
from facts.services.fact_import import facts_import, rows_count, rows_from_csv, rows_from_xlsx


class Command(BaseCommand):
    help = "Import long-format facts from CSV or XLSX: upsert on the natural key, all or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--skip-invalid", action="store_true", help="import the valid rows and report the rest")
        parser.add_argument("--create-missing", action="store_true", help="create unknown entities and metrics")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".xlsx"):
            raise CommandError(f"{path}: import_facts reads .csv or .xlsx files")
        rows = rows_from_csv(path) if suffix == ".csv" else rows_from_xlsx(path)
        disable = options["no_progress"] or not sys.stderr.isatty()
        with (
            import_or_explain(self, path, what="invalid row(s)"),
            tqdm(total=rows_count(path), unit="row", disable=disable, file=sys.stderr) as bar,
        ):
            report = facts_import(
                rows=rows,
                source_name=path.name,
                skip_invalid=options["skip_invalid"],
                create_missing=options["create_missing"],
                progress=bar.update,
            )
        for error in report.errors:
            self.stderr.write(f"skipped {error}")
        if report.created_entities or report.created_metrics:
            self.stdout.write(
                f"created entities: {', '.join(report.created_entities) or '-'}; "
                f"created metrics: {', '.join(report.created_metrics) or '-'}"
            )
        self.stdout.write(
            f"facts: {report.created} created, {report.updated} updated, {report.unchanged} unchanged"
            + (f", {report.rejected} rejected" if report.rejected else "")
        )
