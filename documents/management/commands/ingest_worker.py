"""`manage.py ingest_worker [db_worker options]`: the background worker, with crash recovery.

Before it starts taking tasks, and every minute while it runs, jobs whose worker died mid-ingest
are queued again (or failed after the last attempt). Everything after the command name is
passed to `db_worker`, e.g. `manage.py ingest_worker --interval 0.5`.
"""

from __future__ import annotations

import argparse
import threading
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections, connection

from documents.services import ingest_jobs_recover

RECOVER_EVERY = 60.0


class Command(BaseCommand):
    help = "Run the background worker (db_worker) after recovering jobs whose worker died."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("worker_args", nargs=argparse.REMAINDER, help="options for db_worker")

    def handle(self, *args: Any, **options: Any) -> None:
        self._recover()
        stop = threading.Event()

        def keep_recovering() -> None:
            while not stop.wait(RECOVER_EVERY):
                try:
                    self._recover()
                finally:
                    close_old_connections()
                    connection.close()

        threading.Thread(target=keep_recovering, name="ragspine-ingest-recovery", daemon=True).start()
        try:
            call_command("db_worker", *options["worker_args"])
        finally:
            stop.set()

    def _recover(self) -> None:
        counts = ingest_jobs_recover()
        if any(counts.values()):
            self.stdout.write(f"recovered ingest jobs: {counts['requeued']} queued again, {counts['failed']} failed")
