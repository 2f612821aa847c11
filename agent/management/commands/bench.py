from __future__ import annotations

import json
import os
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
from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchmarks import synthetic
from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.glossary import AliasRecord, ChannelInfo, EntityInfo, MetricInfo, UnitInfo, glossary_build
from core.parse.intent import parse_intent

REFERENCE = date(2026, 3, 15)


class Command(BaseCommand):
    help = "Measure the speed targets of the fact channel (BENCHMARKS.md) and write bench_out/results.json."

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
        parser.add_argument(
            "--versus",
            type=Path,
            help="another checkout (a git worktree of an older commit): run its --db and --computed benchmarks "
            "and this one's alternately, in one run, and print them side by side",
        )
        parser.add_argument("--rounds", type=int, default=2, help="with --versus: alternations of before and after")

    def handle(self, *args: Any, **options: Any) -> None:
        quick = options["quick"]
        results: dict[str, Any] = {"date": date.today().isoformat(), "machine": _machine()}
        chosen = ("parse", "db", "retrieval", "search", "search_hybrid", "computed", "series", "narrative")
        chosen += ("lexical_scale", "ingest", "tables", "versus")
        if quick and not options["all"] and not any(options[name] for name in chosen):
            options["all"] = True  # `bench --quick` alone: every measure, at a tenth of the sizes
        if options["versus"]:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            results["versus"] = self.bench_versus(
                options["versus"].resolve(), backends=backends, quick=quick, rounds=options["rounds"]
            )
        versus = bool(options["versus"])  # --db and --computed ran there, for both checkouts
        if options["all"] or options["parse"]:
            results["parse"] = self.bench_parse(entities=2_500 if quick else 25_000)
            self.stdout.write(json.dumps(results["parse"], ensure_ascii=False))
        if (options["all"] or options["db"]) and not versus:
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
        if (options["all"] or options["computed"]) and not versus:
            backends = ["sqlite", "postgres"] if options["backend"] == "both" else [options["backend"]]
            results["computed"] = [self.bench_computed(b, quick=quick) for b in backends]
        elif options["series"] and not versus:
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

    def bench_db(
        self, backend: str, *, entities: int, metrics: int, years: list[int], code: Path | None = None
    ) -> dict[str, Any]:
        workdir = Path(settings.BASE_DIR) / "var" / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        for old in workdir.glob("bench-*.sqlite3*"):
            old.unlink()
        if not _same_files(workdir, entities=entities, metrics=metrics, years=years):
            synthetic.glossary_csv(workdir / "glossary.csv", entities=entities, metrics=metrics)
            synthetic.facts_csv(
                workdir / "facts_small.csv", entities=max(entities // 10, 1), metrics=metrics, years=years[:1]
            )
            synthetic.facts_csv(workdir / "facts.csv", entities=entities, metrics=metrics, years=years)
            (workdir / "facts.sizes").write_text(json.dumps([entities, metrics, years]))
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
        self.stdout.write(f"{backend}: {' '.join(command[1:])}" + (f" (in {code})" if code else ""))
        result = _module_run(command, backend, cwd=code)
        self.stdout.write(json.dumps(result, ensure_ascii=False))
        return result

    def bench_computed(
        self, backend: str, *, quick: bool, shapes: str = "", code: Path | None = None
    ) -> dict[str, Any]:
        workdir = Path(settings.BASE_DIR) / "var" / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        for old in workdir.glob("computed-*.sqlite3*"):
            old.unlink()
        sizes = ["--entities", "500", "--asks", "30"] if quick else []
        if quick and (not shapes or "series" in shapes.split(",")):
            sizes += ["--series-entities", "20"]
        command = [sys.executable, "-m", "benchmarks.computed_backend", "--backend", backend, "--workdir", str(workdir)]
        command += sizes + (["--shapes", shapes] if shapes else [])
        self.stdout.write(f"{backend}: {' '.join(command[1:])}" + (f" (in {code})" if code else ""))
        result = _module_run(command, f"{backend} computed", cwd=code)
        self.stdout.write(json.dumps(result, ensure_ascii=False))
        return result

    def bench_versus(self, before: Path, *, backends: list[str], quick: bool, rounds: int) -> dict[str, Any]:
        """The --db and --computed benchmarks of `before` (another checkout) and of this code,
        alternating in one run, `rounds` times each, so that both meet the same load on the
        machine; each run records the load average it started under."""
        if not (before / "benchmarks" / "backend.py").is_file():
            raise CommandError(f"{before}: not a RAGSpine checkout with benchmarks/backend.py")
        after = Path(settings.BASE_DIR).resolve()
        entities = 200 if quick else 2_000
        runs: list[dict[str, Any]] = []
        for number in range(1, rounds + 1):
            for backend in backends:
                sides = [("before", before), ("after", after)]
                for side, code in sides if number % 2 else sides[::-1]:  # who goes first alternates too
                    load = os.getloadavg()[0]
                    db = self.bench_db(
                        backend, entities=entities, metrics=100, years=[2021, 2022, 2023, 2024, 2025], code=code
                    )
                    computed = self.bench_computed(backend, quick=quick, shapes=_versus_shapes(code), code=code)
                    run = {"round": number, "side": side, "backend": backend, "db": db, "computed": computed}
                    runs.append(run | {"load": [round(load, 2), round(os.getloadavg()[0], 2)]})
        return {"before": _describe(before), "after": _describe(after), "runs": runs}

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


def _module_run(command: list[str], what: str, cwd: Path | None = None) -> dict[str, Any]:
    """Run one benchmark module in a fresh process (in `cwd`, another checkout's code, if given);
    its last line of output is its JSON result."""
    done = subprocess.run(command, cwd=cwd or settings.BASE_DIR, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{what} benchmark failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _versus_shapes(code: Path) -> str:
    """The computed shapes the before/after table compares (`versus_markdown`), for a checkout
    whose computed benchmark lets them be chosen; an older one, without `--shapes`, measures just
    these anyway and is not given the option."""
    module = (code / "benchmarks" / "computed_backend.py").read_text(encoding="utf-8")
    return "growth,formula,ranking" if "--shapes" in module else ""


def _same_files(workdir: Path, **sizes: Any) -> bool:
    """Whether the synthetic files in `workdir` were written for these sizes (a --versus run
    writes them once for every run)."""
    marker = workdir / "facts.sizes"
    wanted = [sizes["entities"], sizes["metrics"], sizes["years"]]
    return marker.is_file() and (workdir / "facts.csv").is_file() and json.loads(marker.read_text()) == wanted


def _describe(code: Path) -> str:
    """A checkout as `path (commit)`."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=code, capture_output=True, text=True)
    return f"{code} ({done.stdout.strip() or 'no git'})"


def _machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"
    )


def markdown(results: dict[str, Any]) -> str:
    """The speed targets of the fact channel, target beside figure, for BENCHMARKS.md."""
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
                "defined": "a formula the question defines (a change between years, an average of year-ends)",
                "why": f"a why split over {computed['entities']:,} subsidiaries and 4 channels",
            }[shape]
            lines.append(
                f"| `/v1/ask` computed, {what}, {computed['facts']:,} facts, {computed['backend']} (p50 / p95) "
                f"| p50 < 20 ms | {figures['p50_ms']} ms / {figures['p95_ms']} ms, "
                f"{figures['wrong_answers']} wrong of {figures['n'] + 5} |"
            )
            if figures.get("why_stage_p50_ms") is not None:
                lines.append(
                    f"| the why's numbers (the trace's `why` stage), {computed['backend']} (p50; first ask) "
                    f"| p50 < 20 ms | {figures['why_stage_p50_ms']} ms; {figures.get('why_stage_first_ms')} ms |"
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
    if results.get("versus"):
        lines += ["", *versus_markdown(results["versus"])]
    return "\n".join(lines)


def versus_markdown(versus: dict[str, Any]) -> list[str]:
    """Before and after side by side: one row per measure and backend, every run's figure in
    the order it was taken, and the load average each run started and ended under."""
    lines = [f"Before: {versus['before']}; after: {versus['after']}.", ""]
    lines += ["| measure | backend | before | after |", "|---|---|---|---|"]
    runs = versus["runs"]

    def cell(backend: str, side: str, figure: Any) -> str:
        return "; ".join(figure(run) for run in runs if run["backend"] == backend and run["side"] == side)

    def ask(shape: str) -> Any:
        def figure(run: dict[str, Any]) -> str:
            asked = run["computed"]["asks"][shape]
            return f"{asked['p50_ms']} / {asked['p95_ms']} ms ({asked['wrong_answers']} wrong of {asked['n'] + 5})"

        return figure

    def imported(run: dict[str, Any]) -> str:
        small, full = run["db"]["imports"]
        return f"{full['facts_per_s']:,}/s (RSS +{full['growth_mb']} MB; +{small['growth_mb']} MB at {small['rows']:,})"

    def level(run: dict[str, Any]) -> str:
        asked = run["db"]["ask"]
        return f"{asked['p50_ms']} / {asked['p95_ms']} ms ({asked['wrong_answers']} wrong of {asked['n']})"

    measures: list[tuple[str, Any]] = [
        ("`import_facts`, {rows} rows (facts/s)", imported),
        ("`import_facts` in the computed set, {facts} facts (s)", lambda run: f"{run['computed']['import_s']} s"),
        ("ranking over {entities} entities, p50 / p95", ask("ranking")),
        ("YoY growth, p50 / p95", ask("growth")),
        ("formula metric, p50 / p95", ask("formula")),
        ("level ask over {rows} facts, p50 / p95", level),
        ("load average at start and end of each run", lambda run: "–".join(map(str, run["load"]))),
    ]
    for backend in dict.fromkeys(run["backend"] for run in runs):
        sample = next(run for run in runs if run["backend"] == backend)
        sizes = {
            "rows": f"{sample['db']['imports'][1]['rows']:,}",
            "facts": f"{sample['computed']['facts']:,}",
            "entities": f"{sample['computed']['entities']:,}",
        }
        for name, figure in measures:
            before, after = cell(backend, "before", figure), cell(backend, "after", figure)
            lines.append(f"| {name.format(**sizes)} | {backend} | {before} | {after} |")
    return lines
