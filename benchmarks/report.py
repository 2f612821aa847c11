"""The results of `manage.py bench` as BENCHMARKS.md's tables: each speed target beside its
figure (`markdown`), and two checkouts' runs side by side (`versus_markdown`)."""

from __future__ import annotations

from typing import Any


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
