"""Glossary imports (`manage.py import_glossary`, `load_demo`, the admin's import page): CSV rows
merged into the glossary, all or nothing. Optional columns: `formula` defines formula metrics;
`aggregation` (sum, end, none) and `sign` (as_printed, positive) are a metric's conventions;
`year_end_month` (1–12) and `currency` (ISO 4217) are an entity's reporting conventions.
`ImportAborted` is how every import (glossary, facts, FAQ) reports bad rows."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from django.core.exceptions import ValidationError
from django.db import transaction

from core.engine.formula import formulas_check
from core.glossary import AGGREGATIONS, alias_key
from core.model.facts import CODE_RE, ENTITY_HOME, ENTITY_KINDS
from core.model.sign import SIGNS

from ..models import Alias, Channel, CompanyProfile, Entity, Metric, Unit
from ..selectors import glossary_load
from .fact_signs import facts_sign_apply
from .glossary import AliasDraft, aliases_create, glossary_changed, unit_ensure

GlossaryRows = list[tuple[int, dict[str, str]]]


class ImportAborted(Exception):
    """An import found bad rows and wrote nothing. `errors` are row-numbered messages."""

    def __init__(self, errors: list[str], total_errors: int | None = None):
        self.errors = errors
        self.total_errors = total_errors if total_errors is not None else len(errors)
        more = f" (and {self.total_errors - len(errors)} more)" if self.total_errors > len(errors) else ""
        super().__init__("; ".join(errors[:5]) + more)


@dataclass(frozen=True)
class GlossaryRowPlan:
    """What an import does with one CSV row: its code `created`, `updated` (the CSV columns in
    `changed`) or `unchanged`, and its alias (blank: none) added or already in the glossary."""

    number: int
    kind: str
    code: str
    action: str
    changed: tuple[str, ...]
    alias: str
    alias_added: bool


@dataclass
class GlossaryReport:
    created: dict[str, int] = field(default_factory=lambda: {"entity": 0, "metric": 0, "channel": 0, "alias": 0})
    updated: dict[str, int] = field(default_factory=lambda: {"entity": 0, "metric": 0, "channel": 0})
    aliases_unchanged: int = 0
    facts_converted: int = 0  # facts of metrics whose sign convention the import changed
    rows: list[GlossaryRowPlan] = field(default_factory=list)

    @property
    def digest(self) -> str:
        """A hash of what the import does, row by row: a preview's and its confirmed import's match."""
        plan = [[dataclasses.astuple(row) for row in self.rows], self.facts_converted]
        return hashlib.sha256(json.dumps(plan, ensure_ascii=False).encode()).hexdigest()


class GlossaryPlanChanged(Exception):
    """The import would not do what its preview said (the glossary changed in between) and wrote
    nothing; `report` says what it would do now."""

    def __init__(self, report: GlossaryReport):
        self.report = report
        super().__init__("the glossary changed since the preview")


@dataclass
class _Target:
    kind: str
    code: str
    name: str
    unit: str = ""
    entity_kind: str = ""
    parent: str = ""
    formula: str = ""
    aggregation: str = ""
    sign: str = ""
    year_end_month: str = ""
    currency: str = ""
    aliases: list[str] = field(default_factory=list)
    alias_rows: list[int] = field(default_factory=list)  # the row of each alias
    rows: list[int] = field(default_factory=list)
    formula_rows: list[int] = field(default_factory=list)


_Outcome = tuple[str, tuple[str, ...]]  # ("created" | "updated" | "unchanged", the CSV columns changed)


def glossary_rows_read(path: Path) -> GlossaryRows:
    """The numbered rows of a glossary CSV file (UTF-8, with or without a BOM)."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return _glossary_rows(handle)


def glossary_rows_parse(text: str) -> GlossaryRows:
    """The numbered rows of a glossary CSV already decoded (an upload); `csv.Error` if it is no CSV."""
    return _glossary_rows(io.StringIO(text.removeprefix("\ufeff"), newline=""))


def _glossary_rows(handle: IO[str]) -> GlossaryRows:
    reader = csv.DictReader(handle)
    missing = {"kind", "code", "name", "alias"} - set(reader.fieldnames or [])
    if missing:
        raise ImportAborted([f"header: missing column(s) {', '.join(sorted(missing))}"])
    return [(number, row) for number, row in enumerate(reader, start=2)]


@transaction.atomic
def glossary_import(
    *, rows: Iterable[tuple[int, dict[str, str]]], dry_run: bool = False, expected: str | None = None
) -> GlossaryReport:
    """Merge glossary rows (one per alias) into the database, all or nothing.

    Rows of one code merge; a metric row may carry a `formula`, checked with every formula the
    glossary would then hold. Any bad row raises `ImportAborted` with row numbers, and nothing is
    written. The report says what was done, in counts and row by row.

    `dry_run` imports inside this transaction and rolls it back: the report says what an import
    would do (the admin's preview) and nothing is written. `expected` is a preview's
    `GlossaryReport.digest`: an import that would do anything else raises `GlossaryPlanChanged`
    and writes nothing.
    """
    targets, errors = _glossary_targets(rows)
    errors += _glossary_conflicts(targets)
    if errors:
        raise ImportAborted(errors[:100], len(errors))

    report = GlossaryReport()
    for target in targets.values():
        if target.unit:
            unit_ensure(target.unit)
    entities = [t for t in targets.values() if t.kind == "entity"]
    outcomes = _entities_write(entities, report)
    outcomes |= _coded_write([t for t in targets.values() if t.kind != "entity"], report)
    aliases_added = _aliases_write(targets, report)
    home = next((t for t in entities if t.entity_kind == ENTITY_HOME), None)
    if home is not None and not CompanyProfile.objects.filter(pk=1).exists():
        CompanyProfile(home_company_name=home.name).save()
    glossary_changed()
    report.rows = _row_plans(targets, outcomes, aliases_added)
    if expected is not None and report.digest != expected:
        raise GlossaryPlanChanged(report)
    if dry_run:
        transaction.set_rollback(True)
    return report


def _entities_write(entities: list[_Target], report: GlossaryReport) -> dict[tuple[str, str], _Outcome]:
    """Entities created and updated in bulk, then their parents set."""
    existing_entities = {e.code: e for e in Entity.objects.filter(code__in=[t.code for t in entities])}
    new_entities = [
        Entity(
            code=t.code,
            name=t.name,
            kind=t.entity_kind or "subsidiary",
            year_end_month=int(t.year_end_month) if t.year_end_month else None,
            currency=t.currency,
        )
        for t in entities
        if t.code not in existing_entities
    ]
    Entity.objects.bulk_create(new_entities, batch_size=500)
    report.created["entity"] = len(new_entities)
    outcomes: dict[tuple[str, str], _Outcome] = {("entity", e.code): ("created", ()) for e in new_entities}
    changed = []
    for t in entities:
        entity = existing_entities.get(t.code)
        if entity is None:
            continue
        # A blank cell keeps what the glossary holds (a curator may have set it in admin).
        wanted = {
            "name": t.name,
            "kind": t.entity_kind or entity.kind,
            "year_end_month": int(t.year_end_month) if t.year_end_month else entity.year_end_month,
            "currency": t.currency or entity.currency,
        }
        columns = tuple(_ENTITY_COLUMNS[k] for k, v in wanted.items() if getattr(entity, k) != v)
        if columns:
            for k, v in wanted.items():
                setattr(entity, k, v)
            changed.append(entity)
        outcomes[("entity", t.code)] = ("updated" if columns else "unchanged", columns)
    Entity.objects.bulk_update(changed, list(_ENTITY_COLUMNS), batch_size=500)
    report.updated["entity"] = len(changed)
    parent_of = {t.code: t.parent for t in entities if t.parent}
    children = [e for e in Entity.objects.filter(code__in=parent_of) if e.parent_id != parent_of[e.code]]
    for child in children:
        child.parent_id = parent_of[child.code]
        action, columns = outcomes[("entity", child.code)]
        outcomes[("entity", child.code)] = ("created", ()) if action == "created" else ("updated", (*columns, "parent"))
    Entity.objects.bulk_update(children, ["parent"], batch_size=500)
    return outcomes


def _coded_write(targets: list[_Target], report: GlossaryReport) -> dict[tuple[str, str], _Outcome]:
    """Metrics and channels created or updated one by one; a metric whose sign convention changes
    has its facts converted, as a change in admin converts them."""
    outcomes: dict[tuple[str, str], _Outcome] = {}
    for model, kind in ((Metric, "metric"), (Channel, "channel")):
        for t in (t for t in targets if t.kind == kind):
            defaults: dict[str, str] = {"name": t.name}
            if kind == "metric":
                defaults["unit_id"] = t.unit
                if t.formula:  # a blank formula keeps the one the metric has
                    defaults["formula"] = t.formula
                if t.aggregation:  # so does a blank aggregation (a curator may have set it in admin)
                    defaults["aggregation"] = t.aggregation
                if t.sign:  # and a blank sign
                    defaults["sign"] = t.sign
            obj, created = model.objects.get_or_create(code=t.code, defaults=defaults)  # type: ignore[attr-defined]
            columns = tuple(k.removesuffix("_id") for k, v in defaults.items() if getattr(obj, k) != v)
            outcomes[(kind, t.code)] = ("created", ()) if created else ("updated" if columns else "unchanged", columns)
            if created:
                report.created[kind] += 1
            elif columns:
                resigned = kind == "metric" and obj.sign != defaults.get("sign", obj.sign)
                for k, v in defaults.items():
                    setattr(obj, k, v)
                obj.save()
                report.updated[kind] += 1
                if resigned:
                    report.facts_converted += facts_sign_apply(metric_code=obj.code, sign=obj.sign)
    return outcomes


def _aliases_write(targets: dict[tuple[str, str], _Target], report: GlossaryReport) -> set[int]:
    """The aliases the glossary lacks, added; the rows whose alias was added."""
    # The file was checked against itself and the database above; an alias already there is kept.
    known_keys = set(Alias.objects.values_list("key", flat=True))
    drafts = []
    added_rows = set()
    for t in targets.values():
        for number, text in zip(t.alias_rows, t.aliases, strict=True):
            key = alias_key(text)
            if key in known_keys:
                report.aliases_unchanged += 1
                continue
            known_keys.add(key)
            drafts.append(AliasDraft(t.kind, text, t.code))
            added_rows.add(number)
    try:
        report.created["alias"] = len(aliases_create(drafts=drafts, glossary=glossary_load()))
    except ValidationError as error:
        raise ImportAborted(error.messages) from None
    return added_rows


def _row_plans(
    targets: dict[tuple[str, str], _Target], outcomes: dict[tuple[str, str], _Outcome], aliases_added: set[int]
) -> list[GlossaryRowPlan]:
    alias_of = {number: text for t in targets.values() for number, text in zip(t.alias_rows, t.aliases, strict=True)}
    plans = [
        GlossaryRowPlan(
            number=number,
            kind=t.kind,
            code=t.code,
            action=outcomes[(t.kind, t.code)][0],
            changed=outcomes[(t.kind, t.code)][1],
            alias=alias_of.get(number, ""),
            alias_added=number in aliases_added,
        )
        for t in targets.values()
        for number in t.rows
    ]
    return sorted(plans, key=lambda plan: plan.number)


_FIELDS = {
    "entity": ("name", "entity_kind", "parent", "year_end_month", "currency"),
    "metric": ("name", "unit", "aggregation", "sign"),
    "channel": ("name",),
}
_WHAT = {
    "name": "named",
    "unit": "in unit",
    "aggregation": "with aggregation",
    "sign": "with sign",
    "entity_kind": "of entity_kind",
    "parent": "under parent",
    "year_end_month": "with year_end_month",
    "currency": "in currency",
}
# An entity's fields the import writes, each with its CSV column.
_ENTITY_COLUMNS = {"name": "name", "kind": "entity_kind", "year_end_month": "year_end_month", "currency": "currency"}
_CONVENTIONS = ("year_end_month", "currency")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# What the glossary's columns hold (the same for entities, metrics and channels); PostgreSQL refuses more.
_MAX_LENGTHS = {
    "code": Entity._meta.get_field("code").max_length or 0,
    "name": Entity._meta.get_field("name").max_length or 0,
    "unit": Unit._meta.get_field("code").max_length or 0,
}


def _convention_problem(name: str, given: str) -> str | None:
    """Why a `year_end_month` or `currency` cell cannot be stored, or None."""
    if name == "year_end_month" and not (given.isdigit() and given.isascii() and 1 <= int(given) <= 12):
        return f"year_end_month must be the number of the month the fiscal year ends in, 1 to 12, not '{given[:40]}'"
    if name == "currency" and not _CURRENCY.match(given):
        return f"currency must be an ISO 4217 code of three letters (USD, EUR, CNY …), not '{given[:40]}'"
    return None


def _glossary_targets(rows: Iterable[tuple[int, dict[str, str]]]) -> tuple[dict[tuple[str, str], _Target], list[str]]:
    """Rows merged per code. A row may leave name, unit, entity_kind, parent and formula blank
    (an alias-only row): another row of the code or the database fills them; two different
    non-blank values for one code are an error."""
    targets: dict[tuple[str, str], _Target] = {}
    errors: list[str] = []
    for number, row in rows:
        if any((extra or "").strip() for extra in row.get(None) or ()):  # type: ignore[call-overload]
            errors.append(f"row {number}: more values than the header has columns")
            continue
        value = {key: (row.get(key) or "").strip() for key in ("code", "name", "alias", "unit", "parent", "formula")}
        value["currency"] = (row.get("currency") or "").strip().upper()
        value["aggregation"] = (row.get("aggregation") or "").strip().lower()
        value["sign"] = (row.get("sign") or "").strip().lower()
        month = (row.get("year_end_month") or "").strip()
        value["year_end_month"] = str(int(month)) if month.isdigit() and month.isascii() else month
        kind = (row.get("kind") or "").strip().lower()
        code = value["code"]
        entity_kind = (row.get("entity_kind") or "").strip().lower()
        if kind not in _FIELDS:
            errors.append(f"row {number}: kind must be entity, metric or channel, not '{kind}'")
            continue
        if not CODE_RE.match(code):
            errors.append(f"row {number}: code '{code}' must be upper-case letters, digits and _")
            continue
        too_long = next((column for column, most in _MAX_LENGTHS.items() if len(value[column]) > most), None)
        if too_long:
            errors.append(f"row {number}: {too_long} has more than {_MAX_LENGTHS[too_long]} characters")
            continue
        if kind == "entity" and entity_kind and entity_kind not in ENTITY_KINDS:
            errors.append(f"row {number}: entity_kind must be one of {', '.join(ENTITY_KINDS)}")
            continue
        if kind == "metric" and value["unit"] and not CODE_RE.match(value["unit"]):
            errors.append(f"row {number}: metric {code}: unit '{value['unit']}' is not a unit code")
            continue
        if value["aggregation"] and (kind != "metric" or value["aggregation"] not in AGGREGATIONS):
            errors.append(f"row {number}: aggregation is a metric's, one of {', '.join(AGGREGATIONS)}")
            continue
        if value["sign"] and kind != "metric":
            errors.append(f"row {number}: only a metric has a sign convention; {kind} {code} cannot")
            continue
        if value["sign"] and value["sign"] not in SIGNS:
            errors.append(
                f"row {number}: metric {code}: sign must be as_printed (the value as the report prints it) "
                f"or positive (the amount, for an outflow such as capex), not '{value['sign'][:40]}'"
            )
            continue
        if value["formula"] and kind != "metric":
            errors.append(f"row {number}: only a metric has a formula; {kind} {code} cannot")
            continue
        given_conventions = [name for name in _CONVENTIONS if value[name]]
        if given_conventions and kind != "entity":
            errors.append(f"row {number}: only an entity has a {given_conventions[0]}; {kind} {code} cannot")
            continue
        problems = [p for name in given_conventions if (p := _convention_problem(name, value[name]))]
        if problems:
            errors.extend(f"row {number}: entity {code}: {problem}" for problem in problems)
            continue
        target = targets.setdefault((kind, code), _Target(kind, code, ""))
        target.rows.append(number)
        for attr in _FIELDS[kind]:
            given = entity_kind if attr == "entity_kind" else value[attr]
            held = getattr(target, attr)
            if given and held and given != held:
                errors.append(f"row {number}: {kind} {code} is {_WHAT[attr]} both '{held}' and '{given}'")
            elif given:
                setattr(target, attr, given)
        formula = value["formula"]
        if formula and target.formula and "".join(formula.split()) != "".join(target.formula.split()):
            errors.append(
                f"row {number}: metric {code} has two formulas: '{target.formula}' "
                f"(row {target.formula_rows[0]}) and '{formula}'"
            )
        elif formula:
            target.formula = target.formula or formula
            target.formula_rows.append(number)
        if value["alias"]:
            target.aliases.append(value["alias"])
            target.alias_rows.append(number)
    errors += _glossary_fill(targets)
    homes = [t.code for t in targets.values() if t.entity_kind == ENTITY_HOME]
    db_home = Entity.objects.filter(kind=ENTITY_HOME).exclude(code__in=homes).values_list("code", flat=True).first()
    if len(set(homes)) > 1 or (homes and db_home):
        found = sorted(set(homes) | ({db_home} if db_home else set()))
        errors.append(f"there can be only one home entity (found {', '.join(found)})")
    entity_codes = {t.code for t in targets.values() if t.kind == "entity"}
    for t in targets.values():
        if t.parent and t.parent not in entity_codes and not Entity.objects.filter(code=t.parent).exists():
            errors.append(f"entity {t.code}: parent '{t.parent}' is not an entity")
    errors += _glossary_formula_errors(targets)
    return targets, errors


def _glossary_fill(targets: dict[tuple[str, str], _Target]) -> list[str]:
    """A blank name or unit is the one already in the glossary; a new code must be given them."""
    names: dict[tuple[str, str], str] = {}
    for kind, model in (("entity", Entity), ("metric", Metric), ("channel", Channel)):
        codes = [t.code for t in targets.values() if t.kind == kind]
        for code, name in model.objects.filter(code__in=codes).values_list("code", "name"):  # type: ignore[attr-defined]
            names[(kind, code)] = name
    metric_codes = [t.code for t in targets.values() if t.kind == "metric" and not t.unit]
    units = dict(Metric.objects.filter(code__in=metric_codes).values_list("code", "unit_id"))
    errors = []
    for key, t in targets.items():
        t.name = t.name or names.get(key, "")
        if t.kind == "metric":
            t.unit = t.unit or units.get(t.code, "")
        if not t.name:
            errors.append(f"row {t.rows[0]}: name is empty, and {t.kind} {t.code} is not in the glossary yet")
        elif t.kind == "metric" and not t.unit:
            errors.append(f"row {t.rows[0]}: metric {t.code} needs a unit code")
    return errors


def _glossary_formula_errors(targets: dict[tuple[str, str], _Target]) -> list[str]:
    """Every formula as it would be after the import, checked over every metric code then known
    (database and file): syntax errors, unknown codes and cycles, with the rows that carry them."""
    given = {t.code: t for t in targets.values() if t.kind == "metric" and t.formula}
    if not given:
        return []
    stored = dict(Metric.objects.values_list("code", "formula"))
    before = {code: formula for code, formula in stored.items() if formula.strip()}
    after = {**before, **{code: t.formula for code, t in given.items()}}
    known = set(stored) | {t.code for t in targets.values() if t.kind == "metric"}
    already_bad = formulas_check(before, stored)
    in_file, in_glossary = [], []
    for code, reason in formulas_check(after, known).items():
        target = given.get(code)
        if target is not None:
            rows = ", ".join(str(n) for n in target.formula_rows)
            label = "rows" if len(target.formula_rows) > 1 else "row"
            in_file.append(f"{label} {rows}: metric {code} formula '{target.formula}': {reason}")
        elif code not in already_bad:
            in_glossary.append(f"metric {code} (formula '{after[code]}', already in the glossary): {reason}")
    return in_file + in_glossary


def _glossary_conflicts(targets: dict[tuple[str, str], _Target]) -> list[str]:
    """Every alias, code and name may point at one code only, across the file and the database."""
    current = glossary_load().matcher
    seen: dict[str, tuple[str, str, str]] = {}
    errors = []
    for t in targets.values():
        for text in [t.code, t.name, *t.aliases]:
            key = alias_key(text)
            if not key:
                continue
            claim = seen.get(key)
            if claim is not None and claim[:2] != (t.kind, t.code):
                errors.append(f"alias '{text}' would point at both {claim[0]} {claim[1]} and {t.kind} {t.code}")
                continue
            seen[key] = (t.kind, t.code, text)
            known = current.lookup(text)
            if known is not None and (known.kind, known.code) != (t.kind, t.code):
                errors.append(f"alias '{text}' already points at {known.kind} {known.code}")
    return errors
