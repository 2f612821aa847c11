"""`manage.py ingest_worker`: the database task worker (`db_worker`, same options), made to
survive what kills a plain worker.

- Before it takes tasks, and every minute while it runs, jobs whose worker died mid-ingest are
  queued again, or failed after their last attempt.
- When the database goes away it waits and reconnects instead of exiting; the job that the
  outage interrupted is recovered like one whose worker died.
- With an embedder configured, chunks still without their vector (a failed embedding task, a
  new embedder) are queued for embedding at the same times.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.db import DatabaseError, connection, connections
from django_tasks_db.management.commands.db_worker import Command as DbWorker

from documents.jobs import ingest_jobs_recover
from retrieval.tasks import embedding_catch_up

RECOVER_EVERY = 60.0
MAX_WAIT = 10.0


class Command(DbWorker):
    help = "Run the background worker (as db_worker), with crash recovery and database reconnects."

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()

        def keep_recovering() -> None:
            while not stop.wait(RECOVER_EVERY):
                try:
                    self._recover(mine_too=False)
                except DatabaseError:
                    pass  # the main loop reports outages
                finally:
                    connection.close()

        threading.Thread(target=keep_recovering, name="ragspine-ingest-recovery", daemon=True).start()
        wait = 0.5
        try:
            while True:
                try:
                    self._recover(mine_too=True)  # nothing runs in this process yet
                    super().handle(*args, **options)
                    return
                except DatabaseError as error:
                    self.stderr.write(f"database unavailable ({type(error).__name__}); retrying in {wait:.1f} s")
                    connections.close_all()
                    time.sleep(wait)
                    wait = min(wait * 2, MAX_WAIT)
        finally:
            stop.set()

    def _recover(self, *, mine_too: bool) -> None:
        if embedding_catch_up():
            self.stdout.write("queued the embedding of chunks still without a vector")
        counts = ingest_jobs_recover(mine_too=mine_too)
        if any(counts.values()):
            self.stdout.write(f"recovered ingest jobs: {counts['requeued']} queued again, {counts['failed']} failed")
