"""Through the real `/v1/ask` on the demo: operators a question brings that were once dropped or
read as another (SPEC §5a) — a part excluded from its whole, a gap between two figures or two
growth rates in percentage points, a multiple of one figure across years, `累计`."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _ask(client: APIClient, question: str) -> dict:
    response = client.post("/v1/ask", {"question": question, "reference_date": "2026-03-15"}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("ACME集团2025年营业收入（不含香港）是多少？", "104,434.8"),
        ("What was ACME Group's FY2025 revenue excluding Hong Kong?", "104,434.8"),
        ("中国内地2025年营收不含线上是多少", "54,889.8"),
        ("2025年ACME中国内地毛利率比香港低多少个百分点？", "2.7 个百分点"),
        (
            "What is the gap in percentage points between ACME China's and ACME Hong Kong's gross margin in FY2025?",
            "2.7 pp",
        ),
        (
            "What is the difference in percentage points between ACME China's and ACME Hong Kong's FY2025 revenue growth "
            "rates?",
            "16.64 pp",
        ),
        ("集團2023年到2025年累計營收是多少？", "353,663.7"),
    ],
)
def test_the_operator_asked_is_computed(analyst: APIClient, question: str, shown: str) -> None:
    body = _ask(analyst, question)
    assert body["answer_kind"] == "answer"
    assert shown in body["answer"]


def test_a_part_is_never_excluded_from_a_ratio_and_no_whole_is_shown(analyst: APIClient) -> None:
    body = _ask(analyst, "ACME集团2025年毛利率（剔除东南亚）是多少？")
    assert body["answer_kind"] == "refusal"
    assert "29.7" not in body["answer"] and body["facts"] == []
