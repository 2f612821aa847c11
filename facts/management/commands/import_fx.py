from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from facts.commands import import_or_explain
from facts.services import fx_rates_import, fx_rows_read


class Command(BaseCommand):
    help = (
        "Import curated FX rates (base,quote,period,rate,rate_type[,as_of,source]): upsert on the pair, "
        "rate type and period, all or nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        if path.suffix.lower() != ".csv":
            raise CommandError(f"{path}: import_fx reads .csv files")
        with import_or_explain(self, path):
            report = fx_rates_import(rows=fx_rows_read(path), source_name=path.name)
        self.stdout.write(f"fx rates: {report.created} created, {report.updated} updated, {report.unchanged} unchanged")
