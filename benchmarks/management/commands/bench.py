"""`manage.py bench`: the SPEC §12 benchmarks (BENCHMARKS.md). Each measure runs in a fresh
process (`python -m benchmarks.<module>`) except the parse speed and the retrieval quality; the
results go to `bench_out/results.json` and print as BENCHMARKS.md's tables (`benchmarks.report`).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchmarks import parse_bench, synthetic
from benchmarks.report import markdown


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
        return parse_bench.run(entities=entities)

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
