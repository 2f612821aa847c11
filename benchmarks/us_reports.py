"""The four US annual reports (Form 10-K, PDF as filed) of `../shared/bench/reports/us/`, read as a
curator would read them: a fresh glossary (`import_glossary glossary.csv`), each report through
`document_ingest`, the approved facts compared with the hand-keyed gold (120 line items from the
primary statements); then one decision per label the glossary did not know (the review queue's
`label_alias_add`: this printed label is that metric), each report read again, and the facts
compared once more. Nothing approved may be wrong, before or after.

Run: `python -m benchmarks.us_reports` (a fresh SQLite database under `var/bench`); the test
`tests/documents/test_us_reports.py` runs the same measure.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

US = Path(__file__).resolve().parents[2] / "shared" / "bench" / "reports" / "us"


@dataclass
class ReportScore:
    doc: str
    pages: int = 0
    seconds: float = 0.0
    gold: int = 0
    exact: int = 0
    wrong: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)  # labels a curator named a metric for
    reread_seconds: float = 0.0
    exact_after: int = 0
    wrong_after: list[str] = field(default_factory=list)
    missing_after: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "doc": self.doc,
            "pages": self.pages,
            "seconds": round(self.seconds, 1),
            "pages_per_s": round(self.pages / self.seconds, 1) if self.seconds else None,
            "gold": self.gold,
            "exact_before": self.exact,
            "wrong_before": self.wrong,
            "decisions": self.decisions,
            "exact_after": self.exact_after,
            "wrong_after": self.wrong_after,
            "missing_after": self.missing_after,
        }


def gold_load() -> list[dict[str, Any]]:
    return list(json.loads((US / "gold.json").read_text(encoding="utf-8"))["docs"])


def gold_facts_csv(path: Path) -> Path:
    """The gold line items as an `import_facts` CSV (USD millions, each with its page): the desk an
    analyst would have if every statement line were approved."""
    import csv

    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["entity", "metric", "period", "value", "unit", "source_doc", "locator"])
        for doc in gold_load():
            for period, items in doc["gold"].items():
                for metric, item in items.items():
                    writer.writerow(
                        [doc["entity"], metric, period, item["value"], "USD_M", doc["doc"], f"page={item['page']}"]
                    )
    return path


def _compare(doc: dict[str, Any]) -> tuple[int, list[str], list[str]]:
    """(exact, wrong, missing) of the approved facts of a report against its gold."""
    from facts.models import FactMetric

    exact, wrong, missing = 0, [], []
    for year, items in doc["gold"].items():
        for metric, item in items.items():
            values = list(
                FactMetric.objects.filter(
                    review_status="approved",
                    document__name=doc["doc"],
                    entity__code=doc["entity"],
                    metric__code=metric,
                    period_type="FY",
                    period=year.removeprefix("FY"),
                    channel__code="TOTAL",
                ).values_list("value", flat=True)
            )
            if values == [Decimal(item["value"])]:
                exact += 1
            elif values:
                wrong.append(f"{year} {metric}: {values} (gold {item['value']})")
            else:
                missing.append(f"{year} {metric}")
    return exact, wrong, missing


def _decisions(doc: dict[str, Any]) -> list[str]:
    """A curator's decisions for one report: for each gold line item not approved, the label it
    waits under on its statement's page, added as an alias of the gold metric from the review
    queue (one decision per label, whatever the years)."""
    from django.core.exceptions import ValidationError

    from core.glossary import alias_key
    from facts.models import FactMetric
    from facts.services.review_queue import label_alias_add

    decided: dict[str, str] = {}
    pending = FactMetric.objects.filter(review_status="pending", document__name=doc["doc"])
    for year, items in doc["gold"].items():
        for metric, item in items.items():
            waiting = pending.filter(
                entity__code=doc["entity"],
                period_type="FY",
                period=year.removeprefix("FY"),
                value=Decimal(item["value"]),
                locator__startswith=f"page={item['page']},",
            ).exclude(suggested_alias="")
            printed = _row_key(item["label"])
            for fact in waiting:
                if _row_key(fact.locator.split(",row=", 1)[-1].split(",col=", 1)[0]) != printed:
                    continue  # another line of the same figure (`Total liabilities and equity`)
                key = alias_key(fact.suggested_alias)
                if key in decided:
                    break
                try:
                    label_alias_add(candidates=FactMetric.objects.all(), text=fact.suggested_alias, metric_code=metric)
                except ValidationError:
                    continue  # the label is another metric's alias: no decision of this kind helps
                decided[key] = fact.suggested_alias
                break
    return list(decided.values())


def _page_count(data: bytes) -> int:
    import io

    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return len(pdf.pages)


def _row_key(label: str) -> str:
    """A printed label as a cell locator names its row, cut to compare a locator with the gold label."""
    from ingestion.ir import locator_label

    return locator_label(label.replace("’", "'"))[:24].casefold()


def us_reports_measure() -> list[ReportScore]:
    """Every report read, decided on and read again (see the module docstring); Django is set up."""
    from io import StringIO

    from django.core.management import call_command

    from documents.services import document_ingest

    call_command("import_glossary", str(US / "glossary.csv"), stdout=StringIO())
    scores: list[ReportScore] = []
    docs = gold_load()
    for doc in docs:
        data = (US / doc["doc"]).read_bytes()
        began = time.perf_counter()
        outcome = document_ingest(name=doc["doc"], data=data)
        seconds = time.perf_counter() - began
        assert outcome.document.status == "ready", outcome.summary()
        score = ReportScore(doc["doc"], _page_count(data), seconds)
        score.gold = sum(len(items) for items in doc["gold"].values())
        score.exact, score.wrong, score.missing = _compare(doc)
        scores.append(score)
    for doc, score in zip(docs, scores, strict=True):
        score.decisions = _decisions(doc)
    for doc, score in zip(docs, scores, strict=True):
        began = time.perf_counter()
        document_ingest(name=doc["doc"], data=(US / doc["doc"]).read_bytes(), force=True)
        score.reread_seconds = time.perf_counter() - began
        score.exact_after, score.wrong_after, score.missing_after = _compare(doc)
    return scores


def main() -> None:
    workdir = Path("var/bench")
    workdir.mkdir(parents=True, exist_ok=True)
    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    database = workdir / f"us-reports-{os.getpid()}.sqlite3"
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(database)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    scores = us_reports_measure()
    print(json.dumps([score.as_dict() for score in scores], ensure_ascii=False, indent=1))
    gold = sum(s.gold for s in scores)
    print(
        f"before decisions: {sum(s.exact for s in scores)}/{gold} exact, {sum(len(s.wrong) for s in scores)} wrong; "
        f"{sum(len(s.decisions) for s in scores)} decisions; "
        f"after: {sum(s.exact_after for s in scores)}/{gold} exact, {sum(len(s.wrong_after) for s in scores)} wrong"
    )
    database.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
