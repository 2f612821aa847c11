"""`manage.py embed [--missing | --all]`: embed stored chunks with the configured embedder, in
batches, with a progress bar. `--missing` (the default) takes the chunks without a vector of this
embedder: new ones, and those embedded by another embedder or version (so a change of model
re-embeds instead of mixing spaces); `--all` re-embeds every active chunk. Interrupting keeps
every finished batch; running it again continues."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from retrieval.embedders import EmbedderError, embedder_build
from retrieval.selectors import chunks_unembedded
from retrieval.services import EMBED_BATCH, chunks_embed


class Command(BaseCommand):
    help = "Embed chunks with the configured embedder (RAGSPINE_EMBEDDER): missing ones, or all."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--missing", action="store_true", help="chunks without this embedder's vector (default)")
        which.add_argument("--all", action="store_true", help="every active chunk, again")
        parser.add_argument("--batch", type=int, default=EMBED_BATCH, help=f"chunks per batch (default {EMBED_BATCH})")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["batch"] < 1:
            raise CommandError("--batch must be at least 1")
        embedder = embedder_build()
        if not embedder.enabled:
            raise CommandError("no embedder is configured: set RAGSPINE_EMBEDDER (e.g. e5-small)")
        disable = options["no_progress"] or not sys.stderr.isatty()
        with tqdm(unit="chunk", disable=disable, file=sys.stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            try:
                outcome = chunks_embed(
                    embedder=embedder, everything=options["all"], batch=options["batch"], progress=progress
                )
            except EmbedderError as error:
                left = chunks_unembedded(embedder.signature).count()
                raise CommandError(
                    f"embedding stopped: {error}; finished batches are kept, {left} chunk(s) still "
                    "without a vector are found by BM25 until `manage.py embed` is run again"
                ) from None
        self.stdout.write(
            f"embedded {outcome.embedded} chunk(s) with {embedder.signature}; {outcome.remaining} without a vector"
        )
