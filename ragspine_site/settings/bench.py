"""Benchmark settings: a throwaway database (SQLite file or a pgserver Postgres), no throttling."""

from __future__ import annotations

import os

from .base import *  # noqa: F403
from .base import DATABASES, REST_FRAMEWORK, VAR_DIR

REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"user": "100000000/min", "ask": "100000000/min", "anon": "100000000/min"}

if os.environ.get("RAGSPINE_BENCH_PG_HOST"):  # a server another bench process started
    DATABASES["default"] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "postgres",
        "USER": "postgres",
        "HOST": os.environ["RAGSPINE_BENCH_PG_HOST"],
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }
elif os.environ.get("RAGSPINE_BENCH_DB") == "postgres":
    from ragspine_site.testing import test_postgres_settings

    DATABASES["default"] = test_postgres_settings()
else:
    DATABASES["default"] = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("RAGSPINE_BENCH_SQLITE", str(VAR_DIR / "bench" / "bench.sqlite3")),
        "OPTIONS": {"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", "timeout": 20},
    }
