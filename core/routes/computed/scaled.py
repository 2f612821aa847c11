"""An answer shown in the unit the question asks (`是多少亿元`, `in USD billions`, `换算成美元`).

Takes the structured answer (its text, found facts and computed values), the unit asked and,
for a currency, the curated FX rates; returns the answer with each money figure converted
exactly (`Decimal`), shown in the asked unit with the stored value beside it, as a `Computed`
whose formula is the stored figure times the scale factor (and the rate), so it re-evaluates
from its inputs. Its display is rounded half-up to the precision the figure was given at,
carried into the unit shown (`core.engine.display.converted_places`: every stored digit for a
scale word up to four places, at most two through a rate); the exact value stays in `value`.
A figure whose unit is no amount of money (a percentage, a ratio, a count) says that the unit
asked cannot apply; a currency with no curated rate for that period is an honest refusal naming
the missing rate, with no figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from core.engine import Computed
from core.engine.build import computed_build
from core.engine.display import converted_places, decimals_check, number_display, places_of
from core.engine.formula import Chain, Number, Ref
from core.engine.fx import rate_type_for
from core.engine.operands import qualifier
from core.glossary import GlossarySnapshot, aggregation_of
from core.language.quantities.asked import (
    count_unit,
    count_unit_code,
    count_unit_display,
    money_unit,
    scaled_unit_code,
    scaled_unit_display,
)
from core.model.facts import FactRecord, SubTask
from core.model.intent import UnitAsked
from core.model.outcome import KIND_FORMULA
from core.model.registry import KIND_ANSWER, KIND_REFUSAL
from core.ports import FxRates
from core.routes.lookup.render import fact_line
from core.routes.render import is_en, printed_note, unit_suffix

# (from currency, to currency, fact) → the rate and its words, or None when none is curated
RateFor = Callable[[str, str, FactRecord], "Rate | None"]


@dataclass(frozen=True)
class Rate:
    """A curated rate as the formula uses it: the stored figure `op` (`*` or `/`) `value`."""

    op: str
    value: Decimal
    words: tuple[str, str]  # `USD/CNY 7.1（平均汇率，FY2025，来源）`, in zh and en


@dataclass(frozen=True)
class Scaled:
    text: str
    kind: str
    computed: tuple[Computed, ...]


def no_rates(source: str, target: str, fact: FactRecord) -> Rate | None:
    return None


def fx_rate_for(fx: FxRates | None, glossary: GlossarySnapshot) -> RateFor:
    """Rates from the curated FX table: the average over the fact's period for a flow, the
    closing rate for a balance; none for a ratio, nor when the table holds no such rate."""
    if fx is None:
        return no_rates

    def rate_for(source: str, target: str, fact: FactRecord) -> Rate | None:
        info = glossary.metrics.get(fact.metric)
        rate_type = rate_type_for(aggregation_of(info.aggregation if info else "", fact.unit))
        if rate_type is None:
            return None
        quote = fx.rate(source, target, fact.period.period_type, fact.period.period, rate_type)
        if quote is None:
            return None
        op = "*" if quote.base_currency == source else "/"
        pair = f"{quote.base_currency}/{quote.quote_currency} {quote.rate:f}"
        kind = {"average": ("平均汇率", "average rate"), "closing": ("期末汇率", "closing rate")}[quote.rate_type]
        where = f"{quote.period.label}, {quote.source}"
        return Rate(op, quote.rate, (f"{pair}（{kind[0]}，{where}）", f"{pair} ({kind[1]}, {where})"))

    return rate_for


def scaled_answer(
    text: str,
    kind: str,
    facts: Sequence[FactRecord],
    computed: Sequence[Computed],
    asked: UnitAsked,
    glossary: GlossarySnapshot,
    language: str,
    *,
    decimals: int | None = None,
    rate_for: RateFor = no_rates,
) -> Scaled:
    """The answer in the asked unit (see the module's docstring)."""
    lines = text.split("\n") if text else []
    if computed:
        converted: list[Computed] = []
        lead: list[str] = []
        refused: list[str] = []
        for item in computed:
            done = _computed_converted(item, asked, glossary, language, decimals)
            if isinstance(done, str):
                refused.append(done)
            elif done is not None:
                converted.append(done)
                lead.append(_converted_line(done, item.display_text(language), item.unit, glossary, language))
        if not converted:
            lead = list(dict.fromkeys(refused))
        return Scaled("\n".join([*lead, *lines]), kind, tuple(converted))
    out: list[Computed] = []
    shown: list[str] = []
    for fact in facts:
        done = _fact_converted(fact, asked, glossary, language, decimals, rate_for)
        if done is None:
            continue
        if isinstance(done, str):
            if done.startswith("\x00"):  # no rate: the whole answer is a refusal naming it
                return Scaled(done[1:], KIND_REFUSAL, ())
            shown.append(done)
            continue
        converted, rate = done
        out.append(converted)
        original = fact_line(fact, glossary, language)
        lines = [line for line in lines if line != original]
        shown.append(_fact_converted_line(converted, fact, rate, glossary, language))
    return Scaled("\n".join([*shown, *lines]), kind if out or not facts else KIND_ANSWER, tuple(out))


def _factor(source: tuple[str, int], asked: UnitAsked) -> tuple[int, int]:
    """The power of ten the stored figure is in and the one it is shown in."""
    power = asked.power if asked.power is not None else source[1]
    return source[1], power


def _node(fact: FactRecord, stored: int, shown: int, rate: Rate | None) -> Chain:
    ref = Ref(fact.metric, qualifier(fact))
    rest: list[tuple[str, Number]] = []
    if rate is not None:
        rest.append((rate.op, Number(rate.value, f"{rate.value:f}")))
    if stored > shown:
        factor = Decimal(10) ** (stored - shown)
        rest.append(("*", Number(factor, f"{factor:f}")))
    elif shown > stored:
        factor = Decimal(10) ** (shown - stored)
        rest.append(("/", Number(factor, f"{factor:f}")))
    return Chain(ref, tuple(rest))


def _fact_converted(
    fact: FactRecord,
    asked: UnitAsked,
    glossary: GlossarySnapshot,
    language: str,
    decimals: int | None,
    rate_for: RateFor,
) -> tuple[Computed, Rate | None] | str | None:
    """The fact in the asked unit and the rate used; None when it is already in it; a line when
    it cannot be (a line starting with NUL: no rate, the whole answer is refused)."""
    counted = count_unit(fact.unit)
    if counted is not None and not asked.currency and asked.power is not None:
        return _count_converted(fact, counted, asked.power, glossary, decimals)
    source = money_unit(fact.unit)
    if source is None:
        return _cannot_apply(fact.unit, asked, glossary, language)
    currency = asked.currency or source[0]
    rate = None
    if currency != source[0]:
        rate = rate_for(source[0], currency, fact)
        if rate is None:
            return "\x00" + _no_rate(source[0], currency, fact, language)
    stored, shown = _factor(source, asked)
    if stored == shown and rate is None:
        return None
    node = _node(fact, stored, shown, rate)
    unit = scaled_unit_code(currency, shown)
    name = scaled_unit_display(currency, shown, "zh"), scaled_unit_display(currency, shown, "en")
    task = SubTask(fact.metric, fact.entity, fact.period, fact.channel)
    built = computed_build(
        KIND_FORMULA,
        node,
        [fact],
        unit=unit,
        name=(f"以{name[0]}计", f"in {name[1]}"),
        label=glossary.display,
        decimals=None,
        subject=task,
    )
    assert isinstance(built, Computed)
    return _shown(built, places_of(fact.value), shown - stored, rated=rate is not None, decimals=decimals), rate


def _count_converted(
    fact: FactRecord, counted: tuple[str, int], power: int, glossary: GlossarySnapshot, decimals: int | None
) -> tuple[Computed, None] | None:
    """A count at another scale (`5,832 万人` in millions: `58.32 million persons`)."""
    thing, stored = counted
    if stored == power:
        return None
    names = count_unit_display(thing, power, "zh"), count_unit_display(thing, power, "en")
    built = computed_build(
        KIND_FORMULA,
        _node(fact, stored, power, None),
        [fact],
        unit=count_unit_code(thing, power),
        name=(f"以{names[0]}计", f"in {names[1]}"),
        label=glossary.display,
        decimals=None,
        subject=SubTask(fact.metric, fact.entity, fact.period, fact.channel),
    )
    assert isinstance(built, Computed)
    return _shown(built, places_of(fact.value), power - stored, rated=False, decimals=decimals), None


def _computed_converted(
    item: Computed, asked: UnitAsked, glossary: GlossarySnapshot, language: str, decimals: int | None
) -> Computed | str | None:
    source = money_unit(item.unit)
    if source is None:
        return _cannot_apply(item.unit, asked, glossary, language)
    if asked.currency and asked.currency != source[0]:
        words = f"{source[0]}→{asked.currency}"
        if is_en(language):
            return f"Not converted to {asked.currency}: a computed figure is converted only from its inputs ({words})."
        return f"未换算为 {asked.currency}：计算结果只按其输入换算（{words}）。"
    stored, shown = _factor(source, asked)
    if stored == shown:
        return None
    factor = Decimal(10) ** (stored - shown)
    value = item.value * factor
    unit = scaled_unit_code(source[0], shown)
    formula = f"({item.formula}) * {factor:f}" if factor >= 1 else f"({item.formula}) / {Decimal(1) / factor:f}"
    words = (f"（{item.formula_zh}）× {factor:f}", f"({item.formula_en}) × {factor:f}")
    # a computed figure was given at the places it is shown to (its `decimals`), else exact
    given = item.decimals if item.decimals is not None else places_of(item.value)
    converted = replace(item, formula=formula, formula_zh=words[0], formula_en=words[1], value=value, unit=unit)
    return _shown(converted, given, shown - stored, rated=False, decimals=decimals)


def _shown(item: Computed, given: int, shift: int, *, rated: bool, decimals: int | None) -> Computed:
    """`item` displayed to the places asked, else to `converted_places` (rounded half-up, the
    exact value untouched), with `decimals` saying how many places the display has."""
    decimals_check(decimals)
    places = decimals if decimals is not None else converted_places(item.value, given, shift, rated=rated)
    return replace(item, display=number_display(item.value, places), decimals=places)


def _converted_line(item: Computed, before: str, before_unit: str, glossary: GlossarySnapshot, language: str) -> str:
    currency, power = money_unit(item.unit) or ("", 0)
    unit = scaled_unit_display(currency, power, language)
    was = before + unit_suffix(glossary, before_unit, language)
    if is_en(language):
        return f"{item.name(language)} in {unit}: {item.display} {unit} (= {was})."
    return f"{item.name(language)}（以{unit}计）：{item.display} {unit}（= {was}）。"


def _fact_converted_line(
    item: Computed, fact: FactRecord, rate: Rate | None, glossary: GlossarySnapshot, language: str
) -> str:
    money = money_unit(item.unit)
    if money is not None:
        unit = scaled_unit_display(*money, language)
    else:
        unit = count_unit_display(*(count_unit(item.unit) or ("", 0)), language)
    entity = glossary.display("entity", fact.entity, language)
    metric = glossary.display("metric", fact.metric, language)
    stored = number_display(fact.value) + unit_suffix(glossary, fact.unit, language)
    formula = item.formula_words(language)
    if rate is not None:
        formula += f"; {rate.words[1]}" if is_en(language) else f"；{rate.words[0]}"
    source = f"{fact.source_doc} · {fact.locator}{printed_note(fact, language)}"
    if is_en(language):
        return (
            f"{entity} {fact.period.label} {metric}: {item.display} {unit} "
            f"(stored {stored}; {formula}; source: {source})"
        )
    return f"{entity} {fact.period.label} {metric}：{item.display} {unit}（存储值 {stored}；{formula}；来源：{source}）"


def _cannot_apply(unit: str, asked: UnitAsked, glossary: GlossarySnapshot, language: str) -> str:
    shown = glossary.unit_display(unit, language)
    if shown in ("", unit):  # a bare count has no unit name
        shown = "count" if is_en(language) else "计数"
    if is_en(language):
        return f"The unit asked ({asked.written}) does not apply to a figure in {shown}; it is shown as stored."
    return f"所问单位（{asked.written}）不适用于以{shown}计的数字，按原单位列示。"


def _no_rate(source: str, target: str, fact: FactRecord, language: str) -> str:
    period = fact.period.label
    if is_en(language):
        return (
            f"Cannot convert to {target}: the FX table holds no {source}→{target} rate for {period}. "
            "No figure is converted without a curated rate; ask without the currency, or ask a curator "
            "to add the rate."
        )
    return (
        f"无法换算为 {target}：汇率表中没有 {period} 的 {source}→{target} 汇率。"
        "没有经整理的汇率，不换算任何数字；可去掉币种要求重问，或请维护人员补充该汇率。"
    )
