from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from facts.services import ImportAborted
from faq.services import faq_import, faq_rows_read


class Command(BaseCommand):
    help = "Import FAQ items from CSV or JSON (columns as in demo/faq.csv; aliases split on |)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            counts = faq_import(rows=faq_rows_read(path))
        except ImportAborted as aborted:
            for error in aborted.errors:
                self.stderr.write(error)
            raise CommandError(f"{path}: {aborted.total_errors} error(s); nothing was imported") from None
        except UnicodeDecodeError:
            raise CommandError(f"{path}: not UTF-8 text; nothing was imported") from None
        self.stdout.write(
            f"faq: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
        )
