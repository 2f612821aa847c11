"""Narrative asks on the demo, without an embedder and with `e5-small`, in a fresh process
(`python -m benchmarks.narrative_ask --workdir var/bench`).

A fresh SQLite database gets the demo (`load_demo`) and every demo chunk its e5 vector. Then the
golden set's narrative and composite questions (ids `nar-*`) are asked in process through
`agent.services.question_ask` (mock provider, the golden user and reference date): one warm-up round, then
`--rounds` timed rounds, first with `RAGSPINE_EMBEDDER=none`, then with `e5-small`. Each answer's
text and citations (document and locator of every source, and the cited chunks in order) are
printed as a fingerprint, so two runs (two commits) can be compared answer by answer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from datetime import date
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent.parent.parent / "shared" / "golden" / "golden.jsonl"


def _fingerprint(result: Any) -> str:
    cited = [(s.kind, s.doc, s.locator) for s in result.sources]
    body = json.dumps([result.answer_kind, result.route, result.sections.text, cited], ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)

    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = "sqlite"
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"narrative-{os.getpid()}.sqlite3")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from agent.services import question_ask
    from retrieval.embedders import E5SmallEmbedder
    from retrieval.services import chunks_embed

    call_command("migrate", verbosity=0)
    with open(os.devnull, "w") as quiet:
        call_command("load_demo", stdout=quiet, stderr=quiet)
    began = time.perf_counter()
    embedded = chunks_embed(embedder=E5SmallEmbedder()).embedded
    embed_s = time.perf_counter() - began

    cases = [json.loads(line) for line in args.golden.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = [c for c in cases if c["id"].startswith("nar-")]
    users = {name: get_user_model().objects.get(username=name) for name in {c["user"] for c in cases}}
    result: dict[str, Any] = {"questions": len(cases), "rounds": args.rounds, "chunks_embedded": embedded}
    result["embed_chunks_s"] = round(embed_s, 1)
    for embedder in ("none", "e5-small"):
        settings.RAGSPINE["EMBEDDER"] = embedder
        times: list[float] = []
        answers: dict[str, str] = {}
        for round_ in range(args.rounds + 1):
            for case in cases:
                began = time.perf_counter()
                answer = question_ask(
                    case["question"],
                    user=users[case["user"]],
                    reference_date=date.fromisoformat(case["reference_date"]),
                ).result
                elapsed = (time.perf_counter() - began) * 1000
                fingerprint = _fingerprint(answer)
                if round_ == 0:
                    answers[case["id"]] = fingerprint
                    continue
                assert answers[case["id"]] == fingerprint, f"{case['id']}: the answer changed between rounds"
                times.append(elapsed)
        times.sort()
        result[embedder] = {
            "n": len(times),
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "answers": answers,
        }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
