from __future__ import annotations

import json
import platform
import random
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from benchmarks import synthetic
from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.glossary import AliasRecord, ChannelInfo, EntityInfo, MetricInfo, UnitInfo, glossary_build
from core.parse.intent import parse_intent

REFERENCE = date(2026, 3, 15)


class Command(BaseCommand):
    help = "Measure the SPEC §12 targets of the fact channel and write bench_out/results.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="parse, import and ask on SQLite and Postgres")
        parser.add_argument("--parse", action="store_true")
        parser.add_argument("--db", action="store_true", help="import and ask benchmarks")
        parser.add_argument(
            "--retrieval",
            action="store_true",
            help="BM25, e5 and hybrid quality (CMRC, TAT-QA), Traditional Chinese, and speed vs rank-bm25",
        )
        parser.add_argument("--search", action="store_true", help="/v1/search over HTTP and ingestion throughput")
        parser.add_argument(
            "--search-hybrid",
            action="store_true",
            help="/v1/search bm25 and hybrid (e5-small) over 10,000 chunks with real e5 vectors",
        )
        parser.add_argument(
            "--narrative", action="store_true", help="narrative asks on the demo, without an embedder and with e5-small"
        )
        parser.add_argument(
            "--lexical-scale",
            action="store_true",
            help="per-host BM25 index at 1,000,000 chunks (build, memory, freshness) and the full-text backend",
        )
        parser.add_argument("--ingest", action="store_true", help="office ingestion: PDF pages/s, pptx slides/s")
        parser.add_argument(
            "--computed", action="store_true", help="growth, formula and ranking answers over 1,000,000 facts"
        )
        parser.add_argument(
            "--series",
            action="store_true",
            help="a 12-quarter series with growth per step over 1,000,000 facts (also part of --computed)",
        )
        parser.add_argument(
            "--tables", action="store_true", help="TAT-QA tables as xlsx, docx and PDF, cell by cell against print"
        )
        parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
        parser.add_argument(
            "--quick", action="store_true", help="a tenth of the sizes, for a smoke run (alone: every measure)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        quick = options["quick"]
        sections = ("parse", "db", "retrieval", "search", "search_hybrid", "computed", "narrative", "lexical_scale")
        if quick and not any(options[name] for name in (*sections, "ingest", "tables")):
            options["all"] = True
        results: dict[str, Any] = {"date": date.today().isoformat(), "machine": _machine()}
        if options["all"] or options["parse"]:
            results["parse"] = self.bench_parse(entities=2_500 if quick else 25_000)
            self.stdout.write(json.dumps(results["parse"], ensure_ascii=False))
        if options["all"] or options["db"]:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            entities = 200 if quick else 2_000
            results["db"] = [
                self.bench_db(b, entities=entities, metrics=100, years=[2021, 2022, 2023, 2024, 2025]) for b in backends
            ]
        if options["all"] or options["retrieval"]:
            from benchmarks import retrieval_bench

            results["retrieval"] = retrieval_bench.run(quick=quick)
            self.stdout.write(retrieval_bench.markdown(results["retrieval"]))
            self.stdout.write(retrieval_bench.semantic_markdown(results["retrieval"]["semantic"]))
        if options["all"] or options["search"]:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            results["search"] = [self.bench_search(b, quick=quick) for b in backends]
        if options["all"] or options["search_hybrid"]:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            results["search_hybrid"] = [self.bench_search(b, quick=quick, hybrid=True) for b in backends]
        if options["all"] or options["computed"]:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            results["computed"] = [self.bench_computed(b, quick=quick) for b in backends]
        elif options["series"]:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            results["computed"] = [self.bench_computed(b, quick=quick, shapes="series") for b in backends]
        if options["all"] or options["narrative"]:
            command = [sys.executable, "-m", "benchmarks.narrative_ask", "--workdir", str(_workdir())]
            results["narrative"] = _module_run(command, "narrative")
            self.stdout.write(json.dumps(results["narrative"], ensure_ascii=False))
        if options["all"] or options["lexical_scale"]:
            results["lexical_scale"] = []
            for backend in ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]:
                chunks = "10000" if quick else "1000000" if backend == "sqlite" else "100000"
                command = [sys.executable, "-m", "benchmarks.lexical_scale", "--backend", backend, "--chunks", chunks]
                command += ["--workdir", str(_workdir()), "--lexical", "inprocess,postgres"]
                self.stdout.write(" ".join(command[1:]))
                results["lexical_scale"].append(_module_run(command, f"{backend} lexical scale"))
                self.stdout.write(json.dumps(results["lexical_scale"][-1], ensure_ascii=False))
        if options["all"] or options["ingest"]:
            size = "50" if quick else "200"
            command = [sys.executable, "-m", "benchmarks.ingest_bench", "--pages", size, "--slides", size]
            results["ingest"] = _module_run(command, "ingest")
            self.stdout.write(json.dumps(results["ingest"], ensure_ascii=False))
        if options["all"] or options["tables"]:
            command = [sys.executable, "-m", "benchmarks.tables_bench", *(["--limit", "40"] if quick else [])]
            results["tables"] = _module_run(command, "tables")
        out = Path(settings.BASE_DIR) / "bench_out"
        out.mkdir(exist_ok=True)
        (out / "results.json").write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
        self.stdout.write(f"wrote {out / 'results.json'}")
        self.stdout.write(markdown(results))

    def bench_parse(self, *, entities: int) -> dict[str, Any]:
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

    def bench_db(self, backend: str, *, entities: int, metrics: int, years: list[int]) -> dict[str, Any]:
        workdir = Path(settings.BASE_DIR) / "var" / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        for old in workdir.glob("bench-*.sqlite3*"):
            old.unlink()
        synthetic.glossary_csv(workdir / "glossary.csv", entities=entities, metrics=metrics)
        synthetic.facts_csv(
            workdir / "facts_small.csv", entities=max(entities // 10, 1), metrics=metrics, years=years[:1]
        )
        synthetic.facts_csv(workdir / "facts.csv", entities=entities, metrics=metrics, years=years)
        command = [
            sys.executable,
            "-m",
            "benchmarks.backend",
            "--backend",
            backend,
            "--workdir",
            str(workdir),
            "--entities",
            str(entities),
            "--metrics",
            str(metrics),
            "--years",
            *map(str, years),
        ]
        self.stdout.write(f"{backend}: {' '.join(command[1:])}")
        result = _module_run(command, backend)
        self.stdout.write(json.dumps(result, ensure_ascii=False))
        return result

    def bench_computed(self, backend: str, *, quick: bool, shapes: str = "") -> dict[str, Any]:
        workdir = Path(settings.BASE_DIR) / "var" / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        for old in workdir.glob("computed-*.sqlite3*"):
            old.unlink()
        sizes = ["--entities", "500", "--asks", "30", "--series-entities", "20"] if quick else []
        command = [sys.executable, "-m", "benchmarks.computed_backend", "--backend", backend, "--workdir", str(workdir)]
        command += sizes + (["--shapes", shapes] if shapes else [])
        self.stdout.write(f"{backend}: {' '.join(command[1:])}")
        result = _module_run(command, f"{backend} computed")
        self.stdout.write(json.dumps(result, ensure_ascii=False))
        return result

    def bench_search(self, backend: str, *, quick: bool, hybrid: bool = False) -> dict[str, Any]:
        workdir = Path(settings.BASE_DIR) / "var" / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        for old in workdir.glob("search-*.sqlite3*"):
            old.unlink()
        sizes = ["--chunks", "10000", "--queries", "50", "--ingest-docs", "20"] if quick else []
        if hybrid:  # 10k chunks with their e5 vectors (from the disk cache), no ingestion measure
            sizes = ["--chunks", "10000", "--ingest-docs", "0", "--modes", "bm25,hybrid"]
            sizes += ["--queries", "50"] if quick else []
        command = [
            sys.executable,
            "-m",
            "benchmarks.search_backend",
            "--backend",
            backend,
            "--workdir",
            str(workdir),
            *sizes,
        ]
        self.stdout.write(f"{backend}: {' '.join(command[1:])}")
        result = _module_run(command, f"{backend} search")
        self.stdout.write(json.dumps(result, ensure_ascii=False))
        return result


def _workdir() -> Path:
    workdir = Path(settings.BASE_DIR) / "var" / "bench"
    workdir.mkdir(parents=True, exist_ok=True)
    for old in [*workdir.glob("narrative-*.sqlite3*"), *workdir.glob("lexical-*.sqlite3*")]:
        old.unlink()
    return workdir


def _module_run(command: list[str], what: str) -> dict[str, Any]:
    """Run one benchmark module in a fresh process; its last line of output is its JSON result."""
    done = subprocess.run(command, cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{what} benchmark failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"
    )


def markdown(results: dict[str, Any]) -> str:
    """The SPEC §12 rows of the fact channel, target beside figure, for BENCHMARKS.md."""
    lines = ["| measure | target | figure |", "|---|---|---|"]
    parse = results.get("parse")
    if parse:
        lines.append(
            f"| intent parse, {parse['aliases']:,} aliases (p50 / p95) | p50 < 0.5 ms "
            f"| {parse['parse_p50_ms']} ms / {parse['parse_p95_ms']} ms |"
        )
        lines.append(f"| parse + security gate + clarification (p50) | — | {parse['parse_plus_gates_p50_ms']} ms |")
        if "phrased_p50_ms" in parse:
            lines.append(
                f"| intent parse, same questions in a request frame (p50 / p95) | p50 < 0.5 ms "
                f"| {parse['phrased_p50_ms']} ms / {parse['phrased_p95_ms']} ms |"
            )
    for db in results.get("db", []):
        small, full = db["imports"]
        lines.append(
            f"| `import_facts` {full['rows']:,} rows, {db['backend']} | ≥ 15,000 facts/s, bounded memory "
            f"| {full['facts_per_s']:,} facts/s; RSS grew {full['growth_mb']} MB during the import "
            f"({small['growth_mb']} MB for {small['rows']:,} rows) |"
        )
        ask = db["ask"]
        lines.append(
            f"| `/v1/ask` structured, {full['rows']:,} facts, {db['backend']} (p50 / p95) | p50 < 20 ms "
            f"| {ask['p50_ms']} ms / {ask['p95_ms']} ms, {ask['wrong_answers']} wrong of {ask['n']} |"
        )
    for computed in results.get("computed", []):
        for shape, figures in computed["asks"].items():
            what = {
                "growth": "YoY growth",
                "formula": "a formula metric",
                "ranking": f"a ranking over {computed['entities']:,} entities",
                "series": "a 12-quarter series with growth per step",
            }[shape]
            lines.append(
                f"| `/v1/ask` computed, {what}, {computed['facts']:,} facts, {computed['backend']} (p50 / p95) "
                f"| p50 < 20 ms | {figures['p50_ms']} ms / {figures['p95_ms']} ms, "
                f"{figures['wrong_answers']} wrong of {figures['n'] + 5} |"
            )
    for search in [*results.get("search", []), *results.get("search_hybrid", [])]:
        for lexical, figures in search["search_http"].items():
            mode = figures.get("mode", "bm25")
            target = "p50 ≤ 10 ms" if mode == "bm25" else "p50 ≤ 60 ms" if mode == "hybrid" else "—"
            lines.append(
                f"| `/v1/search?mode={mode}` over HTTP, {search['corpus']['total_chunks']:,} chunks, "
                f"{search['backend']}, {lexical.split('+')[0]} lexical index (p50 / p95) | {target} "
                f"| {figures['p50_ms']} ms / {figures['p95_ms']} ms |"
            )
        ingest = search.get("ingest")
        if not ingest:
            continue
        lines.append(
            f"| ingestion of text documents, {search['backend']} | — | {ingest['documents_per_s']} documents/s, "
            f"{ingest['chunks_per_s']} chunks/s, {ingest['chars_per_s']:,} characters/s |"
        )
    narrative = results.get("narrative")
    if narrative:
        for embedder in ("none", "e5-small"):
            figures = narrative[embedder]
            lines.append(
                f"| narrative ask on the demo, embedder {embedder}, {narrative['questions']} questions × "
                f"{narrative['rounds']} (p50 / p95) | {'p50 ≤ 35 ms' if embedder != 'none' else '—'} "
                f"| {figures['p50_ms']} ms / {figures['p95_ms']} ms |"
            )
    for scale in results.get("lexical_scale", []):
        corpus, local = scale["corpus"], scale.get("inprocess")
        if local:
            lines.append(
                f"| per-host BM25 index, {corpus['chunks']:,} chunks, {scale['backend']}: build / index arrays / "
                f"peak RSS growth / fresh after a write | — | {local['build_s']} s / {local['index_arrays_mb']} MB / "
                f"{local['rss_peak_growth_mb']} MB / {local['fresh_after_write_s']} s; search p50 "
                f"{local['search']['p50_ms']} ms |"
            )
        full_text = scale.get("postgres")
        if full_text:
            lines.append(
                f"| PostgreSQL full-text backend, {corpus['chunks']:,} chunks (p50 / p95) | p50 ≤ 15 ms "
                f"| {full_text['search']['p50_ms']} ms / {full_text['search']['p95_ms']} ms "
                f"(matching alone {full_text['match_count_only']['p50_ms']} ms) |"
            )
    for fmt, score in results.get("tables", {}).get("formats", {}).items():
        for which in ("all", "selected"):
            figures = score[which]
            lines.append(
                f"| TAT-QA tables as {fmt}, {which} ({figures['tables']} tables, {figures['scored_cells']:,} cells) "
                f"| ≥ 95% exact approved, 0 wrong approved | {figures['exact_share']:.1%} exact approved, "
                f"{figures['wrong_approved']:,} wrong approved, {figures['pending']:,} pending, "
                f"{figures['missing']:,} missing ({score['seconds']} s) |"
            )
    return "\n".join(lines)
