"""Computed answers on one backend, in a fresh process (`python -m benchmarks.computed_backend`).

A glossary of N subsidiaries, M stored metrics and 20 formula metrics (`synthetic.formula_metric`)
over facts for two years (5,000 × 100 × 2 = 1,000,000 facts by default). Three question shapes
through `POST /v1/ask`, each timed as server time (the Django test client: no network) and each
answer checked against a value recomputed here from the generator:

- growth: `{company}2025年{metric}同比增长多少` → the YoY rate of two stored facts;
- formula: `{company}2025年{formula metric}是多少` → a curator's formula over stored facts;
- ranking: `2025年哪家子公司{metric}最高` → one metric ranked over every subsidiary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from decimal import ROUND_HALF_UP, Decimal, localcontext
from io import StringIO
from pathlib import Path

YEARS = [2024, 2025]
FORMULAS = 20


def percent(value: Decimal) -> str:
    """A fraction as the answer shows it: × 100, two places, half-up, thousands separated."""
    with localcontext() as ctx:
        ctx.prec = 34
        return f"{(value * 100).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):,}%"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--entities", type=int, default=5_000)
    parser.add_argument("--metrics", type=int, default=100)
    parser.add_argument("--asks", type=int, default=100, help="timed questions per shape")
    args = parser.parse_args()

    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = args.backend
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"computed-{os.getpid()}.sqlite3")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from benchmarks import synthetic

    glossary, facts = args.workdir / "computed-glossary.csv", args.workdir / "computed-facts.csv"
    synthetic.glossary_csv(
        glossary, entities=args.entities, metrics=args.metrics, formulas=FORMULAS, formulas_over=args.metrics
    )
    rows = synthetic.facts_csv(facts, entities=args.entities, metrics=args.metrics, years=YEARS)
    call_command("migrate", verbosity=0)
    call_command("import_glossary", str(glossary), stdout=StringIO())
    began = time.perf_counter()
    call_command("import_facts", str(facts), "--no-progress", stdout=StringIO())
    result: dict[str, object] = {
        "backend": args.backend,
        "vendor": connection.vendor,
        "facts": rows,
        "entities": args.entities,
        "import_s": round(time.perf_counter() - began, 1),
    }

    user = get_user_model().objects.create_user("bench")
    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    value = synthetic.expected_value
    rng = random.Random(2026)

    def growth() -> tuple[str, str]:
        i, j = rng.randrange(args.entities), rng.randrange(args.metrics)
        old, new = value(i, j, 2024), value(i, j, 2025)
        question = f"{synthetic.entity(i)['full']}2025年{synthetic.metric(j)['name']}同比增长多少"
        return question, percent((new - old) / old) if old > 0 else ""

    def formula() -> tuple[str, str]:
        i, k = rng.randrange(args.entities), rng.randrange(FORMULAS)
        metric = synthetic.formula_metric(k, over=args.metrics)
        question = f"{synthetic.entity(i)['full']}2025年{metric['name']}是多少"
        return question, percent(synthetic.formula_expected(k, i, 2025, over=args.metrics))

    def ranking() -> tuple[str, str]:
        j = rng.randrange(args.metrics)
        best = max(range(args.entities), key=lambda i: value(i, j, 2025))
        return f"2025年哪家子公司{synthetic.metric(j)['name']}最高", synthetic.entity(best)["full"]

    shapes = {}
    for name, make in (("growth", growth), ("formula", formula), ("ranking", ranking)):
        times, wrong = [], []
        for n in range(args.asks + 5):
            question, expected = make()
            began = time.perf_counter()
            response = client.post("/v1/ask", {"question": question}, content_type="application/json")
            elapsed = time.perf_counter() - began
            answer = response.json()["answer"]
            if expected not in answer or not response.json()["computed"]:
                wrong.append(question)
            if n >= 5:
                times.append(elapsed * 1000)
        times.sort()
        shapes[name] = {
            "n": len(times),
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "wrong_answers": len(wrong),
            "wrong_examples": wrong[:3],
        }
    result["asks"] = shapes
    print(json.dumps(result, ensure_ascii=False))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
