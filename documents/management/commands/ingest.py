from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from documents.services import ContextChoice, IngestError, context_set_merge, document_ingest
from facts.selectors import glossary_snapshot
from ingestion.context import REPORT_TYPES
from ingestion.formats import EXTENSIONS, format_of


class Command(BaseCommand):
    help = (
        "Ingest documents (files or folders). Unchanged files are skipped unless --force; a failing file "
        "writes nothing. --entity/--period/--report-type set the context by hand."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--sensitivity", choices=["PUBLIC", "INTERNAL", "RESTRICTED"], help="override classification"
        )
        parser.add_argument("--name", help="store a single file under this document name")
        parser.add_argument("--no-progress", action="store_true")
        parser.add_argument("--entity", help="the issuer's entity code, over what the document says")
        parser.add_argument(
            "--period", help="the report's period (FY2019, 2019H1, 2019Q3), over what the document says"
        )
        parser.add_argument("--report-type", choices=list(REPORT_TYPES), help="over what the document says")
        parser.add_argument(
            "--force", action="store_true", help="ingest unchanged files again, with the current glossary"
        )

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
        choice = ContextChoice(
            issuer=options["entity"] or "",
            report_type=options["report_type"] or "",
            period=options["period"] or "",
            by=f"manage.py ingest ({getpass.getuser()})",
        )
        try:
            context_set_merge(stored={}, choice=choice, entities=glossary_snapshot().entities)
        except IngestError as error:
            raise CommandError(str(error)) from None
        failed = 0
        disable = options["no_progress"] or not sys.stderr.isatty()
        for path in tqdm(files, unit="file", disable=disable, file=sys.stderr):
            name = options["name"] or path.name
            if format_of(path.name) is None:
                self.stderr.write(f"{path}: {path.suffix or 'this'} files are not supported ({', '.join(EXTENSIONS)})")
                failed += 1
                continue
            try:
                outcome = document_ingest(
                    name=name,
                    data=path.read_bytes(),
                    sensitivity=options["sensitivity"],
                    context=choice if choice.given() else None,
                    force=options["force"],
                )
            except IngestError as error:
                self.stderr.write(f"{path}: failed, nothing written: {error}")
                failed += 1
                continue
            self.stdout.write(outcome.summary())
        if failed:
            raise CommandError(f"{failed} of {len(files)} file(s) failed")
