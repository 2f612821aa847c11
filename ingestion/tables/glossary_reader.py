"""How a table's texts read through the glossary: labels, titles and column headers,
with their periods, units, scales and what is left over.

Takes one text and returns a `_Reading` of it, never a fact: one `_Reader` per glossary
(`_reader_for`) reads each text once and keeps it. `candidates` reads whole tables with it.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.language.periods import periods_find
from core.model.period import Period

from ..headers import header_prepare, not_a_period, periods_rewrite
from ..scales import Printed, scale_read, scale_strip, unit_parse
from ..statements import label_as_printed
from ..values import _BRACKETS, UnitHint, UnitMarkers
from .concept import _SUB_ROW as _SUB_ROW  # read by the layout and the cells
from .concept import concept_key

# Two reference dates: a period that reads the same on both is absolute (FY2025), one that
# does not is relative (去年, H1) and means nothing inside a document.
_REF_A, _REF_B = date(2000, 1, 1), date(2001, 7, 1)

_FILLER = (
    "其中",
    "ofwhich",
    "including",
    "项目",
    "指标",
    "全年",
    "实际",
    "actual",
    "未经审计",
    "经审计",
    "unaudited",
    "audited",
    "reported",
    "单位",
    "人民币",
    "本公司",  # the issuer itself: 公司研发人员的数量 is 研发人员数量
    "公司",
)

# Report headers the period grammar does not read: `2025年1-6月` (H1), `2025年7-9月` (Q3), `1H2025`.
_MONTH_RANGES = {"1-3": "q1", "4-6": "q2", "7-9": "q3", "10-12": "q4", "1-6": "h1", "7-12": "h2", "1-12": ""}
_MONTH_RANGE = re.compile(r"(19[9][0-9]|20[0-9]{2}|2100)\s?年?\s?(1|4|7|10)\s?[-~–—至]\s?(3|6|9|12)\s?月(?:份)?")

_HALF_FIRST = re.compile(r"(?<![a-z0-9])([12])h\s?(20[0-9]{2}|[0-9]{2})(?![0-9])")


@dataclass(frozen=True)
class _Reading:
    """What one piece of text (a title, a header, a label) names."""

    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    externals: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    relative: bool = False
    unit: UnitHint | None = None  # a unit other than money (`%`, `家`)
    leftover: str = ""
    printed: Printed | None = None  # the currency and scale it states
    dates: tuple[date, ...] = ()
    not_period: bool = False  # `Change`, `% of total`, `Note`
    whole: bool = False  # the whole label is one alias, as printed
    qualified: bool = False  # read under its section heading
    own: bool = False  # the company's own share of the item (`Net income attributable to Verizon`)

    @property
    def period(self) -> Period | None:
        """The one absolute period of a clean period header, else None."""
        if self.leftover:
            return None
        return self.column_period

    @property
    def column_period(self) -> Period | None:
        """The one absolute period of a column header, which may also carry a group caption."""
        if self.relative or self.not_period or len(self.periods) != 1 or self.externals:
            return None
        if len(self.metrics) > 1 or len(self.entities) > 1 or len(self.channels) > 1:
            return None
        return self.periods[0]


_NOTHING = _Reading()

# Words of a report's column headers that name no dimension (`Years Ended`, `As of`, `Restated`).
_HEADER_FILLER = (
    "fortheyearsended",
    "fortheyearended",
    "fiscalyearsended",
    "fiscalyearended",
    "fiscalyearend",
    "yearsended",
    "yearended",
    "yearend",
    "fiscalyears",
    "fiscalyear",
    "fiscal",
    "asofandfortheyearended",
    "asof",
    "asat",
    "ended",
    "restated",
    "asreported",
    "balances",
    "balance",
    "amount",
    "total",
)

# Names a statement gives one holder of the same equity (`stockholders'`, `shareholders'`): a
# label read with one is read with the other when the glossary knows only that one.
_HOLDERS = re.compile(r"(?<![a-z])(?:stockholders|shareholders|shareowners)(?=['’]|\b)", re.IGNORECASE)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
_ATTRIBUTABLE = re.compile(r"^(?P<item>.+?)[\s,]+attributable to\s+(?P<holder>.+?)\s*$", re.IGNORECASE)


def _holder_swap(label: str) -> Callable[[re.Match[str]], str]:
    said = {m.group(0).lower() for m in _HOLDERS.finditer(label)}
    other = "shareholders" if "shareholders" not in said else "stockholders"

    def swap(m: re.Match[str]) -> str:
        text = m.group(0)
        return other.capitalize() if text[0].isupper() else other

    return swap


def _distinct(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _one(items: tuple[str, ...]) -> str | None:
    return items[0] if len(items) == 1 else None


class _Reader:
    """Reads texts through one glossary, with a cache (tables repeat their labels)."""

    def __init__(self, glossary: GlossarySnapshot):
        self.glossary = glossary
        self.markers = UnitMarkers((u.code, u.name_zh, u.name_en) for u in glossary.units.values())
        self.cache: dict[tuple[str, bool], _Reading] = {}
        self.concept_cache: dict[str, tuple[str, ...]] = {}
        # concept key → (name or alias, code) of every metric named so (see `concept_key`)
        self.concept_names: dict[str, list[tuple[str, str]]] = {}
        for code in glossary.metrics:
            for text in glossary.aliases_of("metric", code):
                key = concept_key(text)
                if key:
                    self.concept_names.setdefault(key, []).append((text_normalize(text), code))

    def read(self, raw: str) -> _Reading:
        """A label, a title or a caption: only bracketed units and scales are set aside."""
        return self._cached(raw, header=False)

    def header(self, raw: str) -> _Reading:
        """A column header: currency, scale, footnotes and report words are set aside too."""
        return self._cached(raw, header=True)

    def _cached(self, raw: str, *, header: bool) -> _Reading:
        if not raw.strip():
            return _NOTHING
        if not header:
            # a label the glossary holds as printed (`Net income (1)` may be its own item); else as
            # the statement names the item: `三、营业利润（亏损以“－”号填列）` is 营业利润,
            # `Inventories (Notes 1 and 3)` is Inventories
            raw = raw if self._whole(raw) is not None else label_as_printed(raw)
        raw = raw.translate(_APOSTROPHES)  # `shareholders’ equity` as a glossary writes it
        found = self.cache.get((raw, header))
        if found is None:
            found = self._read(raw, header=header)
            if not header and (found.leftover or not found.metrics) and _HOLDERS.search(raw):
                again = self._read(_HOLDERS.sub(_holder_swap(raw), raw), header=False)
                found = again if again.metrics and not again.leftover else found
            self.cache[(raw, header)] = found
        return found

    def own(self, label: str, issuer: str) -> _Reading | None:
        """The item a label names as the company's own share (`Net income attributable to
        Verizon`, `Total Oracle Corporation stockholders' equity`): the item's reading with `own`,
        when the holder named is `issuer` and the rest is one metric; else None."""
        attributable = _ATTRIBUTABLE.match(label)
        if attributable is not None:
            holder = self.read(attributable.group("holder"))
            if holder.entities != (issuer,) or holder.metrics:
                return None
            item = self.read(attributable.group("item"))
        else:
            names = sorted(self.glossary.aliases_of("entity", issuer), key=len, reverse=True)
            rest = label
            for name in names:
                rest = re.sub(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", " ", rest, flags=re.IGNORECASE)
            if rest == label:
                return None
            item = self.read(" ".join(rest.split()))
        if len(item.metrics) != 1 or item.leftover or item.periods or item.entities or item.externals:
            return None
        return replace(item, own=True)

    def _whole(self, raw: str) -> _Reading | None:
        """The label as printed, when it is one metric's alias (`Gross margin (%)`, `Current year1`)."""
        target = self.glossary.matcher.lookup(raw)
        if target is None or target.kind != "metric":
            return None
        normalized = text_normalize(raw)
        unit = self.markers.hint(normalized)
        money = unit_parse(unit.code) if unit is not None else None
        printed = _bracketed_scale(normalized)
        if money is not None and printed is None:
            printed = Printed(money[0], money[1] * unit.factor)  # type: ignore[union-attr]
        return _Reading(metrics=(target.code,), unit=None if money else unit, whole=True, printed=printed)

    def _headcount(self, raw: str) -> _Reading | None:
        """A category row of a staff table (`硕士`, `生产人员`) stands for its headcount: the label
        with 人数 is a metric counted in persons (a unit printed 人)."""
        found = self._whole(raw.strip() + "人数")
        if found is None:
            return None
        metric = self.glossary.metrics.get(found.metrics[0])
        unit = self.glossary.units.get(metric.unit) if metric is not None else None
        return found if unit is not None and unit.name_zh == "人" else None

    def _read(self, raw: str, *, header: bool) -> _Reading:
        if not header:
            whole = self._whole(raw) or self._headcount(raw)
            if whole is not None:
                return whole
        normalized, dates = periods_rewrite(_report_periods(text_normalize(header_prepare(raw))))
        printed = scale_read(normalized) if header else _bracketed_scale(normalized)
        unit = self.markers.hint(normalized)
        money = unit_parse(unit.code) if unit is not None else None
        if money is not None:
            if printed is None or printed.factor is None:
                printed = Printed(money[0], money[1] * unit.factor)  # type: ignore[union-attr]
            unit = None
        core = self.markers.strip(normalized)
        core = scale_strip(core) if header else _BRACKETS.sub(_scale_bracket_drop, core)
        first, second = periods_find(core, _REF_A), periods_find(core, _REF_B)
        relative = [p for *_, p in first] != [p for *_, p in second]
        chars = list(core)
        for start, end, _ in first:
            chars[start:end] = " " * (end - start)
        rest = " ".join("".join(chars).split())
        matches = self.glossary.match(rest)
        compact, _ = compact_view(rest)
        taken = [False] * len(compact)
        for m in matches:
            taken[m.start : m.end] = [True] * (m.end - m.start)
        leftover = "".join(ch for ch, used in zip(compact, taken, strict=True) if not used)
        leftover = "".join(ch for ch in leftover if unicodedata.category(ch)[0] not in "PSZ")
        for word in (*_FILLER, *_HEADER_FILLER) if header else _FILLER:
            leftover = leftover.replace(word, "")
        entities = [m for m in matches if m.kind == "entity"]
        return _Reading(
            metrics=_distinct(m.code for m in matches if m.kind == "metric"),
            entities=_distinct(m.code for m in entities if not m.external),
            externals=_distinct(m.code for m in entities if m.external),
            channels=_distinct(m.code for m in matches if m.kind == "channel"),
            periods=tuple(dict.fromkeys(p for *_, p in first)),
            relative=relative,
            unit=unit,
            leftover=leftover,
            printed=printed,
            dates=dates,
            not_period=header and (not_a_period(normalized) or any(ch.isdigit() for ch in leftover)),
        )

    def alias_text(self, label: str) -> str:
        """A label as a curator would add it as an alias: no unit brackets, no `其中：`."""
        text = unicodedata.normalize("NFKC", label_as_printed(label))
        text = _BRACKETS.sub(lambda m: " " if self.markers.whole(m.group(1)) else m.group(0), text)
        text = " ".join(text.split()).strip(" :：-—–·")
        return text[2:].lstrip(" :：") if text.startswith("其中") else text

    def concept_metrics(self, label: str) -> tuple[str, ...]:
        """The metrics a label may be suggested under: those one of whose names or aliases is the
        label's concept (`same_concept`), the closest by characters first; none for a label whose
        words say something no metric's name says."""
        found = self.concept_cache.get(label)
        if found is None:
            found = self.concept_cache[label] = self._concept_metrics(label)
        return found

    def _concept_metrics(self, label: str) -> tuple[str, ...]:
        normalized = text_normalize(label)
        scored: dict[str, float] = {}
        for name, code in self.concept_names.get(concept_key(label), []):
            ratio = difflib.SequenceMatcher(None, normalized, name, autojunk=False).ratio()
            scored[code] = max(ratio, scored.get(code, 0.0))
        return tuple(sorted(scored, key=lambda code: (-scored[code], code)))


def concept_metrics(label: str, glossary: GlossarySnapshot) -> tuple[str, ...]:
    """The metrics of a label's concept in `glossary`, the closest first (`_Reader.concept_metrics`)."""
    return _reader_for(glossary).concept_metrics(label)


def _bracketed_scale(normalized: str) -> Printed | None:
    """The scale a label states in brackets (`Number of shares (thousands)`, `Revenue ($m)`)."""
    for m in _BRACKETS.finditer(normalized):
        found = scale_read(m.group(1))
        if found is not None:
            return found
    return None


def _scale_bracket_drop(m: re.Match[str]) -> str:
    return " " if scale_read(m.group(1)) is not None and not scale_strip(m.group(1)).strip() else m.group(0)


def _report_periods(text: str) -> str:
    """Rewrite report-style period headers into the period grammar (`2025年1-6月` → `2025h1`)."""

    def months(m: re.Match[str]) -> str:
        suffix = _MONTH_RANGES.get(f"{m.group(2)}-{m.group(3)}")
        return m.group(0) if suffix is None else f"{m.group(1)}{suffix or '年'}"

    text = _MONTH_RANGE.sub(months, text)
    return _HALF_FIRST.sub(lambda m: f"h{m.group(1)} {_full_year(m.group(2))}", text)


def _full_year(text: str) -> str:
    return text if len(text) == 4 else f"20{text}"


_READERS: dict[int, tuple[GlossarySnapshot, _Reader]] = {}


def _reader_for(glossary: GlossarySnapshot) -> _Reader:
    held = _READERS.get(id(glossary))
    if held is not None and held[0] is glossary:
        return held[1]
    if len(_READERS) > 8:
        _READERS.clear()
    reader = _Reader(glossary)
    _READERS[id(glossary)] = (glossary, reader)
    return reader


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())
