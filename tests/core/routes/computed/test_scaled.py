"""A figure shown in the unit the question asks (`scaled_answer`): the display is rounded half-up
to the precision the figure was given at, carried into the unit shown (a scale word alone shows
every stored digit while that fits in four places; a rate shows at most two), while the exact
value stays in `Computed.value` and the stored value beside it stays as stored."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import Change, Computed, decimal_round, difference_compute, facts_lookup, growth_compute
from core.engine.display import RATE_DECIMALS, number_display
from core.model.facts import FactRecord, SubTask
from core.model.fx import FxQuote
from core.model.intent import UnitAsked
from core.model.period import Period
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.computed.scaled import Rate, scaled_answer
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import GLOSSARY, REF, D, FixedParser, exact, fact, intent_for
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

GLOSS = demo_glossary()
FY2025 = Period("FY", "2025")
IN_100M = UnitAsked(8, "", "亿元")
IN_USD = UnitAsked(None, "USD", "换算成美元")
IN_CNY = UnitAsked(None, "CNY", "换算成人民币")


def _fact(value: str, unit: str = "CNY_M", entity: str = "ACME_HK") -> FactRecord:
    return FactRecord("REVENUE", entity, FY2025, "TOTAL", D(value), unit, "r.pptx", "slide=4")


def _rate(op: str, value: str):
    words = (f"USD/CNY {value}（平均汇率，FY2025，curated）", f"USD/CNY {value} (average rate, FY2025, curated)")
    return lambda source, target, fact: Rate(op, D(value), words)


def _converted(fact: FactRecord, asked: UnitAsked, rate_for=None, decimals: int | None = None):
    kwargs = {"rate_for": rate_for} if rate_for is not None else {}
    scaled = scaled_answer("", "answer", [fact], [], asked, GLOSS, "zh", decimals=decimals, **kwargs)
    (item,) = scaled.computed
    return item, scaled.text


# -- a rate-converted amount: the input's precision, at most two places ------------------------


def test_a_rate_product_is_shown_to_the_inputs_precision_not_every_digit() -> None:
    item, text = _converted(_fact("24015.8"), IN_USD, _rate("*", "0.14"))
    assert item.value == D("3362.212")  # exact: 24,015.8 × 0.14
    assert item.display == "3,362.2"
    assert "3,362.2 百万美元（存储值 24,015.8 百万元" in text and "3,362.212" not in text


def test_a_rate_product_rounds_half_up() -> None:
    item, text = _converted(_fact("165.5", unit="USD_M"), IN_CNY, _rate("*", "7.1"))
    assert item.value == D("1175.05")
    assert item.display == "1,175.1"  # half-up, not half-even (1,175.0)
    assert "1,175.1 百万元（存储值 165.5 USD_M" in text


def test_a_rate_quotient_is_shown_to_the_inputs_precision() -> None:
    item, text = _converted(_fact("128450.6", entity="ACME_GROUP"), IN_USD, _rate("/", "7.1034"))
    assert item.value == exact(lambda: D("128450.6") / D("7.1034"))
    assert item.display == "18,083.0"
    assert "18,083.0 百万美元" in text and "存储值 128,450.6 百万元" in text


def test_a_rate_and_a_scale_show_at_most_two_places() -> None:
    item, _ = _converted(_fact("24015.8"), UnitAsked(8, "USD", "多少亿美元"), _rate("/", "7.1034"))
    assert item.value == exact(lambda: D("24015.8") / D("7.1034") / 100)
    assert item.display == "33.81"


def test_a_rate_conversion_asked_to_places_is_shown_to_them() -> None:
    item, _ = _converted(_fact("24015.8"), IN_USD, _rate("*", "0.14"), decimals=3)
    assert item.display == "3,362.212"


# -- a scale word alone: every stored digit in the unit shown, up to four places ----------------


def test_a_scale_word_keeps_the_stored_precision_in_the_unit_shown() -> None:
    assert _converted(_fact("128450.6"), IN_100M)[0].display == "1,284.506"
    assert _converted(_fact("128450.6"), UnitAsked(9, "", "in RMB billions"))[0].display == "128.4506"
    assert _converted(_fact("87402.6"), UnitAsked(4, "", "万元"))[0].display == "8,740,260.0"


def test_yuan_with_fen_in_millions_is_shown_to_two_places() -> None:
    item, text = _converted(_fact("1175301034.32", unit="CNY"), UnitAsked(6, "", "百万元"))
    assert item.value == D("1175.30103432") and item.display == "1,175.30"
    assert "存储值 1,175,301,034.32" in text  # the stored value stays exact


def test_a_computed_figure_in_another_scale_keeps_the_precision_it_was_shown_at() -> None:
    # an average shown to two places in 百万元 (117,887.90) is 1,178.879 亿元 exactly: the
    # conversion keeps its 0.01 百万元 (0.0001 亿元), never fewer places than the exact value needs
    average = Computed(
        "average",
        "平均",
        "average",
        "(A + B + C) / 3",
        "…",
        "…",
        D("117887.9"),
        "117,887.90",
        "CNY_M",
        (),
        "INTERNAL",
        2,
    )
    scaled = scaled_answer("line", "answer", [], [average], IN_100M, GLOSS, "zh")
    (item,) = scaled.computed
    assert item.value == D("1178.879") and item.display == "1,178.879"
    assert scaled.text.startswith("平均（以亿元计）：1,178.879 亿元（= 117,887.90 百万元）。")


def test_an_inexact_computed_figure_keeps_its_shown_precision_in_the_larger_unit() -> None:
    value = exact(lambda: D("353663.8") / 3)  # 117,887.9333…
    average = Computed("average", "平均", "average", "f", "f", "f", value, "117,887.93", "CNY_M", (), "INTERNAL", 2)
    (item,) = scaled_answer("", "answer", [], [average], IN_100M, GLOSS, "zh").computed
    assert item.display == "1,178.8793" and item.value == value / 100


def test_a_count_in_another_scale_keeps_its_precision() -> None:
    members = FactRecord(
        "ACTIVE_MEMBERS", "ACME_GROUP", FY2025, "TOTAL", D("5832"), "TEN_THOUSAND_PERSONS", "r.pptx", "slide=9"
    )
    (item,) = scaled_answer("", "answer", [members], [], UnitAsked(6, "", "in millions"), GLOSS, "en").computed
    assert (item.value, item.display) == (D("58.32"), "58.32")


# -- through the pipeline with a curated rate ------------------------------------------------


class OneRate:
    """An `FxRates` holding one curated average rate for FY2025."""

    def __init__(self, base: str, quote: str, rate: str) -> None:
        self.quote = FxQuote(base, quote, D(rate), "average", FY2025, "curated", date(2026, 1, 5))

    def rate(self, base: str, quote: str, period_type: str, period: str, rate_type: str) -> FxQuote | None:
        pair = {self.quote.base_currency, self.quote.quote_currency}
        wanted = (rate_type, period_type, period) == ("average", "FY", "2025")
        return self.quote if {base, quote} == pair and wanted else None


def test_the_answer_states_the_rounded_display_and_the_exact_stored_value() -> None:
    question = "香港2025年营收换算成美元是多少"
    result = answer_question(
        question,
        Ports(
            glossary=GLOSSARY,
            store=InMemoryFactStore(demo_facts()),
            provider=MockProvider(),
            parser=FixedParser(intent_for(question)),
            fx=OneRate("CNY", "USD", "0.14"),
        ),
        cleared=False,
        reference_date=REF,
    )
    converted = result.computed[-1]
    assert converted.value == D("3362.212") and converted.display == "3,362.2"
    assert "3,362.2 百万美元" in result.answer and "3,362.212" not in result.answer
    assert "存储值 24,015.8 百万元" in result.answer


# -- properties --------------------------------------------------------------------------------


def _places(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _scale_places(given: int, shift: int, exact_value: Decimal) -> int:
    """The oracle: the given places carried into the unit shown, whole up to four places, else two;
    never more places than the exact value has."""
    carried = given + max(shift, 0)
    return min(carried if carried <= 4 else RATE_DECIMALS, _places(exact_value))


_VALUES = st.decimals(min_value=-(10**9), max_value=10**9, places=3, allow_nan=False, allow_infinity=False)
_POWERS = st.sampled_from([0, 3, 4, 6, 8, 9])


@settings(max_examples=200, deadline=None)
@given(value=_VALUES, shown=_POWERS)
def test_a_scale_conversion_is_exact_and_displayed_half_up_to_the_rule(value: Decimal, shown: int) -> None:
    stored = _fact(f"{value:f}")
    done = scaled_answer("", "answer", [stored], [], UnitAsked(shown, "", "x"), GLOSS, "zh").computed
    if shown == 6:
        assert done == ()  # already in the unit asked
        return
    (item,) = done
    assert item.value == value.scaleb(6 - shown)  # exact
    assert stored.value == value  # the input is untouched
    places = _scale_places(_places(value), shown - 6, item.value)
    assert item.display == number_display(decimal_round(item.value, places))
    if _places(value) + max(shown - 6, 0) <= 4:  # every stored digit, nothing lost
        assert Decimal(item.display.replace(",", "")) == item.value


@settings(max_examples=200, deadline=None)
@given(
    value=_VALUES,
    rate=st.decimals(min_value=Decimal("0.0001"), max_value=200, places=4, allow_nan=False, allow_infinity=False),
    op=st.sampled_from(["*", "/"]),
    shown=st.sampled_from([None, 3, 4, 8, 9]),
)
def test_a_rate_conversion_is_displayed_half_up_to_at_most_two_places(
    value: Decimal, rate: Decimal, op: str, shown: int | None
) -> None:
    stored = _fact(f"{value:f}")
    item, text = _converted(stored, UnitAsked(shown, "USD", "x"), _rate(op, f"{rate:f}"))
    factor = Decimal(10) ** (6 - (6 if shown is None else shown))
    expected = exact(lambda: (value * rate if op == "*" else value / rate) * factor)
    assert item.value == expected  # the exact value, not the display
    shown_places = len(item.display.partition(".")[2])
    assert shown_places <= min(RATE_DECIMALS, _places(value) + max((shown or 6) - 6, 0))
    assert Decimal(item.display.replace(",", "")) == decimal_round(item.value, shown_places)
    assert f"存储值 {number_display(value)} 百万元" in text


# -- one rate precision: the comparison line reads as the growth answer ------------------------


def _answer(question: str, store: InMemoryFactStore | None = None) -> str:
    store = store or InMemoryFactStore(demo_facts())
    intent = intent_for(question)
    return answer_question(
        question,
        Ports(glossary=GLOSSARY, store=store, provider=MockProvider(), parser=FixedParser(intent)),
        cleared=False,
        reference_date=REF,
    ).answer


def test_the_comparison_line_shows_the_rate_as_the_growth_answer_does() -> None:
    listed = _answer("集团2024年和2025年营收对比")
    grown = _answer("集团2025年营收同比增长多少")
    assert "对比：FY2025 较 FY2024 +10,110.4 百万元（+8.54%）" in listed
    assert "同比增长 8.54%" in grown


@settings(max_examples=60, deadline=None)
@given(
    before=st.decimals(min_value=1, max_value=10**6, places=1, allow_nan=False, allow_infinity=False),
    after=st.decimals(min_value=0, max_value=10**6, places=1, allow_nan=False, allow_infinity=False),
)
def test_the_comparison_line_rate_is_the_growth_display(before: Decimal, after: Decimal) -> None:
    facts = [
        fact("REVENUE", "ACME_HK", "FY2024", f"{before:f}"),
        fact("REVENUE", "ACME_HK", "FY2025", f"{after:f}"),
    ]
    task = SubTask("REVENUE", "ACME_HK", FY2025, "TOTAL")
    growth = growth_compute(facts_lookup(facts), task)
    difference = difference_compute(
        facts_lookup(facts), task, SubTask("REVENUE", "ACME_HK", Period("FY", "2024"), "TOTAL")
    )
    assert isinstance(growth, Change) and isinstance(difference, Change)
    assert growth.rate is not None and difference.rate is not None
    assert difference.rate.display == growth.rate.display
    assert difference.rate.value == exact(lambda: (after - before) / before)  # exact, unrounded
    listed = _answer("香港2024年和2025年营收对比", InMemoryFactStore(facts))
    line = next(line for line in listed.splitlines() if line.startswith("对比："))
    rate = growth.rate.display
    assert line.endswith(f"（{rate if rate.startswith('-') else '+' + rate}）")
    shown = Decimal(rate.removesuffix("%").replace(",", ""))
    assert shown == decimal_round(growth.rate.value * 100, RATE_DECIMALS)
