"""Writes to the glossary: its version stamp, units (`unit_ensure`, named by `unit_names`), and
aliases (`aliases_create` is the one way an alias is made, with the rule that an alias, a code or
a name points at one code only; `alias_delete` removes one), and `metric_formula_problems`, the
check a formula passes before it is saved."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from core.engine.formula import formulas_check
from core.glossary import GlossarySnapshot, alias_key

from ..models import Alias, Channel, Entity, GlossaryState, Metric, Unit
from ..selectors import glossary_snapshot

KNOWN_UNITS = {
    "CNY_M": ("百万元", "CNY m"),
    "CNY": ("元", "CNY"),
    "USD_M": ("百万美元", "USD m"),
    "HKD_M": ("百万港元", "HKD m"),
    "PCT": ("%", "%"),
    "COUNT": ("", ""),
    "TEN_THOUSAND_PERSONS": ("万人", "10k persons"),
    "AS_PRINTED": ("按原表", "as printed"),
}

# Unit codes the table extractor writes for amounts: a currency with an optional scale (USD_K,
# CNY_100M), or an amount whose currency the document does not state (AMT_M).
MONEY_UNIT = re.compile(r"^(?P<cur>[A-Z]{3})(?:_(?P<scale>K|M|B|10K|100M))?$")
AMOUNT_UNIT = re.compile(r"^AMT(?:_(?P<scale>K|M|B|10K|100M))?$")
SCALE_NAMES = {
    "": ("", ""),
    "K": ("千", "k"),
    "M": ("百万", "m"),
    "B": ("十亿", "bn"),
    "10K": ("万", "10k"),
    "100M": ("亿", "100m"),
}
CURRENCY_NAMES_ZH = {
    "AUD": "澳元",
    "CAD": "加元",
    "CHF": "瑞士法郎",
    "CNY": "元",
    "DKK": "丹麦克朗",
    "EUR": "欧元",
    "GBP": "英镑",
    "HKD": "港元",
    "IDR": "印尼盾",
    "INR": "印度卢比",
    "JPY": "日元",
    "KRW": "韩元",
    "MOP": "澳门元",
    "MYR": "林吉特",
    "NOK": "挪威克朗",
    "NZD": "新西兰元",
    "PHP": "菲律宾比索",
    "SEK": "瑞典克朗",
    "SGD": "新加坡元",
    "THB": "泰铢",
    "TWD": "新台币",
    "USD": "美元",
    "VND": "越南盾",
}


def glossary_changed() -> None:
    """Bump the glossary version stamp; every process reloads its automaton on its next question."""
    token = uuid.uuid4().hex
    updated = GlossaryState.objects.filter(pk=1).update(version=F("version") + 1, token=token)
    if not updated:
        GlossaryState.objects.create(pk=1, version=1, token=token)


def unit_names(code: str) -> tuple[str, str]:
    """A unit code's Chinese and English display names: USD_K → 千美元 / USD k, CNY_100M → 亿元 /
    CNY 100m, AMT_M → 百万（币种未注明） / m (currency not stated); a code of no known form is its
    own name."""
    if code in KNOWN_UNITS:
        return KNOWN_UNITS[code]
    if amount := AMOUNT_UNIT.match(code):
        zh, en = SCALE_NAMES[amount["scale"] or ""]
        return f"{zh}（币种未注明）", f"{en} (currency not stated)".strip()
    if money := MONEY_UNIT.match(code):
        zh, en = SCALE_NAMES[money["scale"] or ""]
        currency = money["cur"]
        return zh + CURRENCY_NAMES_ZH.get(currency, currency), f"{currency} {en}".strip()
    return code, code


def unit_ensure(code: str) -> Unit:
    """The unit with this code, created with `unit_names` on first use."""
    zh, en = unit_names(code)
    unit, _ = Unit.objects.get_or_create(code=code, defaults={"name_zh": zh, "name_en": en})
    return unit


ALIAS_TARGETS: dict[str, type[Entity] | type[Metric] | type[Channel]] = {
    "entity": Entity,
    "metric": Metric,
    "channel": Channel,
}


def alias_conflict(*, text: str, kind: str, code: str, exclude_pk: int | None = None) -> str | None:
    """Why this alias cannot point at `kind code`, or None (for an alias being edited, `exclude_pk`)."""
    key = alias_key(text)
    editing_same_key = exclude_pk is not None and Alias.objects.filter(pk=exclude_pk, key=key).exists()
    clash = Alias.objects.filter(key=key).exclude(pk=exclude_pk).first()
    return _alias_problem(
        text=text, key=key, kind=kind, code=code, clash=clash, glossary=glossary_snapshot(), editing=editing_same_key
    )


def _alias_problem(
    *, text: str, key: str, kind: str, code: str, clash: Alias | None, glossary: GlossarySnapshot, editing: bool
) -> str | None:
    """An alias may point at one code only: no other alias (`clash`), code or name may say the same."""
    if not key:
        return "An alias cannot be empty."
    if clash is not None and (clash.kind, clash.target_code) == (kind, code):
        return f"'{text}' is already an alias of {kind} {code}, written '{clash.text}'."
    if clash is not None:
        return f"'{text}' already names {clash.kind} {clash.target_code}."
    target = glossary.matcher.lookup(text)
    if target is not None and (target.kind, target.code) != (kind, code) and not editing:
        return f"'{text}' already names {target.kind} {target.code}."
    return None


class AliasExists(ValidationError):
    """The alias is there already, for the same target, perhaps written differently (`营业收入：`
    and `营业收入:` are one alias): a conflict with the glossary rather than a malformed request."""


@dataclass(frozen=True)
class AliasDraft:
    kind: str  # entity | metric | channel
    text: str
    code: str


def alias_create(*, kind: str, text: str, code: str) -> Alias:
    """Add one alias (admin, `/v1/glossary/aliases`, the glossary-gap report); see `aliases_create`."""
    (alias,) = aliases_create(drafts=[AliasDraft(kind, text, code)])
    return alias


@transaction.atomic
def aliases_create(*, drafts: Sequence[AliasDraft], glossary: GlossarySnapshot | None = None) -> list[Alias]:
    """Add aliases, all or none: the one way aliases are made (`import_glossary` adds many at once).

    Each target must exist and each text may name nothing else, in the glossary (`glossary`, by
    default the current one) or earlier in `drafts`. `ValidationError` says what is wrong.
    """
    glossary = glossary or glossary_snapshot()
    targets = {
        (kind, target.code): target
        for kind, model in ALIAS_TARGETS.items()
        for target in model.objects.filter(code__in={d.code for d in drafts if d.kind == kind})
    }
    keys = {alias_key(d.text) for d in drafts}
    clashes = {a.key: a for a in Alias.objects.filter(key__in=keys).select_related("entity", "metric", "channel")}
    aliases: list[Alias] = []
    for draft in drafts:
        target = targets.get((draft.kind, draft.code))
        if target is None:
            raise ValidationError({"code": f"no {draft.kind} with code '{draft.code}'"})
        key = alias_key(draft.text)
        clash = clashes.get(key)
        problem = _alias_problem(
            text=draft.text, key=key, kind=draft.kind, code=draft.code, clash=clash, glossary=glossary, editing=False
        )
        if problem:
            same_target = clash is not None and (clash.kind, clash.target_code) == (draft.kind, draft.code)
            raise (AliasExists if same_target else ValidationError)({"text": problem})
        alias = Alias(kind=draft.kind, text=draft.text, key=key, **{draft.kind: target})
        # The targets, the unique key and the one-target constraint were checked above from rows
        # already read; `full_clean` would read them again, row by row (an import adds thousands).
        try:
            alias.full_clean(exclude=list(ALIAS_TARGETS), validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            raise ValidationError({"text": [f"'{draft.text[:40]}': {m}" for m in error.messages]}) from None
        clashes[key] = alias
        aliases.append(alias)
    created = Alias.objects.bulk_create(aliases, batch_size=1000)
    glossary_changed()  # `bulk_create` sends no `post_save`
    return created


@transaction.atomic
def alias_delete(*, alias: Alias) -> None:
    """Remove one alias (`/v1/glossary/aliases/{id}`); the next question no longer reads it."""
    alias.delete()
    # `post_delete` bumps the stamp too (`facts.signals`, for the admin's own deletes); the
    # service does not rely on a signal being connected.
    glossary_changed()


def metric_formula_problems(*, code: str, formula: str, replacing: str | None = None) -> list[str]:
    """Why metric `code` cannot have `formula` (blank: none), or `[]`.

    The formula is checked together with every other metric's formula, the edited metric's
    replaced (`replacing`: its code before the edit, if the code changes too): a syntax error, an
    unknown code or a cycle through other formulas is refused, and so is an edit that would
    break another metric's formula that works today.
    """
    stored = dict(Metric.objects.values_list("code", "formula"))
    before = {c: f for c, f in stored.items() if f.strip()}
    after = {c: f for c, f in before.items() if c not in (code, replacing)}
    if formula.strip():
        after[code] = formula
    known = (set(stored) - {replacing}) | {code}
    errors = formulas_check(after, known)
    if code in errors:
        return [errors[code]]
    working = formulas_check(before, stored)
    return [
        f"{other}'s formula would no longer work: {reason}" for other, reason in errors.items() if other not in working
    ]


def metric_create(*, code: str, name: str, unit: str, alias: str, aggregation: str = "") -> Metric:
    """A new stored metric named by a term analysts used or a row label a report printed, with
    that text as its first alias; a code, name or alias that clashes is a `ValidationError`
    naming it, and nothing is written."""
    with transaction.atomic():
        metric = Metric(code=code, name=name, unit=unit_ensure(unit), aggregation=aggregation)
        metric.full_clean()
        metric.save()
        alias_create(kind="metric", text=alias, code=code)
    return metric
