"""Intent parsing speed over a synthetic glossary (`benchmarks.synthetic`) of `entities`
entities and 100 metrics: the alias automaton's build time, parse p50 / p95 over 2,000 questions,
parse plus the security gate and clarification, and the same questions in the frames analysts
write them in. Every question must parse to its entity and metric. Django-free; `manage.py bench
--parse` runs it.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import date
from typing import Any

from benchmarks import synthetic
from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.glossary import AliasRecord, ChannelInfo, EntityInfo, MetricInfo, UnitInfo, glossary_build
from core.parse.intent import parse_intent

REFERENCE = date(2026, 3, 15)


def run(*, entities: int) -> dict[str, Any]:
    aliases, entity_infos = [], []
    for i in range(entities):
        e = synthetic.entity(i)
        entity_infos.append(EntityInfo(e["code"], e["full"], "subsidiary"))
        aliases += [AliasRecord("entity", e["short"], e["code"]), AliasRecord("entity", e["english"], e["code"])]
    metric_infos = []
    for j in range(100):
        m = synthetic.metric(j)
        metric_infos.append(MetricInfo(m["code"], m["name"], "CNY_M"))
        aliases.append(AliasRecord("metric", m["english"], m["code"]))
    entity_infos.append(EntityInfo("HOME", "样本集团", "home"))
    began = time.perf_counter()
    glossary = glossary_build(
        entities=entity_infos,
        metrics=metric_infos,
        channels=[ChannelInfo("TOTAL", "合计")],
        units=[UnitInfo("CNY_M", "百万元", "CNY m")],
        aliases=aliases,
        home_company_name="样本集团",
    )
    build_s = time.perf_counter() - began
    rng = random.Random(11)
    questions = []
    for _ in range(2_000):
        e, m = synthetic.entity(rng.randrange(entities)), synthetic.metric(rng.randrange(100))
        form = rng.choice(["full", "short", "english"])
        year = rng.choice([2023, 2024, 2025])
        questions.append(
            f"What was {e['english']} {m['english']} in FY{year}?"
            if form == "english"
            else f"{e[form]}{year}年的{m['name']}是多少"
        )
    parse_ms, gate_ms = [], []
    for question in questions:
        began = time.perf_counter()
        intent = parse_intent(question, glossary, REFERENCE)
        middle = time.perf_counter()
        verdict = security_screen(raw_question=question, glossary=glossary, language=intent.language)
        clarify_scope(intent, glossary=glossary, reference_date=REFERENCE, verdict=verdict)
        end = time.perf_counter()
        parse_ms.append((middle - began) * 1000)
        gate_ms.append((end - began) * 1000)
        assert intent.entity and intent.metric, question
    parse_ms.sort()
    # The same questions as analysts write them: a request or context frame around each, a detail
    # word after the metric or a rounding instruction (every word segmented and typed).
    frames = ("请问{}？", "麻烦看下{}", "根据年报，{}", "{}，结果保留至小数点后两位", "能告诉我{}吗", "{}, please")
    phrased_ms = []
    for i, question in enumerate(questions):
        phrased = frames[i % len(frames)].format(question.replace("是多少", "的详细数据是多少"))
        began = time.perf_counter()
        intent = parse_intent(phrased, glossary, REFERENCE)
        phrased_ms.append((time.perf_counter() - began) * 1000)
        assert intent.entity and intent.metric and intent.unknown_metric is None, phrased
    phrased_ms.sort()
    return {
        "phrased_p50_ms": round(statistics.median(phrased_ms), 4),
        "phrased_p95_ms": round(phrased_ms[int(0.95 * (len(phrased_ms) - 1))], 4),
        "aliases": len(glossary.matcher),
        "automaton_build_s": round(build_s, 2),
        "questions": len(questions),
        "parse_p50_ms": round(statistics.median(parse_ms), 4),
        "parse_p95_ms": round(parse_ms[int(0.95 * (len(parse_ms) - 1))], 4),
        "parse_plus_gates_p50_ms": round(statistics.median(gate_ms), 4),
    }
