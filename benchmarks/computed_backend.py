"""Computed answers on one backend, in a fresh process (`python -m benchmarks.computed_backend`).

A glossary of N subsidiaries, M stored metrics and 20 formula metrics (`synthetic.formula_metric`)
over facts for two years (5,000 × 100 × 2 = 1,000,000 facts by default). Three question shapes
through `POST /v1/ask`, each timed as server time (the Django test client: no network) and each
answer checked against a value recomputed here from the generator:

- growth: `{company}2025年{metric}同比增长多少` → the YoY rate of two stored facts;
- formula: `{company}2025年{formula metric}是多少` → a curator's formula over stored facts;
- ranking: `2025年哪家子公司{metric}最高` → one metric ranked over every subsidiary;
- defined: a formula the question brings, with a change between years and an average between
  year-ends (`…测算比率定义为（2025年A减去2024年A）除以2024年和2025年B的平均值`) → that formula
  over the four stored facts, to four places;
- why: `样本集团2025年{metric}为什么变化` → the group's change split over its 5,000 subsidiaries
  (the ten largest movers, then the rest as one row) and over its four channels
  (`synthetic.why_csv` adds every subsidiary's channel figures and the group's sums). The answer
  must name the largest mover with its exact change and count the rest;
- series: `{company}最近12个季度{metric}每季度环比增长多少` at 2026-03-15 → the twelve quarters
  2023Q1–2025Q4, each with its quarter-on-quarter growth (the first against 2022Q4). The first
  `--series-entities` companies also have those 13 quarters (`synthetic.quarters_csv`, imported after
  the 1,000,000 yearly facts). Each answer must hold the 13 quarters' exact values and the 12
  growths, each rate equal to (new − old) / old and each change to new − old.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, localcontext
from io import StringIO
from pathlib import Path
from typing import Any

YEARS = [2024, 2025]
FORMULAS = 20
SERIES_REFERENCE = "2026-03-15"  # the last 12 complete quarters are 2023Q1–2025Q4
SERIES_QUARTERS = [(2022, 4)] + [(year, quarter) for year in (2023, 2024, 2025) for quarter in (1, 2, 3, 4)]
SHAPES = ("growth", "formula", "ranking", "series", "defined", "why")
WHY_METRICS = [0, 1]  # the metrics with channel figures and a group total (`synthetic.why_csv`)


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
    parser.add_argument("--series-entities", type=int, default=100, help="companies with quarterly facts")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    args = parser.parse_args()
    shapes_asked = [shape.strip() for shape in args.shapes.split(",") if shape.strip()]
    if not shapes_asked or any(shape not in SHAPES for shape in shapes_asked):
        parser.error(f"--shapes takes a comma-separated list of {', '.join(SHAPES)}")

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
        glossary,
        entities=args.entities,
        metrics=args.metrics,
        formulas=FORMULAS,
        formulas_over=args.metrics,
        channels="why" in shapes_asked,
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
    series_entities = min(args.series_entities, args.entities)
    if "series" in shapes_asked:
        quarters = args.workdir / "computed-quarters.csv"
        added = synthetic.quarters_csv(
            quarters, entities=series_entities, metrics=args.metrics, quarters=SERIES_QUARTERS
        )
        began = time.perf_counter()
        call_command("import_facts", str(quarters), "--no-progress", stdout=StringIO())
        result["facts"] = rows + added
        result["quarterly_facts"] = added
        result["series_import_s"] = round(time.perf_counter() - began, 1)

    if "why" in shapes_asked:
        why = args.workdir / "computed-why.csv"
        added = synthetic.why_csv(why, entities=args.entities, metrics=WHY_METRICS, years=YEARS)
        call_command("import_facts", str(why), "--no-progress", stdout=StringIO())
        result["facts"] = int(str(result["facts"])) + added
        result["why_facts"] = added

    user = get_user_model().objects.create_user("bench")
    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    value = synthetic.expected_value
    rng = random.Random(2026)

    Check = Callable[[dict[str, Any]], bool]

    def shown(expected: str) -> Check:
        return lambda body: expected in body["answer"] and bool(body["computed"])

    def growth() -> tuple[dict[str, str], Check]:
        i, j = rng.randrange(args.entities), rng.randrange(args.metrics)
        old, new = value(i, j, 2024), value(i, j, 2025)
        question = f"{synthetic.entity(i)['full']}2025年{synthetic.metric(j)['name']}同比增长多少"
        return {"question": question}, shown(percent((new - old) / old) if old > 0 else "")

    def formula() -> tuple[dict[str, str], Check]:
        i, k = rng.randrange(args.entities), rng.randrange(FORMULAS)
        metric = synthetic.formula_metric(k, over=args.metrics)
        question = f"{synthetic.entity(i)['full']}2025年{metric['name']}是多少"
        return {"question": question}, shown(percent(synthetic.formula_expected(k, i, 2025, over=args.metrics)))

    def ranking() -> tuple[dict[str, str], Check]:
        j = rng.randrange(args.metrics)
        best = max(range(args.entities), key=lambda i: value(i, j, 2025))
        return {"question": f"2025年哪家子公司{synthetic.metric(j)['name']}最高"}, shown(synthetic.entity(best)["full"])

    def series() -> tuple[dict[str, str], Check]:
        i, j = rng.randrange(series_entities), rng.randrange(args.metrics)
        question = f"{synthetic.entity(i)['full']}最近12个季度{synthetic.metric(j)['name']}每季度环比增长多少"
        return {"question": question, "reference_date": SERIES_REFERENCE}, lambda body: series_right(body, i, j)

    def defined() -> tuple[dict[str, str], Check]:
        i, a, b = rng.randrange(args.entities), rng.randrange(args.metrics), rng.randrange(args.metrics)
        ma, mb = synthetic.metric(a)["name"], synthetic.metric(b)["name"]
        question = (
            f"{synthetic.entity(i)['full']}2025年的测算比率是多少？测算比率定义为（2025年{ma}减去2024年{ma}）"
            f"除以2024年和2025年{mb}的平均值，保留四位小数。"
        )
        with localcontext() as ctx:
            ctx.prec = 34
            base = (value(i, b, 2024) + value(i, b, 2025)) / 2
            expected = (value(i, a, 2025) - value(i, a, 2024)) / base if base else None
        if expected is None:
            return {"question": question}, shown("")
        return {"question": question}, shown(f"{expected.quantize(Decimal('0.0001'), rounding=ROUND_HALF_UP):,}")

    def why() -> tuple[dict[str, str], Check]:
        j = rng.choice(WHY_METRICS)
        moves = sorted(
            ((value(i, j, 2025) - value(i, j, 2024), i) for i in range(args.entities)),
            key=lambda move: (-abs(move[0]), synthetic.entity(move[1])["code"]),
        )
        top, i = moves[0]
        row = f"· {synthetic.entity(i)['full']}：{'+' if top > 0 else ''}{top:,} 百万元"
        rest = f"其余 {args.entities - 10:,} 个部分" if args.entities > 11 else ""
        question = f"样本集团2025年{synthetic.metric(j)['name']}为什么变化"
        return {"question": question}, lambda body: row in body["answer"] and rest in body["answer"]

    shapes = {}
    makers = {
        "growth": growth,
        "formula": formula,
        "ranking": ranking,
        "series": series,
        "defined": defined,
        "why": why,
    }
    for name in shapes_asked:
        make = makers[name]
        times, wrong = [], []
        for n in range(args.asks + 5):
            request, right = make()
            began = time.perf_counter()
            response = client.post("/v1/ask", request, content_type="application/json")
            elapsed = time.perf_counter() - began
            if response.status_code != 200 or not right(response.json()):
                wrong.append(request["question"])
            if n >= 5:
                times.append(elapsed * 1000)
        times.sort()
        stage = _stage_p50(name, len(times))
        shapes[name] = {
            "n": len(times),
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "wrong_answers": len(wrong),
            "wrong_examples": wrong[:3],
            **stage,
        }
    result["asks"] = shapes
    print(json.dumps(result, ensure_ascii=False))
    sys.stdout.flush()


def _stage_p50(shape: str, timed: int) -> dict[str, Any]:
    """A why's own stage (the change and its splits, the numbers alone), from the trace of the
    last `timed` asks: SPEC §12 sets it a target of its own. The first ask's is the cold figure:
    nothing kept by the process yet."""
    if shape != "why":
        return {}
    from agent.models import QueryLog

    stages = [t.get("why") for t in QueryLog.objects.order_by("id").values_list("timings_ms", flat=True)]
    stages = [s for s in stages if s is not None]
    if not stages:
        return {"why_stage_p50_ms": None}
    return {
        "why_stage_first_ms": round(stages[-(timed + 5)], 2) if len(stages) >= timed + 5 else None,
        "why_stage_p50_ms": round(statistics.median(stages[-timed:]), 2),
    }


def series_right(body: dict[str, Any], i: int, j: int) -> bool:
    """Whether a 12-quarter series answer holds every quarter's exact value and, for each of its
    12 steps, the growth rate (new − old) / old and the change new − old over the right inputs."""
    from benchmarks import synthetic

    values = {f"{y}Q{q}": synthetic.expected_quarter_value(i, j, y, q) for y, q in SERIES_QUARTERS}
    code = f"CO{i:05d}"
    found = {f["period"]: Decimal(f["value"]) for f in body["facts"] if f["entity"] == code}
    if found != values:
        return False
    steps = {}
    for item in body["computed"]:
        periods = tuple(p["period"] for p in item["inputs"])
        if item["kind"] != "growth" or len(periods) != 2 or any(p["entity"] != code for p in item["inputs"]):
            return False
        steps.setdefault(periods, {})[item["unit"]] = Decimal(item["value"])
    labels = list(values)
    if len(steps) != 12:
        return False
    for older, newer in itertools.pairwise(labels):
        old, new = values[older], values[newer]
        step = steps.get((newer, older), {})
        with localcontext() as ctx:
            ctx.prec = 34
            rate = (new - old) / old if old > 0 else None
        if step.get("CNY_M") != new - old:
            return False
        if rate is not None and abs(step.get("PCT", Decimal("NaN")) - rate) > Decimal("1e-30"):
            return False
    return True


if __name__ == "__main__":
    main()
