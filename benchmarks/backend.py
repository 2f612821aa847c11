"""One backend's database benchmarks, run in a fresh process (`python -m benchmarks.backend`).

- `import_facts`: facts/s and the process's peak RSS, first for a small file, then for the full
  one, so that a flat peak shows the import's memory is bounded by its batch, not the file.
- `/v1/ask` structured p50/p95 server time over the full fact table (mock provider), every answer
  checked against the value the generator wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import threading
import time
from io import StringIO
from pathlib import Path


def rss_mb() -> float:
    """The process's resident set size now (not its lifetime high-water mark)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


class PeakRss:
    """Samples the RSS every 20 ms while a block runs; `.peak` is the highest seen."""

    def __enter__(self) -> PeakRss:
        self.peak = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--entities", type=int, required=True)
    parser.add_argument("--metrics", type=int, required=True)
    parser.add_argument("--years", type=int, nargs="+", required=True)
    parser.add_argument("--asks", type=int, default=300)
    args = parser.parse_args()

    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = args.backend
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"bench-{os.getpid()}.sqlite3")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from benchmarks.synthetic import entity, expected_value, metric

    call_command("migrate", verbosity=0)
    call_command("import_glossary", str(args.workdir / "glossary.csv"), stdout=StringIO())
    result: dict[str, object] = {"backend": args.backend, "vendor": connection.vendor}

    imports = []
    for name in ("facts_small.csv", "facts.csv"):
        path = args.workdir / name
        rows = sum(1 for _ in path.open(encoding="utf-8")) - 1
        before = rss_mb()
        out = StringIO()
        with PeakRss() as memory:
            began = time.perf_counter()
            call_command("import_facts", str(path), "--no-progress", stdout=out)
            seconds = time.perf_counter() - began
        imports.append(
            {
                "rows": rows,
                "seconds": round(seconds, 2),
                "facts_per_s": round(rows / seconds),
                "rss_before_mb": before,
                "peak_rss_mb": memory.peak,
                "growth_mb": round(memory.peak - before, 1),
                "report": out.getvalue().strip(),
            }
        )
    result["imports"] = imports

    user = get_user_model().objects.create_user("bench")
    token = Token.objects.create(user=user)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    rng = random.Random(7)
    times, wrong = [], 0
    for n in range(args.asks + 20):
        i, j, year = rng.randrange(args.entities), rng.randrange(args.metrics), rng.choice(args.years)
        question = f"{entity(i)['full']}{year}年的{metric(j)['name']}是多少"
        began = time.perf_counter()
        response = client.post("/v1/ask", {"question": question}, content_type="application/json")
        elapsed = time.perf_counter() - began
        facts = response.json()["facts"]
        if not facts or facts[0]["value"] != str(expected_value(i, j, year)) or facts[0]["entity"] != f"CO{i:05d}":
            wrong += 1
        if n >= 20:
            times.append(elapsed * 1000)
    times.sort()
    result["ask"] = {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
        "wrong_answers": wrong,
    }
    print(json.dumps(result))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
