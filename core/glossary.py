"""An immutable snapshot of the glossary: entities, metrics, channels, units and their aliases.

Built from plain records (the Django adapter reads them from the database and caches the
snapshot under a version stamp); the core only ever reads it. A code and a name are implicit
aliases of their own target. Every alias is matched in two views: `matcher` on normalised text,
and `gate_matcher` (built on first use) on the security gate's evasion-proof `evasion_view`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.engine import FormulaMetric, formula_metrics_build
from core.engine.formula import formulas_check
from core.evasion.view import evasion_key, evasion_view
from core.language.matcher import AliasTarget, GlossaryMatcher, MatchView
from core.language.normalize import text_normalize
from core.model.facts import ENTITY_EXTERNAL, ENTITY_HOME
from core.model.intent import Match
from core.model.sign import SIGN_AS_PRINTED


@dataclass(frozen=True)
class EntityInfo:
    code: str
    name: str
    kind: str
    parent: str | None = None
    geography: str = ""
    # Reporting conventions a curator sets per company: the month its fiscal year ends
    # (None: a dated column is the fiscal year that ends on that date) and its reporting
    # currency (ISO 4217; "" when not set), which a bare `$` in its tables means.
    year_end_month: int | None = None
    currency: str = ""


@dataclass(frozen=True)
class MetricInfo:
    code: str
    name: str
    unit: str
    description: str = ""
    formula: str = ""  # an expression over metric codes; "" for a stored metric
    aggregation: str = ""  # sum | end | none; "" for the unit's default (`aggregation_of`)
    # as_printed | positive (`core.model.sign`): how a fact of it stores the printed figure
    sign: str = SIGN_AS_PRINTED

    @property
    def adds_up(self) -> str:
        """How the metric adds up over time: `sum` (flows), `end` (balances and counts at a date),
        `none` (ratios and margins); as curated, else from the unit (PCT → none, else sum)."""
        return aggregation_of(self.aggregation, self.unit)


AGGREGATION_SUM = "sum"
AGGREGATION_END = "end"
AGGREGATION_NONE = "none"
AGGREGATIONS = (AGGREGATION_SUM, AGGREGATION_END, AGGREGATION_NONE)


def aggregation_of(aggregation: str, unit: str) -> str:
    if aggregation in AGGREGATIONS:
        return aggregation
    return AGGREGATION_NONE if unit == "PCT" else AGGREGATION_SUM


@dataclass(frozen=True)
class ChannelInfo:
    code: str
    name: str


@dataclass(frozen=True)
class UnitInfo:
    code: str
    name_zh: str
    name_en: str


@dataclass(frozen=True)
class AliasRecord:
    kind: str  # entity | metric | channel
    text: str
    code: str


@dataclass
class GlossarySnapshot:
    entities: dict[str, EntityInfo]
    metrics: dict[str, MetricInfo]
    channels: dict[str, ChannelInfo]
    units: dict[str, UnitInfo]
    aliases: list[AliasRecord]
    home_company_name: str | None = None
    version: int = 0
    matcher: GlossaryMatcher = field(init=False)
    _english: dict[tuple[str, str], str] = field(init=False, default_factory=dict)
    _alias_texts: dict[tuple[str, str], list[str]] = field(init=False, default_factory=dict)
    _home: str | None = field(init=False, default=None)
    _in_scope: tuple[EntityInfo, ...] = field(init=False, default=())
    _children: dict[str, list[EntityInfo]] = field(init=False, default_factory=dict, repr=False, compare=False)
    _pairs: tuple[tuple[str, AliasTarget], ...] = field(init=False, default=(), repr=False, compare=False)
    _gate_matcher: GlossaryMatcher | None = field(init=False, default=None, repr=False, compare=False)
    _formulas: dict[str, FormulaMetric] | None = field(init=False, default=None, repr=False, compare=False)
    # text → the external codes it names; the gate and the passage screening ask it of the same
    # questions, passages and sentences over and over while this snapshot is current.
    mentions_memo: dict[str, tuple[str, ...]] = field(init=False, default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        pairs: list[tuple[str, AliasTarget]] = []
        for kind, records in (("entity", self.entities), ("metric", self.metrics), ("channel", self.channels)):
            for code, info in records.items():
                target = self._target(kind, code)
                pairs.append((code, target))
                pairs.append((info.name, target))
                self._alias_texts.setdefault((kind, code), [info.name])
        for alias in self.aliases:
            if (alias.kind, alias.code) not in self._alias_texts:
                continue
            pairs.append((alias.text, self._target(alias.kind, alias.code)))
            texts = self._alias_texts[(alias.kind, alias.code)]
            if all(alias.text.casefold() != text.casefold() for text in texts):
                texts.append(alias.text)
        self.matcher = GlossaryMatcher(pairs)
        self._pairs = tuple(pairs)
        self._home = next((code for code, info in self.entities.items() if info.kind == ENTITY_HOME), None)
        order = {ENTITY_HOME: 0, "subsidiary": 1, "peer": 2}
        inside = [e for e in self.entities.values() if e.kind != ENTITY_EXTERNAL]
        self._in_scope = tuple(sorted(inside, key=lambda e: (order.get(e.kind, 3), e.code)))
        for info in self._in_scope:
            if info.parent is not None:
                self._children.setdefault(info.parent, []).append(info)
        for key, texts in self._alias_texts.items():
            ascii_texts = [t for t in texts if t.isascii() and t != key[1]]
            if ascii_texts:
                self._english[key] = max(ascii_texts, key=len)

    def _target(self, kind: str, code: str) -> AliasTarget:
        external = kind == "entity" and self.entities[code].kind == ENTITY_EXTERNAL
        return AliasTarget(kind, code, external)

    # -- lookups ---------------------------------------------------------------------------
    @property
    def home_entity(self) -> str | None:
        return self._home

    @property
    def gate_matcher(self) -> GlossaryMatcher:
        """Every alias keyed in the gate's evasion-proof view; built once, on first use.

        Two aliases that only differ by look-alikes meet on one key there; the external one is
        kept, so the gate errs towards refusing.
        """
        if self._gate_matcher is None:
            self._gate_matcher = GlossaryMatcher(self._pairs, key=evasion_key, prefer_external=True)
        return self._gate_matcher

    @property
    def formula_metrics(self) -> dict[str, FormulaMetric]:
        """The curators' formula metrics, parsed once.

        The importer and admin refuse a bad formula before it is stored; should one still be
        unusable here (edited in the database by hand), that metric has no formula rather
        than a guessed one.
        """
        if self._formulas is None:
            definitions = {code: m.formula for code, m in self.metrics.items() if m.formula.strip()}
            units = {code: m.unit for code, m in self.metrics.items()}
            bad = formulas_check(definitions, units)
            while bad:
                definitions = {code: text for code, text in definitions.items() if code not in bad}
                bad = formulas_check(definitions, units)
            self._formulas = formula_metrics_build(definitions, units)
        return self._formulas

    def match(self, normalized: str) -> list[Match]:
        return self.matcher.find(normalized)

    def gate_match(self, text: str) -> tuple[MatchView, list[Match]]:
        """The gate's view of any text, and the aliases matched in it (spans index the view)."""
        view = evasion_view(text)
        return view, self.gate_matcher.find_in(view)

    def resolve(self, kind: str, raw: object) -> str | None:
        """The code an argument names (a code, a name or an alias), or None: never a guess."""
        if not isinstance(raw, str) or not raw.strip():
            return None
        records = {"entity": self.entities, "metric": self.metrics, "channel": self.channels}[kind]
        if raw in records:
            return raw
        target = self.matcher.lookup(raw)
        if target is None or target.kind != kind:
            return None
        return target.code

    def is_external(self, code: str | None) -> bool:
        info = self.entities.get(code or "")
        return info is not None and info.kind == ENTITY_EXTERNAL

    def alias_texts(self) -> list[str]:
        """Every name and alias, for teaching the retrieval segmenter the glossary's words."""
        return [text for texts in self._alias_texts.values() for text in texts]

    def aliases_of(self, kind: str, code: str) -> list[str]:
        return list(self._alias_texts.get((kind, code), []))

    def display(self, kind: str, code: str, language: str) -> str:
        records = {"entity": self.entities, "metric": self.metrics, "channel": self.channels}[kind]
        info = records.get(code)
        if info is None:
            return code
        if language == "en" and not info.name.isascii():
            return self._english.get((kind, code), code)
        return info.name

    def label(self, kind: str, code: str, language: str) -> str:
        """A name to show on a button or in a list: the name in `language` (`display`), else the
        name in the other language, and the code only when the record has no name at all."""
        shown = self.display(kind, code, language).strip()
        if shown and shown != code:
            return shown
        records = {"entity": self.entities, "metric": self.metrics, "channel": self.channels}[kind]
        info = records.get(code)
        return (info.name.strip() if info is not None else "") or self._english.get((kind, code), "").strip() or code

    def unit_display(self, code: str, language: str) -> str:
        unit = self.units.get(code)
        if unit is None:
            return code
        return unit.name_en if language == "en" else unit.name_zh

    def in_scope_entities(self) -> tuple[EntityInfo, ...]:
        """Entities a user may ask about: home first, then its subsidiaries, then peers."""
        return self._in_scope

    def children(self, code: str | None) -> list[EntityInfo]:
        """The in-scope entities whose parent is `code` (never an external one), in scope order."""
        return list(self._children.get(code or "", ()))


def glossary_build(
    *,
    entities: Iterable[EntityInfo],
    metrics: Iterable[MetricInfo],
    channels: Iterable[ChannelInfo],
    units: Iterable[UnitInfo],
    aliases: Iterable[AliasRecord],
    home_company_name: str | None = None,
    version: int = 0,
) -> GlossarySnapshot:
    return GlossarySnapshot(
        entities={e.code: e for e in entities},
        metrics={m.code: m for m in metrics},
        channels={c.code: c for c in channels},
        units={u.code: u for u in units},
        aliases=list(aliases),
        home_company_name=home_company_name,
        version=version,
    )


def alias_key(text: str) -> str:
    """The form two aliases are compared in: normalised, whitespace-free."""
    return "".join(text_normalize(text).split())
