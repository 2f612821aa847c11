"""A table, then a document, as fact candidates.

`table_read` finds a table's layout (`layout`), its period columns and what its title, heading,
corner and lead state (`cells.context_read`), then reads every value cell (`cells.cell_read`),
or says why the table yields none (`TABLE_PROBLEMS`). `document_facts` reads every table of a
document and holds two values of one key pending. The texts themselves are read through the
glossary by `glossary_reader`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.period import Period

from ..headers import due_schedule, sub_annual
from ..ir import ExtractedDocument, IngestWarning, Table
from ..scales import Printed, currency_strip, scale_read, unit_parse
from ..statements import CONSOLIDATED, PARENT, header_dated, is_equity_changes, statement_of
from ..values import cell_currency, value_parse
from .cells import FactCandidate, cell_read, context_read, row_read
from .glossary_reader import _reader_for
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
    _Layout,
    _layout,
    _period_of,
    _repeated_labels,
    _section_heading,
    _table_scale,
    _unit_only,
)
from .scope import TableScope
from .units import per_share_label, printed_merge


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


# Why a table yields no fact, by a code that never changes (a display names it in its reader's
# language): the English words a warning gives.
TABLE_PROBLEMS = {
    "table.equity_changes": "a statement of changes in equity: its columns are equity components, not periods",
    "table.no_period_axis": "no row or column of periods (years, dates or fiscal years) was found",
    "table.due_schedule": "a schedule of amounts due by year (`Thereafter`): its years are due dates",
    "table.sub_annual": "its columns are quarters, halves or year-to-date, which a year alone does not name",
    "table.no_period_column": "no column header names a period",
    "table.no_value_cell": "no value cell under a period column",
}


@dataclass(frozen=True)
class TableFacts:
    """What one table yields; `problem_code` (a `TABLE_PROBLEMS` code) and `problem` (its words)
    say why it yields nothing ("" when it yields facts)."""

    candidates: list[FactCandidate]
    problem_code: str = ""

    @property
    def problem(self) -> str:
        return TABLE_PROBLEMS.get(self.problem_code, "")


def table_read(
    table: Table,
    *,
    glossary: GlossarySnapshot,
    document_name: str,
    sensitivity: str,
    default_entity: str | None = None,
    sheet_name: str | None = None,
    inherited: Printed | None = None,
    report_period: Period | None = None,
) -> TableFacts:
    """Every value cell of `table` as a fact candidate, or why there is none. `inherited`: the
    scale of the block above, for a second block under its own header rows; `report_period`: the
    period of the report the table is in (its document's context), against which headers printed
    relative to the report (`本期`, `上年`) and a single-year table are read."""
    statement = statement_of(table.heading, table.title, table.caption, table.lead)
    if is_equity_changes(statement):
        return TableFacts([], "table.equity_changes")
    read = _table_read(
        table, glossary, document_name, sensitivity, default_entity, sheet_name, inherited, report_period
    )
    if statement is None or not statement.scope:
        return read
    # A cell whose column says whose figure it is (`本集团 | 本行` under `合并及母公司资产负债表`) keeps that.
    if statement.scope == CONSOLIDATED:
        return replace(read, candidates=[c if c.scope else replace(c, scope=CONSOLIDATED) for c in read.candidates])
    why = f"a parent-company statement ({statement.kind} of the parent alone): never the group's figure"
    return replace(
        read,
        candidates=[
            c if c.scope else replace(c, status="pending", reason=_join(why, c.reason), scope=PARENT)
            for c in read.candidates
        ],
    )


def _table_read(
    table: Table,
    glossary: GlossarySnapshot,
    document_name: str,
    sensitivity: str,
    default_entity: str | None,
    sheet_name: str | None,
    inherited: Printed | None,
    report_period: Period | None,
) -> TableFacts:
    reader = _reader_for(glossary)
    width = table.width
    printed = [row + [""] * (width - len(row)) for row in table.rows]
    grid = [[header_dated(cell, report_period) for cell in row] for row in printed]
    # `在职员工的数量合计 | 1,406` under no header of periods: the report's year
    assumed = width == 2 and report_period is not None and _single_year(grid) and _layout(grid, reader) is None
    if assumed:
        grid = [["", f"{report_period.period[:4]}年度"], *grid]  # 在职员工的数量合计 | 1,406: the report's year
        printed = [["", ""], *printed]
    grid_dated = grid != printed
    start = 0
    while start < len(grid) - 1 and _is_title_row(grid[start], reader):
        start += 1
    preamble = [next(c for c in grid[r] if c) for r in range(start)]
    layout = _layout(grid[start:], reader)
    if layout is None:
        return TableFacts([], "table.no_period_axis")
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
    lead_printed = printed_merge(
        scale_read(text_normalize(text), prose=True) for text in (table.lead, table.heading) if text
    )
    stated = [*_table_scale(layout, reader), *_body_scale(grid, layout, reader)]
    scales = [*stated, *headed, *titled, replace(lead, printed=lead_printed), replace(lead, printed=inherited)]
    # A currency is no company (`Amounts in HK$ million` names no Hong Kong entity).
    named = [reader.read(currency_strip(t)) for t in [table.title, *preamble, *above]]
    context = context_read(
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
        return TableFacts([], "table.due_schedule")
    dated_ok = annual
    columns = _columns(headers, reader, dated_ok=dated_ok, strict=layout.transposed)
    for c in headers.keys() - columns.keys():
        rescued = _caption_dropped(layout, c, reader)
        if rescued is not None and (dated_ok or _period_of(rescued.reading, strict=False) is None):
            columns[c] = rescued
    columns = dict(sorted(columns.items()))
    if grid_dated:  # read as dated, named as printed: a locator quotes the header the report prints
        body = printed[start:]
        laid_out = [list(column) for column in zip(*body, strict=True)] if layout.transposed else body
        shown = _column_headers(replace(layout, grid=laid_out))
        columns = {c: replace(column, header=shown.get(c) or column.header) for c, column in columns.items()}
    if not columns:
        if not dated_ok:
            return TableFacts([], "table.sub_annual")
        return TableFacts([], "table.no_period_column")
    groups = _column_groups(columns) | _dates_apart(columns, context.entity, reader)
    label_columns = _label_columns(layout, reader)

    scope = TableScope(reader, table, layout.transposed, context, document_name, sensitivity)
    repeats = _repeats_that_differ(_repeated_labels(grid, layout, columns, label_columns, reader), grid, layout)
    candidates: list[FactCandidate] = []
    last_metric: str | None = None
    section = ""
    changes = ""  # the heading of a section of changes over the year the rows are under
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
                report_period=None,  # its headers are already read against the report
            ).candidates
            break
        if not any(parsed for _, parsed in values):
            heading_text = _section_heading(cells, label_columns)
            if heading_text is not None:
                section, last_metric = heading_text, None
                changes = section if _CHANGES.search(section) else ""
            continue
        row = row_read(
            reader, label_cells, section=section, inherited=last_metric, repeats=repeats, r=r, issuer=context.entity
        )
        if row.label.rstrip().endswith((":", "：")):
            section = row.label.rstrip(" :：")
        if _SUBTOTAL.search(row.label):
            changes = ""  # a subtotal closes the section of changes it follows
        if len(row.reading.metrics) == 1 and row.known:
            last_metric = row.reading.metrics[0]
        elif row.reading.metrics or not row.known:
            last_metric = None
        for c, parsed in values:
            if parsed is not None:
                candidate = cell_read(scope, row, columns[c], real(r, c), parsed, currency=cell_currency(cells[c]))
                if columns[c].scope:
                    candidate = replace(candidate, scope=columns[c].scope)
                if c in groups:
                    candidate = replace(candidate, status="pending", reason=_join(candidate.reason, groups[c]))
                if changes:
                    why = f"under '{changes}': the year's change, not the balance"
                    candidate = replace(candidate, status="pending", reason=_join(candidate.reason, why), figure=False)
                if assumed and unit_parse(candidate.unit) is not None:
                    why = "no period printed: the report's year is taken for counts, never for amounts"
                    candidate = replace(candidate, status="pending", reason=_join(candidate.reason, why), figure=False)
                candidates.append(candidate)
    return TableFacts(candidates, "" if candidates else "table.no_value_cell")


# A section of changes over the year (`Changes in operating assets and liabilities:`): its rows
# name balance-sheet items, and their figures are movements, never the balances.
_CHANGES = re.compile(r"(?<![a-z])changes? in(?![a-z])|\(increase\)|\(decrease\)|变动", re.IGNORECASE)
_SUBTOTAL = re.compile(r"^\s*(?:total|net|cash)\b|合计|总计|净额", re.IGNORECASE)


def _repeats_that_differ(
    repeats: dict[tuple[int, str], int], grid: list[list[str]], layout: _Layout
) -> dict[tuple[int, str], int]:
    """Repeated labels that leave it open which row is the item: not a label printed again with
    the same figures (`Net income` above and below its split between holders), and not the rows
    of an amount per share (`Earnings per share:` › `Net income attributable to …`)."""
    per_share: set[int] = set()
    heading = ""
    for r in range(layout.bottom + 1, len(grid)):
        cells = grid[r]
        if not any(value_parse(cell) for cell in cells[layout.first :]):
            heading = " ".join(cell for cell in cells[: layout.first] if cell)
        elif per_share_label(f"{heading} {' '.join(cells[: layout.first])}"):
            per_share.add(r)
    rows: dict[str, list[int]] = {}
    for (r, label), _ in repeats.items():
        rows.setdefault(label, []).append(r)
    kept: dict[tuple[int, str], int] = {}
    for label, found in rows.items():
        items = [r for r in found if r not in per_share]
        figures = {tuple(grid[r][layout.first :]) for r in items}
        if len(items) > 1 and len(figures) > 1:
            kept.update({(r, label): len(items) for r in items})
    return kept


def _single_year(grid: list[list[str]]) -> bool:
    """A label | value table with no header of periods: every row a label and one number."""
    rows = [row for row in grid if any(row)]
    numbers = [row for row in rows if row[0] and value_parse(row[1]) is not None]
    return len(numbers) >= 2 and 2 * len(numbers) >= len(rows)


@dataclass(frozen=True)
class DocumentFacts:
    """What a document's tables yield: every candidate, and one warning per table that gave none."""

    candidates: list[FactCandidate]
    warnings: list[IngestWarning]


def document_facts(
    document: ExtractedDocument,
    *,
    glossary: GlossarySnapshot,
    sensitivity: str,
    default_entity: str | None = None,
    report_period: Period | None = None,
) -> DocumentFacts:
    """The fact candidates of every table; a key given two different values becomes pending.

    A table that yields no candidate gives a warning naming the table and why, the same in
    every format. `report_period`: the period of the report (its document's context).
    """
    candidates: list[FactCandidate] = []
    warnings: list[IngestWarning] = []
    for table in document.tables:
        read = table_read(
            table,
            glossary=glossary,
            document_name=document.name,
            sensitivity=sensitivity,
            default_entity=default_entity,
            report_period=report_period,
        )
        if read.problem_code:
            text = f"no facts read ({read.problem})"
            warnings.append(IngestWarning(read.problem_code, text, place=table.locator_prefix))
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
    """Two values for one key hold each other pending, unless the group's own statements
    (`合并利润表` …) give the key one value: the audited statement rules, and a table elsewhere
    (a note, a summary) that prints another figure waits with the statement's figure beside it.
    One figure printed twice is one fact (the first); printed twice with one print in doubt, both
    wait, unless the statement rules. A cell that claims no key (`FactCandidate.claims_key`: no
    metric, a guessed one, a parent company's figure) is compared with none."""
    by_key: dict[tuple[str, str, str, str, str], list[int]] = {}
    for index, fact in enumerate(candidates):
        if fact.claims_key:
            by_key.setdefault(fact.key, []).append(index)
    kept: list[FactCandidate] = []
    for index, fact in enumerate(candidates):
        same = by_key.get(fact.key, []) if fact.claims_key else [index]
        if len(same) == 1:
            kept.append(fact)
            continue
        group = [candidates[i] for i in same]
        primary = [f for f in group if f.scope == CONSOLIDATED]
        own = [f for f in primary or group if f.own]
        if own and len({(f.value, f.unit) for f in own}) == 1:
            primary = own  # `Net income attributable to <the company>` over the consolidated `Net income`
        ruling = primary if primary and len({(f.value, f.unit) for f in primary}) == 1 else group
        figures = {(f.value, f.unit) for f in ruling}
        if len(figures) > 1:
            others = [f for f in group if f.value != fact.value]
            where = ", ".join(f"{o.value} at {o.locator}" for o in others[:2])
            reason = f"conflicting values in document ({where})"
            kept.append(replace(fact, status="pending", reason=_join(fact.reason, reason)))
            continue
        ((value, unit),) = figures
        if (fact.value, fact.unit) != (value, unit):
            stated = ruling[0]
            reason = f"differs from the consolidated statement's {stated.value} at {stated.locator}"
            if stated.own:
                own = f"the company's own share ('{stated.raw_label}')"
                reason = f"the statement prints {own}: {stated.value} at {stated.locator}"
            kept.append(replace(fact, status="pending", reason=_join(fact.reason, reason)))
            continue
        if ruling is primary:  # the statement's figure stands; a second print of it is the same fact
            first = next((i for i in same if candidates[i] in primary and candidates[i].status == "approved"), None)
            if fact.status != "approved" or index == first:
                kept.append(fact)
        elif all(candidates[i].status == "approved" for i in same):
            if index == same[0]:
                kept.append(fact)  # the same fact twice (a summary repeated): keep the first
        else:  # two cells claim one key and one is in doubt: the reviewer sees both
            kept.append(replace(fact, status="pending", reason=fact.reason or "the same figure waits for review"))
    return kept


def _join(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)
