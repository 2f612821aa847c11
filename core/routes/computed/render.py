"""A computed answer's lines: the result first, then its formula in words, then each input with its source.

Takes `core.engine` outcomes (`Computed`, `Change`, a refusal's `Reason`) and the facts they
were computed from; returns text. Nothing here does arithmetic: every figure is the display of
a value the engine computed from stored values, or a stored value itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from core.engine import UNIT_PCT, UNIT_PP, UNIT_RANK, Change, Computed, Reason, number_display
from core.engine.change import GAP_NO_RATE
from core.engine.display import RATE_DECIMALS
from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.period import Period
from core.routes.lookup.render import fact_line, pending_sentence
from core.routes.render import is_en, unit_suffix


def pending_input_line(task: SubTask, count: int, glossary: GlossarySnapshot, language: str) -> str:
    """A refused computation's missing input with candidates awaiting review:
    `ACME香港 FY2026 营业收入：另有 2 个候选数字正在等待审核。`"""
    subject = _subject(task, glossary, language)
    waiting = pending_sentence(count, language)
    return f"{subject}: {waiting}" if is_en(language) else f"{subject}：{waiting}"


def comparable_pair(facts: list[FactRecord]) -> tuple[FactRecord, FactRecord] | None:
    """Exactly two found facts that differ only in period, of one period type, oldest first.

    A half year against its full year (or a quarter against a half) is a part against its whole,
    not a change: FY is compared with FY, HY with HY and quarters with quarters only.
    """
    if len(facts) != 2:
        return None
    a, b = facts
    if (a.metric, a.entity, a.channel, a.unit) != (b.metric, b.entity, b.channel, b.unit) or a.period == b.period:
        return None
    if a.period.period_type != b.period.period_type:
        return None
    older, newer = sorted((a, b), key=lambda f: f.period.sort_key)
    return older, newer


def period_label(period: Period | None) -> str:
    return period.label if period else ""


# -- computed answers ----------------------------------------------------------------------


def _unsigned(text: str) -> str:
    return text.removeprefix("-")


def computed_figure(computed: Computed, glossary: GlossarySnapshot, language: str) -> str:
    """`8.54%`, `-2.2 个百分点`, `32,330.3 百万元`: the display with the unit's name."""
    shown = computed.display_text(language)
    if computed.unit in (UNIT_PCT, UNIT_PP, UNIT_RANK):
        return shown
    return shown + unit_suffix(glossary, computed.unit, language)


def formula_line(computed: Computed, language: str) -> str:
    """`公式：(营业收入 FY2025 − 营业收入 FY2024) ÷ 营业收入 FY2024`."""
    text = computed.formula_words(language)
    return f"Formula: {text}" if is_en(language) else f"公式：{text}"


def input_lines(facts: Iterable[FactRecord], glossary: GlossarySnapshot, language: str) -> list[str]:
    """Each input with its value, unit and source, under `数据：` / `Inputs:`."""
    lines = [f"· {fact_line(f, glossary, language)}" for f in dict.fromkeys(facts)]
    return ["Inputs:" if is_en(language) else "数据：", *lines] if lines else []


def _common(facts: Sequence[FactRecord], glossary: GlossarySnapshot, language: str) -> str:
    """The entity and the period every input shares, e.g. `ACME集团 FY2025`."""
    parts = []
    if len({f.entity for f in facts}) == 1:
        parts.append(glossary.display("entity", facts[0].entity, language))
    if len({f.period for f in facts}) == 1:
        parts.append(facts[0].period.label)
    return " ".join(parts)


def computed_lines(
    computed: Computed, glossary: GlossarySnapshot, language: str, *, multiple: bool = False
) -> list[str]:
    """A ratio, share, sum, CAGR or formula metric: result, formula, inputs. With `multiple`, a
    ratio shows also as a multiple of the same value (`400.24%（4.00 倍）`)."""
    head = " ".join(x for x in (_common(computed.inputs, glossary, language), computed.name(language)) if x)
    figure = computed_figure(computed, glossary, language)
    if multiple:
        times = number_display(computed.value, RATE_DECIMALS if computed.decimals is None else computed.decimals)
        figure += f" ({times}×)" if is_en(language) else f"（{times} 倍）"
    result = f"{head}: {figure}." if is_en(language) else f"{head}为 {figure}。"
    return [result, formula_line(computed, language), *input_lines(computed.inputs, glossary, language)]


def _subject(task: SubTask, glossary: GlossarySnapshot, language: str) -> str:
    """`ACME集团 FY2025 营业收入（线上）` / `ACME Group FY2025 revenue (online)`."""
    entity = glossary.display("entity", task.entity, language)
    metric = glossary.display("metric", task.metric, language)
    channel = ""
    if task.channel != "TOTAL":
        name = glossary.display("channel", task.channel, language)
        channel = f" ({name})" if is_en(language) else f"（{name}）"
    return f"{entity} {task.period.label} {metric}{channel}"


def _no_rate_note(change: Change, language: str) -> str:
    reason = change.no_rate
    if reason is None or reason.code == "percentage_points":
        return ""
    return reason.text(language)


# By language (English or not): the sentence of a change when unchanged, with a rate, in
# percentage points, and with the amount only; each verb is (rising, falling).
_CHANGE_SENTENCES = {
    True: (
        "{head} was unchanged {word}.",
        "{head} {grew} {rate} {word}, {up} {amount}.",
        "{head} {rose} {amount} {word}.",
        "{head} was {up} {amount} {word}.",
    ),
    False: (
        "{head}{word}持平。",
        "{head}{word}{grew} {rate}，{up} {amount}。",
        "{head}{word}{rose} {amount}。",
        "{head}{word}{up} {amount}。",
    ),
}
_CHANGE_VERBS = {
    True: {"grew": ("grew", "fell"), "up": ("up", "down"), "rose": ("rose", "fell")},
    False: {"grew": ("增长", "下降"), "up": ("增加", "减少"), "rose": ("上升", "下降")},
}
# By language: the sentence of a difference between two items when they are the same, in
# percentage points, and in amount, then the rate that may follow the amount.
_GAP_SENTENCES = {
    True: (
        "{head} was the same as {other}.",
        "{head} was {amount} {higher} than {other}.",
        "{head} was {amount} {more} than {other}{relative}.",
        " ({rate} {higher})",
    ),
    False: (
        "{head}与{other}相同。",
        "{head}比{other}{higher} {amount}。",
        "{head}比{other}{more} {amount}{relative}。",
        "，{higher} {rate}",
    ),
}
_GAP_VERBS = {
    True: {"higher": ("higher", "lower"), "more": ("more", "less")},
    False: {"higher": ("高", "低"), "more": ("多", "少")},
}


def _worded(template: str, verbs: dict[str, tuple[str, str]], sign: Decimal, **values: str) -> str:
    """`template` filled with `values` and each verb in its rising or falling form."""
    return template.format(**{key: pair[0 if sign > 0 else 1] for key, pair in verbs.items()}, **values)


def change_lines(
    change: Change,
    words: tuple[str, str],
    glossary: GlossarySnapshot,
    language: str,
    *,
    change_only: bool = False,
) -> list[str]:
    """`ACME集团 FY2025 营业收入同比增长 8.54%，增加 10,110.4 百万元。`, then formula and inputs.

    A percentage moves in percentage points; a zero or negative base gives the change and a
    plain sentence that the rate is not meaningful, never a rate.
    """
    amount_item = change.change
    rate = None if change_only else change.rate
    subject = amount_item.subject
    assert subject is not None
    head = _subject(subject, glossary, language)
    amount = _unsigned(computed_figure(amount_item, glossary, language))
    sign = amount_item.value.compare(Decimal(0))
    note = "" if change_only else _no_rate_note(change, language)
    en = is_en(language)
    unchanged, rated, in_points, plain = _CHANGE_SENTENCES[en]
    template = (
        unchanged if sign == 0 else rated if rate is not None else in_points if amount_item.unit == UNIT_PP else plain
    )
    shown_rate = _unsigned(rate.display) if rate is not None else ""
    result = _worded(
        template, _CHANGE_VERBS[en], sign, head=head, word=words[1 if en else 0], rate=shown_rate, amount=amount
    )
    if note:
        result += f" {note}" if en else note
    formula = formula_line(rate if rate is not None else amount_item, language)
    return [result, formula, *input_lines(amount_item.inputs, glossary, language)]


def gap_lines(change: Change, other: tuple[str, str], glossary: GlossarySnapshot, language: str) -> list[str]:
    """A difference between two listed items, first minus second: `ACME香港 FY2025 营业收入比
    ACME东南亚多 15,701.3 百万元，高 188.84%。`, then formula and inputs. A percentage differs in
    percentage points; a zero or negative second item gives the difference and no rate."""
    amount_item, rate = change.change, change.rate
    assert amount_item.subject is not None
    head = _subject(amount_item.subject, glossary, language)
    amount = _unsigned(computed_figure(amount_item, glossary, language))
    sign = amount_item.value.compare(Decimal(0))
    points = amount_item.unit == UNIT_PP
    note = ""
    if change.no_rate is not None and change.no_rate.code != "percentage_points":
        fixed = GAP_NO_RATE.get(change.no_rate.code)
        note = fixed[1 if is_en(language) else 0] if fixed else change.no_rate.text(language)
    en = is_en(language)
    same, in_points, plain, relative = _GAP_SENTENCES[en]
    template = same if sign == 0 else in_points if points else plain
    verbs = _GAP_VERBS[en]
    shown_rate = _worded(relative, verbs, sign, rate=_unsigned(rate.display)) if rate is not None else ""
    result = _worded(template, verbs, sign, head=head, other=other[1 if en else 0], amount=amount, relative=shown_rate)
    if note:
        result += f" {note}" if en else note
    formula = formula_line(rate if rate is not None else amount_item, language)
    return [result, formula, *input_lines(amount_item.inputs, glossary, language)]


def difference_line(change: Change, glossary: GlossarySnapshot, language: str) -> str:
    """`对比：FY2025 较 FY2024 +10,110.4 百万元（+8.54%）`, the rate as every rate reads (the engine's
    display, `RATE_DECIMALS` places unless asked); PCT metrics in percentage points, and
    no rate on a zero or negative base."""
    amount = change.change
    assert amount.subject is not None
    newer = amount.subject.period
    older = next(f.period for f in amount.inputs if f.period != newer)
    figure = computed_figure(amount, glossary, language)
    signed = figure if figure.startswith("-") else f"+{figure}"
    if change.rate is not None:
        rate = change.rate.display
        relative = rate if rate.startswith("-") else f"+{rate}"
    else:
        relative = _no_rate_note(change, language).rstrip("。.")
    if relative:
        relative = f" ({relative})" if is_en(language) else f"（{relative}）"
    if is_en(language):
        return f"Change: {newer.label} vs {older.label} {signed}{relative}"
    return f"对比：{newer.label} 较 {older.label} {signed}{relative}"


def cannot_compute_line(asked: tuple[str, str], reason: Reason, language: str) -> str:
    """`无法计算：ACME东南亚 FY2025 净利率。缺少计算所需的数据：…` (the reason names what is missing)."""
    if is_en(language):
        return f"Cannot compute {asked[1]}: {reason.en}" if asked[1] else f"Cannot compute: {reason.en}"
    return f"无法计算：{asked[0]}。{reason.zh}" if asked[0] else f"无法计算：{reason.zh}"
