"""Build the demo's office files from the demo data (`load_demo` ingests real files).

`demo_files_write(demo_dir, out_dir)` writes every file that `demo/manifest.json` names:

- the fact documents, laid out from `demo/facts.csv` as the manifest says: the annual-results
  deck (one slide table per entity, metric rows × period columns, and one table per channel
  split titled with the channel), the five-year workbook (one sheet per entity, a merged title
  row, `其中：线上` channel rows), the quarterly workbook (transposed: period rows × metric
  columns), the interim report (a digital PDF with a segment table: entity rows, the metric in
  the title) and the internal Word document (its text plus the RESTRICTED fact in a table);
- the narrative documents from `demo/docs/*.md`: PDF (headings and paragraphs on pages), pptx
  (a title slide, then one slide per `##` section), docx (Title, Heading 2, paragraphs), md (as is).

Labels are the glossary's human names (营业收入, 毛利率, ACME中国内地 — 线上) and periods are
labels (FY2024, 2025H1, 2025Q4), so ingesting the files exercises alias resolution. Output is
byte-for-byte deterministic: zip entries and document properties carry fixed timestamps, and
reportlab runs in invariant mode.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from core.language.periods import period_parse

FIXED_TIME = datetime(2026, 3, 1, 9, 0, 0)
_ZIP_TIME = (2026, 3, 1, 9, 0, 0)
_CJK_FONT = "STSong-Light"  # a CID font built into reportlab: no font file needed, text extracts as Unicode
_MONEY_UNIT = "（人民币百万元）"


@dataclass(frozen=True)
class DemoFact:
    entity: str
    metric: str
    period: str
    channel: str
    value: str
    unit: str
    source_doc: str
    sensitivity: str


@dataclass(frozen=True)
class _Names:
    entities: dict[str, str]
    metrics: dict[str, str]
    channels: dict[str, str]
    metric_units: dict[str, str]

    def metric_label(self, code: str) -> str:
        suffix = {"TEN_THOUSAND_PERSONS": "（万人）"}.get(self.metric_units.get(code, ""), "")
        return self.metrics.get(code, code) + suffix


def demo_facts_read(demo_dir: Path) -> list[DemoFact]:
    with (demo_dir / "facts.csv").open(encoding="utf-8") as handle:
        return [DemoFact(**{k: (v or "").strip() for k, v in row.items()}) for row in csv.DictReader(handle)]


def demo_manifest(demo_dir: Path) -> dict[str, Any]:
    return json.loads((demo_dir / "manifest.json").read_text(encoding="utf-8"))


def demo_sensitivity(demo_dir: Path, file: str) -> str:
    """A demo file's sensitivity: its narrative entry's, else INTERNAL."""
    for entry in demo_manifest(demo_dir).get("narrative_documents", []):
        if entry["file"] == file:
            return str(entry.get("sensitivity", "INTERNAL"))
    return "INTERNAL"


def _names(demo_dir: Path) -> _Names:
    names: dict[str, dict[str, str]] = {"entity": {}, "metric": {}, "channel": {}}
    units: dict[str, str] = {}
    with (demo_dir / "glossary.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            names[row["kind"]].setdefault(row["code"], row["name"])
            if row["kind"] == "metric":
                units.setdefault(row["code"], row["unit"])
    return _Names(names["entity"], names["metric"], names["channel"], units)


# -- shared helpers ---------------------------------------------------------------------------------


def _display(value: str, unit: str) -> str:
    """A value as a report prints it: `128,450.6`, `(1,085.2)`, `29.7%`."""
    number = Decimal(value)
    if unit == "PCT":
        return f"{format(number, 'f')}%"
    text = format(abs(number), ",f")
    return f"({text})" if number < 0 else text


def _period_key(label: str) -> tuple[int, int]:
    period = period_parse(label)
    return period.sort_key if period is not None else (0, 0)


def _ordered(codes: set[str], order: dict[str, str]) -> list[str]:
    known = list(order)
    return sorted(codes, key=lambda c: (known.index(c) if c in known else len(known), c))


def _stable_zip(data: bytes) -> bytes:
    """An OOXML package rewritten with fixed entry timestamps and fixed document dates."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            blob = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                text = blob.decode("utf-8")
                for tag in ("created", "modified"):
                    text = re.sub(rf"(<dcterms:{tag}[^>]*>)[^<]*(</dcterms:{tag}>)", rf"\g<1>{stamp}\g<2>", text)
                blob = text.encode("utf-8")
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, blob)
    return out.getvalue()


def _md_sections(text: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """A markdown document as (title, [(section heading, paragraphs)])."""
    title = ""
    sections: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading and len(heading.group(1)) == 1 and not title:
            title = heading.group(2).strip()
        elif heading:
            sections.append((heading.group(2).strip(), []))
        else:
            if not sections:
                sections.append(("", []))
            sections[-1][1].append(line)
    return title, sections


def _grid(
    facts: list[DemoFact], names: _Names, periods: list[str], *, channel: str = "TOTAL", channel_rows: bool = False
) -> list[list[str]]:
    """Metric rows × period columns for one entity (values of `channel`); other channels as `其中：` rows."""
    rows = [["项目", *periods]]
    for metric in _ordered({f.metric for f in facts}, names.metrics):
        mine = [f for f in facts if f.metric == metric]
        lines = [(channel, names.metric_label(metric))]
        if channel_rows:
            others = _ordered({f.channel for f in mine} - {channel}, names.channels)
            lines += [(ch, f"其中：{names.channels.get(ch, ch)}") for ch in others]
        for line_channel, label in lines:
            cells = {f.period: _display(f.value, f.unit) for f in mine if f.channel == line_channel}
            rows.append([label, *(cells.get(p, "—") for p in periods)])
    return rows


# -- pptx ---------------------------------------------------------------------------------------------


def _pptx_bytes(build: Callable[[Any], None], title: str) -> bytes:
    from pptx import Presentation

    presentation = Presentation()
    build(presentation)
    props = presentation.core_properties
    props.title = title
    props.author = "ACME集团"
    props.last_modified_by = "RAGSpine demo"
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    out = io.BytesIO()
    presentation.save(out)
    return _stable_zip(out.getvalue())


def _slide_table(presentation: Any, title: str, rows: list[list[str]], notes: str = "") -> None:
    from pptx.util import Emu, Inches, Pt

    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = title
    width = Inches(2.2 + 1.6 * (len(rows[0]) - 1))
    shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(0.5), Inches(1.6), width, Emu(370840 * len(rows)))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cell = shape.table.cell(r, c)
            cell.text = text
            for paragraph in cell.text_frame.paragraphs:
                for run in paragraph.runs:
                    run.font.size = Pt(14)
    if notes:
        slide.notes_slide.notes_text_frame.text = notes


def _title_slide(presentation: Any, title: str, subtitle: str) -> None:
    slide = presentation.slides.add_slide(presentation.slide_layouts[0])
    slide.shapes.title.text = title
    slide.placeholders[1].text = subtitle


def _results_deck(name: str, facts: list[DemoFact], names: _Names) -> bytes:
    """One slide table per entity (TOTAL), then one per channel split, titled with the channel."""
    periods = sorted({f.period for f in facts}, key=_period_key)
    entities = _ordered({f.entity for f in facts}, names.entities)
    home = names.entities.get(entities[0], entities[0]) if entities else "ACME集团"
    title = f"{home} {' / '.join(periods)} 年度业绩"

    def build(presentation: Any) -> None:
        _title_slide(presentation, title, "年度业绩发布 · 管理层汇报材料")
        for entity in entities:
            mine = [f for f in facts if f.entity == entity and f.channel == "TOTAL"]
            if mine:
                entity_name = names.entities.get(entity, entity)
                _slide_table(
                    presentation,
                    f"{entity_name} — 主要财务指标{_MONEY_UNIT}",
                    _grid(mine, names, periods),
                    notes=f"口径说明：{entity_name}合并口径，金额单位为人民币百万元，比率为百分比。",
                )
        for entity in entities:
            channels = _ordered({f.channel for f in facts if f.entity == entity} - {"TOTAL"}, names.channels)
            for channel in channels:
                mine = [f for f in facts if f.entity == entity and f.channel == channel]
                heading = f"{names.entities.get(entity, entity)} — {names.channels.get(channel, channel)}{_MONEY_UNIT}"
                _slide_table(presentation, heading, _grid(mine, names, periods, channel=channel))

    return _pptx_bytes(build, title)


def _narrative_deck(text: str) -> bytes:
    """A title slide, then one slide per `##` section with its paragraphs."""
    title, sections = _md_sections(text)

    def build(presentation: Any) -> None:
        _title_slide(presentation, title, "内部资料")
        for heading, paragraphs in sections:
            slide = presentation.slides.add_slide(presentation.slide_layouts[1])
            slide.shapes.title.text = heading or title
            frame = slide.placeholders[1].text_frame
            frame.text = paragraphs[0] if paragraphs else ""
            for paragraph in paragraphs[1:]:
                frame.add_paragraph().text = paragraph

    return _pptx_bytes(build, title)


# -- xlsx ---------------------------------------------------------------------------------------------


def _number_format(value: str, unit: str) -> str:
    places = len(value.split(".")[1]) if "." in value else 0
    digits = "0" + ("." + "0" * places if places else "")
    if unit == "PCT":
        return digits + "%"
    positive = "#,##" + digits
    return f"{positive};({positive})"


def _sheet_write(ws: Any, caption: str, rows: list[list[str]], facts: dict[tuple[int, int], DemoFact]) -> None:
    """Row 1: the caption merged across the table; the grid below it; fact cells as numbers."""
    ws.cell(row=1, column=1, value=caption)
    ws.merge_cells(start_row=1, start_column=1, end_row=1, end_column=len(rows[0]))
    for r, row in enumerate(rows, start=2):
        for c, text in enumerate(row, start=1):
            fact = facts.get((r - 2, c - 1))
            cell = ws.cell(row=r, column=c)
            if fact is None:
                cell.value = text
                continue
            number = Decimal(fact.value) / (100 if fact.unit == "PCT" else 1)
            cell.value = (
                int(number) if number == number.to_integral_value() and "." not in fact.value else float(number)
            )
            cell.number_format = _number_format(fact.value, fact.unit)
    ws.column_dimensions["A"].width = 24


def _fact_cells(
    rows: list[list[str]], facts: list[DemoFact], names: _Names, *, transposed: bool
) -> dict[tuple[int, int], DemoFact]:
    """Which grid cell holds which fact (matched back through the labels the grid was built from)."""
    found: dict[tuple[int, int], DemoFact] = {}
    for fact in facts:
        label = (
            names.metric_label(fact.metric)
            if fact.channel == "TOTAL"
            else f"其中：{names.channels.get(fact.channel, fact.channel)}"
        )
        for r, row in enumerate(rows):
            if transposed:
                if row[0] == fact.period and label in rows[0]:
                    found[(r, rows[0].index(label))] = fact
            elif row[0] == label and fact.period in rows[0]:
                above = [rows[i][0] for i in range(r, 0, -1) if not rows[i][0].startswith("其中")]
                if fact.channel == "TOTAL" or (above and above[0] == names.metric_label(fact.metric)):
                    found[(r, rows[0].index(fact.period))] = fact
    return found


def _workbook_bytes(build: Callable[[Any], None], title: str) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)
    build(workbook)
    workbook.properties.title = title
    workbook.properties.creator = "ACME集团"
    workbook.properties.created = FIXED_TIME
    out = io.BytesIO()
    workbook.save(out)
    return _stable_zip(out.getvalue())


def _summary_workbook(name: str, facts: list[DemoFact], names: _Names) -> bytes:
    """One sheet per entity: metric rows × period columns, channel splits as `其中：` rows."""
    periods = sorted({f.period for f in facts}, key=_period_key)

    def build(workbook: Any) -> None:
        for entity in _ordered({f.entity for f in facts}, names.entities):
            mine = [f for f in facts if f.entity == entity]
            entity_name = names.entities.get(entity, entity)
            rows = _grid(mine, names, periods, channel_rows=True)
            ws = workbook.create_sheet(entity_name[:31])
            caption = f"{entity_name} 财务摘要 {periods[0]}–{periods[-1]}{_MONEY_UNIT}"
            _sheet_write(ws, caption, rows, _fact_cells(rows, mine, names, transposed=False))

    return _workbook_bytes(build, Path(name).stem)


def _kpi_workbook(name: str, facts: list[DemoFact], names: _Names) -> bytes:
    """Transposed: period rows × metric columns, one sheet per entity and channel."""

    def build(workbook: Any) -> None:
        groups = sorted({(f.entity, f.channel) for f in facts}, key=lambda g: (list(names.entities).index(g[0]), g[1]))
        for index, (entity, channel) in enumerate(groups, start=1):
            mine = [f for f in facts if f.entity == entity and f.channel == channel]
            periods = sorted({f.period for f in mine}, key=_period_key)
            metrics = _ordered({f.metric for f in mine}, names.metrics)
            rows = [["期间", *(names.metric_label(m) for m in metrics)]]
            for period in periods:
                row = [period]
                for metric in metrics:
                    value = next((f for f in mine if f.metric == metric and f.period == period), None)
                    row.append(_display(value.value, value.unit) if value else "—")
                rows.append(row)
            scope = names.entities.get(entity, entity)
            if channel != "TOTAL":
                scope += f" — {names.channels.get(channel, channel)}"
            ws = workbook.create_sheet("季度KPI" if len(groups) == 1 else f"季度KPI{index}")
            _sheet_write(
                ws, f"{scope} 季度经营指标{_MONEY_UNIT}", rows, _fact_cells(rows, mine, names, transposed=True)
            )
        notes = workbook.create_sheet("说明")
        notes["A1"] = "数据来源：管理层季度经营报表，未经审计。"

    return _workbook_bytes(build, Path(name).stem)


# -- pdf ----------------------------------------------------------------------------------------------


def _pdf_styles() -> dict[str, Any]:
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    if _CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(_CJK_FONT))
    base = {"fontName": _CJK_FONT, "wordWrap": "CJK"}
    return {
        "title": ParagraphStyle("title", fontSize=18, leading=24, spaceAfter=12, **base),
        "heading": ParagraphStyle("heading", fontSize=14, leading=20, spaceBefore=8, spaceAfter=6, **base),
        "body": ParagraphStyle("body", fontSize=10.5, leading=16, spaceAfter=8, **base),
        "caption": ParagraphStyle("caption", fontSize=10.5, leading=14, spaceAfter=4, **base),
    }


def _pdf_bytes(story: list[Any], title: str) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate

    out = io.BytesIO()
    document = SimpleDocTemplate(
        out, pagesize=A4, invariant=1, title=title, author="ACME集团", creator="RAGSpine demo", subject=title
    )
    document.build(story)
    return out.getvalue()


def _pdf_table(rows: list[list[str]]) -> Any:
    from reportlab.platypus import Table as PdfTable
    from reportlab.platypus import TableStyle

    table = PdfTable(rows, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("FONTNAME", (0, 0), (-1, -1), _CJK_FONT),
                ("FONTSIZE", (0, 0), (-1, -1), 10.5),
                ("GRID", (0, 0), (-1, -1), 0.5, "black"),
                ("ALIGN", (1, 1), (-1, -1), "RIGHT"),
            ]
        )
    )
    return table


def _segment_pdf(name: str, facts: list[DemoFact], names: _Names) -> bytes:
    """An interim report: a short text, then one segment table per metric (entity rows × periods)."""
    from reportlab.platypus import Paragraph, Spacer

    styles = _pdf_styles()
    periods = sorted({f.period for f in facts}, key=_period_key)
    home = names.entities.get(next(iter(names.entities), ""), "ACME集团")
    title = f"{home} {' / '.join(periods)} 中期报告"
    story: list[Any] = [
        Paragraph(escape(title), styles["title"]),
        Paragraph("一、分部经营情况", styles["heading"]),
        Paragraph(
            escape("本报告期内，集团各分部经营情况如下表所示。分部数据按管理口径编制，未经审计。"), styles["body"]
        ),
    ]
    for metric in _ordered({f.metric for f in facts}, names.metrics):
        for channel in _ordered({f.channel for f in facts if f.metric == metric}, names.channels):
            mine = [f for f in facts if f.metric == metric and f.channel == channel]
            unit = {"CNY_M": _MONEY_UNIT, "PCT": "（%）"}.get(mine[0].unit, "")
            scope = "" if channel == "TOTAL" else f" — {names.channels.get(channel, channel)}"
            rows = [["分部", *periods]]
            for entity in _ordered({f.entity for f in mine}, names.entities):
                cells = {f.period: _display(f.value, f.unit) for f in mine if f.entity == entity}
                rows.append([names.entities.get(entity, entity), *(cells.get(p, "—") for p in periods)])
            story += [
                Spacer(1, 6),
                Paragraph(escape(f"分部{names.metrics.get(metric, metric)}{scope}{unit}"), styles["caption"]),
                _pdf_table(rows),
            ]
    return _pdf_bytes(story, title)


def _narrative_pdf(text: str) -> bytes:
    from reportlab.platypus import Paragraph

    styles = _pdf_styles()
    title, sections = _md_sections(text)
    story: list[Any] = [Paragraph(escape(title), styles["title"])]
    for heading, paragraphs in sections:
        if heading:
            story.append(Paragraph(escape(heading), styles["heading"]))
        story += [Paragraph(escape(p), styles["body"]) for p in paragraphs]
    return _pdf_bytes(story, title)


# -- docx ---------------------------------------------------------------------------------------------


def _docx(text: str, facts: list[DemoFact], names: _Names) -> bytes:
    """Title, Heading 2 sections and paragraphs; the fact tables after the section about finance."""
    from docx import Document

    title, sections = _md_sections(text) if text else ("", [])
    document = Document()
    props = document.core_properties
    props.title = title
    props.author = "ACME集团"
    props.last_modified_by = "RAGSpine demo"
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    if title:
        document.add_heading(title, level=0)
    target = next((i for i, (h, _) in enumerate(sections) if "财务" in h), len(sections) - 1)
    for index, (heading, paragraphs) in enumerate(sections):
        if heading:
            document.add_heading(heading, level=2)
        for paragraph in paragraphs:
            document.add_paragraph(paragraph)
        if index == target:
            _docx_tables(document, facts, names)
    if not sections:
        _docx_tables(document, facts, names)
    out = io.BytesIO()
    document.save(out)
    return _stable_zip(out.getvalue())


def _docx_tables(document: Any, facts: list[DemoFact], names: _Names) -> None:
    periods = sorted({f.period for f in facts}, key=_period_key)
    for entity in _ordered({f.entity for f in facts}, names.entities):
        for channel in _ordered({f.channel for f in facts if f.entity == entity}, names.channels):
            mine = [f for f in facts if f.entity == entity and f.channel == channel]
            scope = names.entities.get(entity, entity)
            if channel != "TOTAL":
                scope += f" — {names.channels.get(channel, channel)}"
            rows = _grid(mine, names, periods, channel=channel)
            document.add_paragraph(f"{scope} 主要财务数据{_MONEY_UNIT}", style="Caption")
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value


# -- the manifest -------------------------------------------------------------------------------------


def demo_files_build(demo_dir: Path) -> dict[str, bytes]:
    """File name → bytes for every file in the manifest (fact and narrative documents)."""
    manifest = demo_manifest(demo_dir)
    names = _names(demo_dir)
    facts = demo_facts_read(demo_dir)
    texts = {
        entry["file"]: (demo_dir / entry["text"]).read_text(encoding="utf-8")
        for entry in manifest.get("narrative_documents", [])
    }
    files: dict[str, bytes] = {}
    for entry in manifest.get("fact_documents", []):
        name = entry["file"]
        mine = [f for f in facts if f.source_doc == name]
        suffix = Path(name).suffix.lower()
        if suffix == ".pptx":
            files[name] = _results_deck(name, mine, names)
        elif suffix == ".xlsx":
            transposed = all(period_parse(f.period) and f.period[4:5] == "Q" for f in mine)
            files[name] = (_kpi_workbook if transposed else _summary_workbook)(name, mine, names)
        elif suffix == ".pdf":
            files[name] = _segment_pdf(name, mine, names)
        elif suffix == ".docx":
            files[name] = _docx(texts.get(name, ""), mine, names)
        else:
            raise ValueError(f"{name}: no demo layout for {suffix} fact documents")
    for name, text in texts.items():
        if name in files:
            continue
        suffix = Path(name).suffix.lower()
        if suffix == ".pdf":
            files[name] = _narrative_pdf(text)
        elif suffix == ".pptx":
            files[name] = _narrative_deck(text)
        elif suffix == ".docx":
            files[name] = _docx(text, [], names)
        elif suffix in (".md", ".txt"):
            files[name] = text.encode("utf-8")
        else:
            raise ValueError(f"{name}: no demo layout for {suffix} narrative documents")
    return files


def demo_files_write(demo_dir: Path, out_dir: Path) -> list[Path]:
    """Write every manifest file into `out_dir`; returns their paths in manifest order."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in demo_files_build(demo_dir).items():
        path = out_dir / name
        path.write_bytes(data)
        paths.append(path)
    return paths
