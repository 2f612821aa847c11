"""Server time of narrative, composite and find_documents asks on the demo data.

Usage: `.venv/bin/python scripts/narrative_latency.py` after `make run` has loaded the demo into
`var/` (or with `DATABASE_URL` pointing at a database holding it). Asks five questions that
retrieve, screen and ground passages, 20 times each after a warm-up, through the same `ask`
the API uses (mock provider: extractive answers), and prints p50 / p95.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragspine_site.settings.base")

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from agent.services import question_ask  # noqa: E402

QUESTIONS = (
    "香港收入为什么下降",
    "毛利率下降的主要原因是什么",
    "竞争对手的市场份额为什么提升",
    "哪些文件提到了存储芯片",
    "香港最近有什么监管动态",
)


def main() -> None:
    user = get_user_model().objects.get(username="analyst")
    for question in QUESTIONS:
        question_ask(question, user=user)
    times = []
    for _ in range(20):
        for question in QUESTIONS:
            began = time.perf_counter()
            question_ask(question, user=user)
            times.append((time.perf_counter() - began) * 1000)
    times.sort()
    p95 = times[int(len(times) * 0.95)]
    print(f"{len(times)} narrative/composite/find asks: p50 {statistics.median(times):.2f} ms, p95 {p95:.2f} ms")


if __name__ == "__main__":
    main()
