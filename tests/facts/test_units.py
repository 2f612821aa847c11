"""Units that carry currency and scale get readable names on first use, and `AS_PRINTED` exists."""

from __future__ import annotations

import pytest

from facts.models import Unit
from facts.services import KNOWN_UNITS, unit_ensure, unit_names


@pytest.mark.parametrize(
    ("code", "zh", "en"),
    [
        ("USD_K", "千美元", "USD k"),
        ("EUR_M", "百万欧元", "EUR m"),
        ("TWD_K", "千新台币", "TWD k"),
        ("CNY_10K", "万元", "CNY 10k"),
        ("CNY_100M", "亿元", "CNY 100m"),
        ("GBP_B", "十亿英镑", "GBP bn"),
        ("JPY", "日元", "JPY"),
        ("XYZ_M", "百万XYZ", "XYZ m"),
        ("AMT", "（币种未注明）", "(currency not stated)"),
        ("AMT_K", "千（币种未注明）", "k (currency not stated)"),
        ("AMT_M", "百万（币种未注明）", "m (currency not stated)"),
        ("AMT_B", "十亿（币种未注明）", "bn (currency not stated)"),
        ("AS_PRINTED", "按原表", "as printed"),
        ("PCT", "%", "%"),
        ("COUNT", "", ""),
        ("STORES", "STORES", "STORES"),
        ("USD_X", "USD_X", "USD_X"),
        ("AMT_10K", "万（币种未注明）", "10k (currency not stated)"),
        ("AMT_X", "AMT_X", "AMT_X"),
    ],
)
def test_a_unit_code_of_the_extractors_grammar_has_readable_names(code: str, zh: str, en: str) -> None:
    assert unit_names(code) == (zh, en)


@pytest.mark.parametrize("code", ["CNY_M", "CNY", "USD_M", "HKD_M"])
def test_the_grammar_names_the_seeded_currency_units_as_they_were_seeded(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded = KNOWN_UNITS[code]
    monkeypatch.delitem(KNOWN_UNITS, code)
    assert unit_names(code) == seeded


@pytest.mark.django_db
def test_a_unit_is_created_with_its_names_on_first_use_and_as_printed_is_seeded() -> None:
    unit = unit_ensure("USD_K")
    assert (unit.name_zh, unit.name_en) == ("千美元", "USD k")
    amount = unit_ensure("AMT_M")
    assert (amount.name_zh, amount.name_en) == ("百万（币种未注明）", "m (currency not stated)")
    assert Unit.objects.values_list("name_zh", "name_en").get(code="AS_PRINTED") == ("按原表", "as printed")
    assert unit_ensure("USD_K").pk == unit.pk
