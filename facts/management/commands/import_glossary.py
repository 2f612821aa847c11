from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from facts.commands import import_or_explain
from facts.services import glossary_import, glossary_rows_read


class Command(BaseCommand):
    help = (
        "Import glossary rows (kind,code,name,alias,unit,entity_kind,parent[,formula][,aggregation][,sign]"
        "[,year_end_month][,currency]), all or nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        with import_or_explain(self, path):
            report = glossary_import(rows=glossary_rows_read(path))
        created = ", ".join(f"{n} {kind}" for kind, n in report.created.items())
        updated = ", ".join(f"{n} {kind}" for kind, n in report.updated.items())
        converted = f"; {report.facts_converted} fact(s) converted to a new sign" if report.facts_converted else ""
        self.stdout.write(
            f"glossary: created {created}; updated {updated}; {report.aliases_unchanged} alias(es) unchanged"
            + converted
        )
