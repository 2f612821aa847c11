from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from facts.commands import import_or_explain
from faq.services import faq_import, faq_rows_read


class Command(BaseCommand):
    help = "Import FAQ items from CSV or JSON (columns as in demo/faq.csv; aliases split on |)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        with import_or_explain(self, path):
            counts = faq_import(rows=faq_rows_read(path))
        self.stdout.write(
            f"faq: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
        )
