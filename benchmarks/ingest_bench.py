"""Office ingestion speed: digital PDF pages/s and pptx slides/s through the real pipeline
(`documents.services.document_ingest`: extraction, tables → facts, text → chunks, one transaction),
on generated documents, with the process's RSS sampled during each run; then the two real annual
reports of `../shared/bench/reports/` with the time of each stage and their facts against gold.

Run: `python -m benchmarks.ingest_bench [--pages 200] [--slides 200]` (fresh SQLite database).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from pathlib import Path

TEXT = (
    "第三季度访港旅客人均消费同比下降约12%，电子产品消费占比下降明显。铜锣湾旗舰店客流同比下降15%，尖沙咀门店下降11%。"
)


def pdf_bytes(pages: int) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    style = ParagraphStyle("zh", fontName="STSong-Light", fontSize=10, leading=15)
    story: list[object] = []
    for page in range(pages):
        story.append(Paragraph(f"ACME香港 经营回顾 第{page + 1}页", style))
        for _ in range(6):
            story.append(Paragraph(TEXT, style))
        table = Table(
            [["ACME香港", "FY2024", "FY2025"], ["营业收入", "25,730.1", "24,015.8"], ["毛利率", "33.8%", "33.1%"]]
        )
        table.setStyle(
            TableStyle([("FONTNAME", (0, 0), (-1, -1), "STSong-Light"), ("GRID", (0, 0), (-1, -1), 0.5, "black")])
        )
        story.append(table)
        story.append(PageBreak())
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4, invariant=1).build(story)
    return buffer.getvalue()


def pptx_bytes(slides: int) -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for n in range(slides):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = f"ACME中国内地 第{n + 1}页"
        rows = [["指标", "FY2024", "FY2025"], ["营业收入", "87,402.6", "96,120.3"], ["毛利率", "32.5%", "30.4%"]]
        table = slide.shapes.add_table(3, 3, Inches(0.5), Inches(1.5), Inches(8), Inches(1.5)).table
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                table.cell(r, c).text = value
        slide.notes_slide.notes_text_frame.text = TEXT
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--slides", type=int, default=200)
    parser.add_argument("--workdir", type=Path, default=Path("var/bench"))
    parser.add_argument("--no-reports", action="store_true", help="skip the two real annual reports")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"ingest-{os.getpid()}.sqlite3")
    import django

    django.setup()
    from io import StringIO

    from django.core.management import call_command

    from benchmarks.backend import PeakRss, rss_mb
    from documents.services import document_ingest

    call_command("migrate", verbosity=0)
    call_command("load_demo", stdout=StringIO())  # the glossary, so table labels resolve
    results = {}
    for label, name, data, units in (
        ("pdf", "bench.pdf", pdf_bytes(args.pages), args.pages),
        ("pptx", "bench.pptx", pptx_bytes(args.slides), args.slides),
    ):
        before = rss_mb()
        with PeakRss() as memory:
            began = time.perf_counter()
            outcome = document_ingest(name=name, data=data)
            seconds = time.perf_counter() - began
        results[label] = {
            "units": units,
            "mb": round(len(data) / 1e6, 2),
            "seconds": round(seconds, 2),
            "per_s": round(units / seconds, 1),
            "rss_growth_mb": round(memory.peak - before, 1),
            "summary": outcome.summary(),
        }
    if not args.no_reports:
        results["reports"] = reports_measure(args.workdir)
    print(json.dumps(results, ensure_ascii=False))


REPORTS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "reports"


def reports_measure(workdir: Path) -> dict[str, object]:
    """The two real annual reports of `../shared/bench/reports/`, each into a fresh database with
    their glossary: per-stage seconds (extraction, tables → facts, text → chunks, then the whole
    `document_ingest`), pages/s, and the approved facts of the report's company and year against
    the contest's fact table (exact, wrong, missing)."""
    if not (REPORTS / "gold.json").exists():
        return {"skipped": f"{REPORTS} is missing"}
    from decimal import Decimal
    from io import StringIO

    from django.core.management import call_command
    from django.db import connection

    from core.model.period import Period
    from documents.services import document_ingest
    from facts.models import FactMetric
    from facts.selectors import glossary_snapshot
    from ingestion import document_facts, extract
    from retrieval.services import chunks_prepare

    connection.close()
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(workdir / f"reports-{os.getpid()}.sqlite3")
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = os.environ["RAGSPINE_BENCH_SQLITE"]
    call_command("migrate", verbosity=0)
    call_command("import_glossary", str(REPORTS / "glossary.csv"), stdout=StringIO())
    glossary = glossary_snapshot()
    measured: dict[str, object] = {}
    for doc in json.loads((REPORTS / "gold.json").read_text(encoding="utf-8"))["docs"]:
        data = (REPORTS / doc["doc"]).read_bytes()
        began = time.perf_counter()
        extracted = extract(doc["doc"], data)
        extract_s = time.perf_counter() - began
        began = time.perf_counter()
        document_facts(extracted, glossary=glossary, sensitivity="INTERNAL", report_period=Period("FY", doc["year"]))
        facts_s = time.perf_counter() - began
        began = time.perf_counter()
        chunks_prepare(title=extracted.title, blocks=extracted.blocks, user_words=glossary.alias_texts())
        chunks_s = time.perf_counter() - began
        began = time.perf_counter()
        document_ingest(name=doc["doc"], data=data)
        total_s = time.perf_counter() - began
        approved: dict[str, list[Decimal]] = {}
        rows = FactMetric.objects.filter(
            review_status="approved",
            document__name=doc["doc"],
            entity__code=doc["entity"],
            period_type="FY",
            period=doc["year"],
            channel__code="TOTAL",
        ).values_list("metric__code", "value")
        for metric, value in rows:
            approved.setdefault(metric, []).append(value)
        exact = sum(approved.get(m) == [Decimal(v)] for m, v in doc["gold"].items())
        wrong = sum(bool(approved.get(m)) and approved.get(m) != [Decimal(v)] for m, v in doc["gold"].items())
        measured[doc["doc"]] = {
            "pages": extracted.pages,
            "extract_s": round(extract_s, 2),
            "facts_s": round(facts_s, 2),
            "chunks_s": round(chunks_s, 2),
            "ingest_s": round(total_s, 2),
            "pages_per_s": round(extracted.pages / total_s, 1) if extracted.pages else None,
            "gold": len(doc["gold"]),
            "exact": exact,
            "wrong": wrong,
            "missing": sorted(m for m in doc["gold"] if not approved.get(m)),
        }
    return measured


if __name__ == "__main__":
    main()
