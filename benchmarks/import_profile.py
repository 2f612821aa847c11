"""Where `import_facts` spends its time, on one backend, in a fresh process.

`python -m benchmarks.import_profile --backend sqlite --workdir var/bench --facts facts.csv`
imports the glossary, then the facts file under cProfile, and prints:

- the top functions by own time and by cumulative time (cProfile);
- every SQL statement shape the import ran (literals and placeholder lists folded), with its
  count and the wall time the client waited for it (round trip included);
- on PostgreSQL, `EXPLAIN (ANALYZE, BUFFERS)` of the write statement of one batch in the middle
  of the file (run in a savepoint that is rolled back, then the real statement runs), and the
  WAL the import wrote; on SQLite, the query plan of each statement shape.

The files are the ones `manage.py bench --db` writes (`benchmarks.synthetic`).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import time
from collections import defaultdict
from io import StringIO
from pathlib import Path
from typing import Any


def shape(sql: str) -> str:
    """A statement with its literal lists folded, so every batch's statement reads the same."""
    sql = re.sub(r"\((?:%s,?)+\)(?:,\((?:%s,?)+\))*", "(…)", sql)
    sql = re.sub(r"'[^']*'", "'…'", sql)
    return re.sub(r"\s+", " ", sql).strip()[:160]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--glossary", default="glossary.csv")
    parser.add_argument("--facts", default="facts.csv")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--explain-batch", type=int, default=250, help="which batch's write to EXPLAIN")
    args = parser.parse_args()

    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = args.backend
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"profile-{os.getpid()}.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from facts.services.fact_import import facts_import, rows_from_csv

    call_command("migrate", verbosity=0)
    call_command("import_glossary", str(args.workdir / args.glossary), stdout=StringIO())
    postgres = connection.vendor == "postgresql"

    statements: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    explained: list[str] = []
    writes = [0]
    samples: dict[str, tuple[str, Any]] = {}

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        key = shape(sql)
        samples.setdefault(key, (sql, params))
        is_write = "INSERT INTO" in sql[:200].upper()
        if is_write:
            writes[0] += 1
            if postgres and writes[0] == args.explain_batch and not explained:
                cursor = context["cursor"]
                cursor.execute("SAVEPOINT profile_explain")
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, WAL) " + sql, params)
                explained.extend(row[0] for row in cursor.fetchall())
                cursor.execute("ROLLBACK TO SAVEPOINT profile_explain")
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            entry = statements[key]
            entry[0] += 1
            entry[1] += time.perf_counter() - began

    wal_before = _wal_bytes(connection) if postgres else None
    path = args.workdir / args.facts
    profile = cProfile.Profile()
    with connection.execute_wrapper(wrapper):
        began = time.perf_counter()
        profile.enable()
        report = facts_import(rows=rows_from_csv(path), source_name=path.name)
        profile.disable()
        seconds = time.perf_counter() - began
    rows = report.created + report.updated + report.unchanged
    print(f"{args.backend}: {rows:,} rows in {seconds:.1f} s under cProfile ({rows / seconds:,.0f} facts/s)")
    if postgres:
        print(f"WAL written by the import: {(_wal_bytes(connection) - wal_before) / 2**20:,.0f} MiB")

    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profile, stream=out).strip_dirs().sort_stats(order).print_stats(args.top)
        text = out.getvalue()
        print(f"\n== cProfile, top {args.top} by {order} ==")
        print(text[text.find("   ncalls") :])

    print("== SQL statements (count, client wall time) ==")
    for key, (count, spent) in sorted(statements.items(), key=lambda kv: -kv[1][1]):
        print(f"{spent:8.2f} s  {int(count):6d}×  {key}")
    if explained:
        print(f"\n== EXPLAIN (ANALYZE, BUFFERS, WAL) of write #{args.explain_batch} ==")
        print("\n".join(explained))
    if not postgres:
        with connection.cursor() as cursor:
            for key, (sql, params) in samples.items():
                cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
                print(f"\n== query plan: {key[:100]} ==")
                print("\n".join(str(row[-1]) for row in cursor.fetchall()))


def _wal_bytes(connection: Any) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


if __name__ == "__main__":
    main()
