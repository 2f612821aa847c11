from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from documents.services import IngestError, document_ingest
from ingestion.formats import EXTENSIONS, format_of


class Command(BaseCommand):
    help = "Ingest documents (files or folders). Unchanged files are skipped; a failing file writes nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--sensitivity", choices=["PUBLIC", "INTERNAL", "RESTRICTED"], help="override classification"
        )
        parser.add_argument("--name", help="store a single file under this document name")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        files: list[Path] = []
        for path in options["paths"]:
            if path.is_dir():
                files += sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
            elif path.is_file():
                files.append(path)
            else:
                raise CommandError(f"{path}: no such file or folder")
        if options["name"] and len(files) != 1:
            raise CommandError("--name needs exactly one file")
        failed = 0
        disable = options["no_progress"] or not sys.stderr.isatty()
        for path in tqdm(files, unit="file", disable=disable, file=sys.stderr):
            name = options["name"] or path.name
            if format_of(path.name) is None:
                self.stderr.write(f"{path}: {path.suffix or 'this'} files are not supported ({', '.join(EXTENSIONS)})")
                failed += 1
                continue
            try:
                outcome = document_ingest(name=name, data=path.read_bytes(), sensitivity=options["sensitivity"])
            except IngestError as error:
                self.stderr.write(f"{path}: failed, nothing written: {error}")
                failed += 1
                continue
            self.stdout.write(outcome.summary())
        if failed:
            raise CommandError(f"{failed} of {len(files)} file(s) failed")
