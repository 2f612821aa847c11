from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from facts.importing import facts_import, rows_from_csv
from facts.models import CompanyProfile
from facts.roles import CURATOR, roles_ensure
from facts.services import glossary_import, glossary_rows_read
from faq.services import faq_import, faq_rows_read
from retrieval.services import text_document_ingest


class Command(BaseCommand):
    help = "Load the ACME demo data set (glossary, facts, users). Safe to run again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--demo-dir", type=Path, default=settings.RAGSPINE["DEMO_DIR"])

    def handle(self, *args: Any, **options: Any) -> None:
        demo: Path = options["demo_dir"]
        manifest = json.loads((demo / "manifest.json").read_text(encoding="utf-8"))
        with transaction.atomic():
            glossary = glossary_import(rows=glossary_rows_read(demo / "glossary.csv"))
            CompanyProfile(home_company_name=manifest["company"]["home_company_name"]).save()
            facts = facts_import(rows=rows_from_csv(demo / "facts.csv"), source_name="facts.csv")
            users = self._users(manifest["users"])
            faq = faq_import(rows=faq_rows_read(demo / "faq.csv"))
        documents = self._narrative(demo, manifest["narrative_documents"])
        self.stdout.write(
            f"glossary: {sum(glossary.created.values())} created, {glossary.aliases_unchanged} aliases unchanged"
        )
        self.stdout.write(f"facts: {facts.created} created, {facts.updated} updated, {facts.unchanged} unchanged")
        for line in documents:
            self.stdout.write(line)
        self.stdout.write(f"faq: {faq['created']} created, {faq['updated']} updated, {faq['unchanged']} unchanged")
        for username, password in users:
            if password:
                self.stdout.write(f"user {username} created, password: {password}  (shown once)")
            else:
                self.stdout.write(f"user {username} exists; password unchanged")

    def _narrative(self, demo: Path, specs: list[dict[str, str]]) -> list[str]:
        """The narrative documents, from their .md text, under the manifest's file names.

        Until office ingestion lands they are stored as text; the document names, and so the
        citations, are already the ones the office files will have.
        """
        lines = []
        for spec in specs:
            data = (demo / spec["text"]).read_bytes()
            outcome = text_document_ingest(
                name=spec["file"], data=data, sensitivity=spec["sensitivity"], text_name=spec["text"]
            )
            lines.append(f"document {spec['file']}: {outcome.status} ({outcome.chunks} chunks, {spec['sensitivity']})")
        return lines

    def _users(self, specs: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
        analyst_group, curator_group = roles_ensure()
        restricted = Permission.objects.get(codename="can_view_restricted", content_type__app_label="facts")
        model = get_user_model()
        out: list[tuple[str, str | None]] = []
        for spec in specs:
            user, created = model.objects.get_or_create(username=spec["username"])
            password = None
            if created:
                password = secrets.token_urlsafe(12)
                user.set_password(password)
            user.is_staff = spec["role"] == CURATOR
            user.save()
            user.groups.add(curator_group if spec["role"] == CURATOR else analyst_group)
            if spec.get("restricted_clearance"):
                user.user_permissions.add(restricted)
            else:
                user.user_permissions.remove(restricted)
            out.append((user.username, password))
        return out
