"""At scale: 5,000 entities, 100 stored and 20 formula metrics via import_glossary, 700,000
facts via import_facts; lookups by full company name still land on the right row, and growth,
formula, ratio and ranking questions are computed exactly."""

from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Decimal, localcontext
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from benchmarks import synthetic
from tests.clients import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

ENTITIES, METRICS, YEARS = 5_000, 100, [2024, 2025]
FACT_METRICS = 70  # 5,000 x 70 x 2 = 700,000 facts
FORMULAS = 20  # formula metrics over the 70 metrics with facts


def percent(value: Decimal) -> str:
    """A fraction as an answer shows it: × 100, two places half-up, thousands separated."""
    with localcontext() as ctx:
        ctx.prec = 34
        return f"{(value * 100).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):,}%"


def exact(value: Decimal) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-24))


def test_full_company_names_resolve_among_5000_entities_and_700k_facts(tmp_path: Path, django_user_model) -> None:
    synthetic.glossary_csv(
        tmp_path / "glossary.csv", entities=ENTITIES, metrics=METRICS, formulas=FORMULAS, formulas_over=FACT_METRICS
    )
    rows = synthetic.facts_csv(tmp_path / "facts.csv", entities=ENTITIES, metrics=FACT_METRICS, years=YEARS)
    assert rows == 700_000
    call_command("import_glossary", str(tmp_path / "glossary.csv"), stdout=StringIO())
    out = StringIO()
    call_command("import_facts", str(tmp_path / "facts.csv"), "--no-progress", stdout=out)
    assert "700000 created" in out.getvalue()

    client: APIClient = client_for(django_user_model.objects.create_user("scale"))
    rng = random.Random(2026)
    for _ in range(150):
        i, j, year = rng.randrange(ENTITIES), rng.randrange(FACT_METRICS), rng.choice(YEARS)
        company, measure = synthetic.entity(i), synthetic.metric(j)
        question = rng.choice(
            [
                f"{company['full']}{year}年的{measure['name']}是多少",
                f"{company['short']}FY{year}{measure['name']}",
                f"What was {company['english']} {measure['english']} in FY{year}?",
            ]
        )
        body = client.post("/v1/ask", {"question": question, "reference_date": "2026-03-15"}, format="json").json()
        assert body["intent"]["entity"] == company["code"], question
        assert body["intent"]["metric"] == measure["code"], question
        assert [f["value"] for f in body["facts"]] == [str(synthetic.expected_value(i, j, year))], question

    missing = client.post(
        "/v1/ask", {"question": f"{synthetic.entity(7)['full']}2019年营业收入是多少"}, format="json"
    ).json()
    assert missing["answer_kind"] == "refusal" and missing["facts"] == []

    # -- computed answers over the same 700,000 facts -------------------------------------------
    value = synthetic.expected_value

    def ask(question: str) -> dict:
        body = client.post("/v1/ask", {"question": question, "reference_date": "2026-03-15"}, format="json").json()
        assert body["answer_kind"] == "answer", (question, body["answer"])
        return body

    for _ in range(40):  # growth: the YoY rate of two stored facts
        i, j = rng.randrange(ENTITIES), rng.randrange(FACT_METRICS)
        company, measure = synthetic.entity(i), synthetic.metric(j)
        old, new = value(i, j, 2024), value(i, j, 2025)
        body = ask(f"{company['full']}2025年{measure['name']}同比增长多少")
        [rate] = [c for c in body["computed"] if c["kind"] == "growth" and c["unit"] == "PCT"]
        with localcontext() as ctx:
            ctx.prec = 34
            assert exact(Decimal(rate["value"])) == exact((new - old) / old), body["answer"]
            assert percent((new - old) / old) in body["answer"]
        assert {(f["entity"], f["period"], f["value"]) for f in body["facts"]} == {
            (company["code"], "FY2024", str(old)),
            (company["code"], "FY2025", str(new)),
        }

    for _ in range(40):  # a curator's formula metric, some of them over another formula
        i, k = rng.randrange(ENTITIES), rng.randrange(FORMULAS)
        company, formula = synthetic.entity(i), synthetic.formula_metric(k, over=FACT_METRICS)
        expected = synthetic.formula_expected(k, i, 2025, over=FACT_METRICS)
        body = ask(f"{company['full']}2025年{formula['name']}是多少")
        [item] = [c for c in body["computed"] if c["kind"] == "formula"]
        assert exact(Decimal(item["value"])) == exact(expected), (formula, body["answer"])
        assert percent(expected) in body["answer"]
        assert {f["metric"] for f in body["facts"]} <= {f"M{j:03d}" for j in range(FACT_METRICS)}

    for _ in range(10):  # a ratio of two stored metrics named in the question
        i = rng.randrange(ENTITIES)
        a, b = rng.sample([0, 3, 4, 5, 6], 2)  # 营业收入, 营业利润, 净利润, 资本开支, 经营现金流
        company = synthetic.entity(i)
        body = ask(f"{company['full']}2025年{synthetic.metric(a)['name']}与{synthetic.metric(b)['name']}之比")
        [item] = [c for c in body["computed"] if c["kind"] == "ratio"]
        with localcontext() as ctx:
            ctx.prec = 34
            expected = value(i, a, 2025) / value(i, b, 2025)
        assert exact(Decimal(item["value"])) == exact(expected) and percent(expected) in body["answer"]

    for _ in range(10):  # ranking one stored metric over all 5,000 subsidiaries
        j = rng.randrange(FACT_METRICS)
        measure = synthetic.metric(j)
        leader = max(range(ENTITIES), key=lambda i: value(i, j, 2025))
        body = ask(f"2025年哪家子公司{measure['name']}最高")
        ranks = [c for c in body["computed"] if c["kind"] == "rank"]
        assert ranks[0]["inputs"][0]["entity"] == synthetic.entity(leader)["code"]
        assert ranks[0]["ranked_value"] == str(value(leader, j, 2025))
        assert len(ranks) == 10 and "5,000 项参与排名" in body["answer"], body["answer"][:200]
        shown = [Decimal(r["ranked_value"]) for r in ranks]
        assert shown == sorted(shown, reverse=True)

    k = 3  # ranking a formula metric: every subsidiary's inputs are read and computed
    formula = synthetic.formula_metric(k, over=FACT_METRICS)
    leader = max(range(ENTITIES), key=lambda i: synthetic.formula_expected(k, i, 2025, over=FACT_METRICS))
    body = ask(f"2025年哪家子公司{formula['name']}最高")
    first = next(c for c in body["computed"] if c["kind"] == "rank")
    assert first["inputs"][0]["entity"] == synthetic.entity(leader)["code"], body["answer"][:300]
