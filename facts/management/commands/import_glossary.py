from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from facts.services import ImportAborted, glossary_import, glossary_rows_read


class Command(BaseCommand):
    help = "Import glossary rows (kind,code,name,alias,unit,entity_kind,parent), all or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            report = glossary_import(rows=glossary_rows_read(path))
        except ImportAborted as aborted:
            for error in aborted.errors:
                self.stderr.write(error)
            raise CommandError(f"{path}: {aborted.total_errors} error(s); nothing was imported") from None
        except UnicodeDecodeError:
            raise CommandError(f"{path}: not UTF-8 text; nothing was imported") from None
        created = ", ".join(f"{n} {kind}" for kind, n in report.created.items())
        updated = ", ".join(f"{n} {kind}" for kind, n in report.updated.items())
        self.stdout.write(
            f"glossary: created {created}; updated {updated}; {report.aliases_unchanged} alias(es) unchanged"
        )
