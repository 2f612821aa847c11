from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from demo.files import demo_files_build
from documents.services import document_ingest
from facts.models import CompanyProfile
from facts.roles import password_generate, user_role_set
from facts.services import glossary_import, glossary_rows_read
from faq.services import faq_import, faq_rows_read
from retrieval.embedders import EmbedderError, embedder_build
from retrieval.services import chunks_embed


@lru_cache(maxsize=2)
def _demo_files(demo: str) -> dict[str, bytes]:
    """The generated office files (deterministic, so built once per process)."""
    return demo_files_build(Path(demo))


class Command(BaseCommand):
    help = "Load the ACME demo data set (glossary, office documents → facts and chunks, FAQ, users). Safe to run again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--demo-dir", type=Path, default=settings.RAGSPINE["DEMO_DIR"])

    def handle(self, *args: Any, **options: Any) -> None:
        demo: Path = options["demo_dir"]
        manifest = json.loads((demo / "manifest.json").read_text(encoding="utf-8"))
        with transaction.atomic():
            glossary = glossary_import(rows=glossary_rows_read(demo / "glossary.csv"))
            CompanyProfile(home_company_name=manifest["company"]["home_company_name"]).save()
            users = self._users(manifest["users"])
            faq = faq_import(rows=faq_rows_read(demo / "faq.csv"))
        documents = self._documents(demo, manifest)
        self.stdout.write(
            f"glossary: {sum(glossary.created.values())} created, {glossary.aliases_unchanged} aliases unchanged"
        )
        for line in documents:
            self.stdout.write(line)
        embedder = embedder_build()
        if embedder.enabled:
            # A handful of demo chunks: embedded here, so the demo needs no worker to search by meaning.
            try:
                outcome = chunks_embed(embedder=embedder)
            except EmbedderError as error:
                self.stderr.write(f"vectors: not embedded ({error}); BM25 finds every chunk meanwhile")
            else:
                self.stdout.write(f"vectors: {outcome.embedded} chunk(s) embedded with {embedder.signature}")
        self.stdout.write(f"faq: {faq['created']} created, {faq['updated']} updated, {faq['unchanged']} unchanged")
        for username, password in users:
            if password:
                self.stdout.write(f"user {username} created, password: {password}  (shown once)")
            else:
                self.stdout.write(f"user {username} exists; password unchanged")

    def _documents(self, demo: Path, manifest: dict[str, Any]) -> list[str]:
        """The demo's office files, generated from facts.csv and docs/*.md as the manifest lays
        them out, then ingested through the real pipeline: facts with cell-level locators, chunks
        with slide / page / section locators."""
        files = _demo_files(str(demo))
        sensitivity = {d["file"]: d["sensitivity"] for d in manifest["narrative_documents"]}
        names = [d["file"] for d in manifest["fact_documents"]]
        names += [d["file"] for d in manifest["narrative_documents"] if d["file"] not in names]
        return [
            document_ingest(name=name, data=files[name], sensitivity=sensitivity.get(name, "INTERNAL")).summary()
            for name in names
        ]

    def _users(self, specs: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
        model = get_user_model()
        out: list[tuple[str, str | None]] = []
        for spec in specs:
            user, created = model.objects.get_or_create(username=spec["username"])
            password = None
            if created:
                password = password_generate()
                user.set_password(password)
                user.save()
            user_role_set(user=user, role=spec["role"], cleared=bool(spec.get("restricted_clearance")))
            out.append((user.username, password))
        return out
