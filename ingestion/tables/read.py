"""A table, then a document, as fact candidates (issue J)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.glossary import GlossarySnapshot
from core.normalize import text_normalize

from ..headers import due_schedule, sub_annual
from ..ir import ExtractedDocument, Table
from ..scales import Printed, currency_strip, scale_read
from ..values import cell_currency, value_parse
from .cells import FactCandidate, _candidate, _context, _join, _printed_merge, _row, _Scope
from .layout import (
    _CAPTION_LIMIT,
    _body_scale,
    _caption_dropped,
    _column_groups,
    _column_headers,
    _columns,
    _dates_apart,
    _header_again,
    _is_title_row,
    _label_columns,
    _layout,
    _period_of,
    _repeated_labels,
    _section_heading,
    _table_scale,
    _unit_only,
)
from .reading import _reader_for


def facts_from_table(
    table: Table,
    *,
    glossary: GlossarySnapshot,
    document_name: str,
    sensitivity: str,
    default_entity: str | None = None,
    sheet_name: str | None = None,
) -> list[FactCandidate]:
    """Every value cell of `table` as a fact candidate, each with its cell-level locator."""
    return table_read(
        table,
        glossary=glossary,
        document_name=document_name,
        sensitivity=sensitivity,
        default_entity=default_entity,
        sheet_name=sheet_name,
    ).candidates


@dataclass(frozen=True)
class TableFacts:
    """What one table yields; `problem` says why it yields nothing ("" when it yields facts)."""

    candidates: list[FactCandidate]
    problem: str = ""


def table_read(
    table: Table,
    *,
    glossary: GlossarySnapshot,
    document_name: str,
    sensitivity: str,
    default_entity: str | None = None,
    sheet_name: str | None = None,
    inherited: Printed | None = None,
) -> TableFacts:
    """Every value cell of `table` as a fact candidate, or why there is none. `inherited`: the
    scale of the block above, for a second block under its own header rows."""
    reader = _reader_for(glossary)
    width = table.width
    grid = [row + [""] * (width - len(row)) for row in table.rows]
    start = 0
    while start < len(grid) - 1 and _is_title_row(grid[start], reader):
        start += 1
    preamble = [next(c for c in grid[r] if c) for r in range(start)]
    layout = _layout(grid[start:], reader)
    if layout is None:
        return TableFacts([], "no row or column of periods (years, dates or fiscal years) was found")
    grid = layout.grid

    def real(r: int, c: int) -> tuple[int, int]:
        return (start + c, r) if layout.transposed else (start + r, c)

    above = [" ".join(dict.fromkeys(c for c in grid[r] if c)) for r in range(layout.top)]
    corner = " ".join(
        grid[r][c] for r in range(layout.top, layout.bottom + 1) for c in range(layout.first) if grid[r][c]
    )
    titled = [reader.read(t) for t in [table.title, *preamble, *above]]
    headed = [reader.header(t) for t in [table.title, *preamble, *above, corner] if len(t) <= _CAPTION_LIMIT]
    sheet = reader.read(sheet_name if sheet_name is not None else table.sheet)
    heading = reader.read(table.heading)
    lead = reader.read("")
    lead_printed = _printed_merge(
        scale_read(text_normalize(text), prose=True) for text in (table.lead, table.heading) if text
    )
    stated = [*_table_scale(layout, reader), *_body_scale(grid, layout, reader)]
    scales = [*stated, *headed, *titled, replace(lead, printed=lead_printed), replace(lead, printed=inherited)]
    # A currency is no company (`Amounts in HK$ million` names no Hong Kong entity).
    named = [reader.read(currency_strip(t)) for t in [table.title, *preamble, *above]]
    context = _context(
        [*titled, reader.read(corner)],
        [*named, heading, sheet, reader.read(currency_strip(corner))],
        default_entity,
        scales,
    )

    corner_label = " ".join(grid[r][0] for r in range(layout.top, layout.bottom + 1) if grid[r][0])
    captions = [table.title, *preamble, *above, corner_label]
    annual = not any(sub_annual(text_normalize(text)) for text in captions if 0 < len(text) <= _CAPTION_LIMIT)
    annual = annual and not (table.lead and sub_annual(text_normalize(table.lead), prose=True))
    headers = _column_headers(layout)
    if any(due_schedule(text_normalize(text)) for text in headers.values()):
        return TableFacts([], "a schedule of amounts due by year (`Thereafter`): its years are due dates")
    dated_ok = annual
    columns = _columns(headers, reader, dated_ok=dated_ok, strict=layout.transposed)
    for c in headers.keys() - columns.keys():
        rescued = _caption_dropped(layout, c, reader)
        if rescued is not None and (dated_ok or _period_of(rescued.reading, strict=False) is None):
            columns[c] = rescued
    columns = dict(sorted(columns.items()))
    if not columns:
        if not dated_ok:
            return TableFacts([], "its columns are quarters, halves or year-to-date, which a year alone does not name")
        return TableFacts([], "no column header names a period")
    groups = _column_groups(columns) | _dates_apart(columns, context.entity, reader)
    label_columns = _label_columns(layout, reader)

    scope = _Scope(reader, table, layout.transposed, context, document_name, sensitivity)
    repeats = _repeated_labels(grid, layout, columns, label_columns, reader)
    candidates: list[FactCandidate] = []
    last_metric: str | None = None
    section = ""
    for r in range(layout.bottom + 1, len(grid)):
        cells = grid[r]
        label_cells = [cells[c] if c in label_columns else _unit_only(reader, cells[c]) for c in range(layout.first)]
        values = [(c, value_parse(cells[c])) for c in columns]
        again = None if layout.transposed else _header_again(cells, layout.first, reader, dated_ok=dated_ok)
        if again:  # a second block under its own header rows (`Dec 30, 2017 | … | Dec 29, 2018`)
            rest = replace(table, rows=grid[r:], origin=(table.origin[0] + start + r, table.origin[1]))
            candidates += table_read(
                rest,
                glossary=glossary,
                document_name=document_name,
                sensitivity=sensitivity,
                default_entity=default_entity,
                sheet_name=sheet_name,
                inherited=context.printed,
            ).candidates
            break
        if not any(parsed for _, parsed in values):
            heading_text = _section_heading(cells, label_columns)
            if heading_text is not None:
                section, last_metric = heading_text, None
            continue
        row = _row(reader, label_cells, section=section, inherited=last_metric, repeats=repeats, r=r)
        if row.label.rstrip().endswith((":", "：")):
            section = row.label.rstrip(" :：")
        if len(row.reading.metrics) == 1 and row.known:
            last_metric = row.reading.metrics[0]
        elif row.reading.metrics or not row.known:
            last_metric = None
        for c, parsed in values:
            if parsed is not None:
                candidate = _candidate(scope, row, columns[c], real(r, c), parsed, currency=cell_currency(cells[c]))
                if c in groups:
                    candidate = replace(candidate, status="pending", reason=_join(candidate.reason, groups[c]))
                candidates.append(candidate)
    return TableFacts(candidates, "" if candidates else "no value cell under a period column")


@dataclass(frozen=True)
class DocumentFacts:
    """What a document's tables yield: every candidate, and one warning per table that gave none."""

    candidates: list[FactCandidate]
    warnings: list[str]


def document_facts(
    document: ExtractedDocument,
    *,
    glossary: GlossarySnapshot,
    sensitivity: str,
    default_entity: str | None = None,
) -> DocumentFacts:
    """The fact candidates of every table; a key given two different values becomes pending.

    A table that yields no candidate gives a warning naming the table and why, the same in
    every format.
    """
    candidates: list[FactCandidate] = []
    warnings: list[str] = []
    for table in document.tables:
        read = table_read(
            table,
            glossary=glossary,
            document_name=document.name,
            sensitivity=sensitivity,
            default_entity=default_entity,
        )
        if read.problem:
            warnings.append(f"{table.locator_prefix}: no facts read ({read.problem})")
        candidates.extend(read.candidates)
    return DocumentFacts(_conflicts_marked(candidates), warnings)


def facts_from_document(
    document: ExtractedDocument,
    *,
    glossary: GlossarySnapshot,
    sensitivity: str,
    default_entity: str | None = None,
) -> list[FactCandidate]:
    """The fact candidates of every table (see `document_facts`)."""
    return document_facts(
        document, glossary=glossary, sensitivity=sensitivity, default_entity=default_entity
    ).candidates


def _conflicts_marked(candidates: list[FactCandidate]) -> list[FactCandidate]:
    by_key: dict[tuple[str, str, str, str, str], list[int]] = {}
    for index, fact in enumerate(candidates):
        by_key.setdefault(fact.key, []).append(index)
    kept: list[FactCandidate] = []
    for index, fact in enumerate(candidates):
        same = by_key[fact.key]
        if len(same) == 1:
            kept.append(fact)
        elif len({(candidates[i].value, candidates[i].unit) for i in same}) == 1:
            if all(candidates[i].status == "approved" for i in same):
                if index == same[0]:
                    kept.append(fact)  # the same fact twice (a summary repeated): keep the first
            else:
                kept.append(replace(fact, status="pending", reason=fact.reason or "the same figure waits for review"))
        else:
            kept.append(replace(fact, status="pending", reason=_join(fact.reason, "conflicting values in document")))
    return kept
