"""At scale: 5,000 entities and 100 metrics via import_glossary, 700,000 facts via import_facts,
and lookups by full company name still land on the right row."""

from __future__ import annotations

import random
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


def test_full_company_names_resolve_among_5000_entities_and_700k_facts(tmp_path: Path, django_user_model) -> None:
    synthetic.glossary_csv(tmp_path / "glossary.csv", entities=ENTITIES, metrics=METRICS)
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
