"""Answer text, rendered only from fact rows, the engine's results and fixed templates.

Takes fact records, tool results and `core.engine` outcomes; returns text. Nothing here reads
model prose or does arithmetic, so every figure in a structured answer is a stored value or
the display of a value the engine computed from stored values. A computed answer states the
result first, then its formula in words, then each input with its source.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from core.engine import UNIT_PCT, UNIT_PP, UNIT_RANK, Change, Computed, Ranking, Reason, number_display
from core.engine.build import subject_names
from core.engine.change import GAP_NO_RATE
from core.engine.display import RATE_DECIMALS, decimal_round
from core.glossary import GlossarySnapshot
from core.model.types import FactRecord, Period, SubTask

DEGRADED_STRUCTURED = {
    "zh": "AI 服务暂时不可用，未能完成本次查询，请稍后再试。",
    "en": "The AI service is temporarily unavailable, so this query could not be completed. Please try again later.",
}
DEGRADED_NARRATIVE = {
    "zh": "AI 服务暂时不可用，未能生成归因，请稍后再试。",
    "en": "The AI service is temporarily unavailable, so no explanation could be generated. Please try again later.",
}
NARRATIVE_NOT_WIRED = {
    "zh": "叙事检索通路尚未接入，暂时无法基于文档回答此类问题。",
    "en": "The document channel is not connected yet, so questions like this cannot be answered from documents.",
}
NARRATIVE_NO_HITS = {
    "zh": "未检索到与该问题相关的资料，无法基于现有知识库作答。",
    "en": "No relevant material was found, so this cannot be answered from the knowledge base.",
}
ATTRIBUTION_HEADING = {"zh": "归因分析：", "en": "Explanation:"}
# Before a quoted sentence about another entity than the one asked, shown only when the sources
# hold nothing about the asked one. It names an entity and never states a figure.
ABOUT_ENTITY = {"zh": "（关于{name}：）", "en": "(About {name}:) "}
NAMES_JOINED = {"zh": "、", "en": ", "}
WHICH_METRIC = {
    "zh": "请问要计算哪个指标？请在问题中写明指标（例如营业收入）。",
    "en": "Which metric should be computed? Please name it in the question (e.g. revenue).",
}


def value_format(value: Decimal) -> str:
    """Exact decimal with thousands separators, the stored precision, never an exponent."""
    return f"{value:,f}"


def _signed(value: Decimal) -> str:
    text = value_format(value)
    return text if text.startswith("-") else f"+{text}"


def unit_suffix(glossary: GlossarySnapshot, unit: str, language: str) -> str:
    shown = glossary.unit_display(unit, language)
    if not shown:
        return ""
    return shown if shown in ("%", "‰") else f" {shown}"


def fact_line(fact: FactRecord, glossary: GlossarySnapshot, language: str, decimals: int | None = None) -> str:
    """A stored fact's line; with `decimals`, its value shown rounded half-up to that many places
    as the question asked, saying so and giving the stored value beside it (the fact is unchanged)."""
    entity = glossary.display("entity", fact.entity, language)
    metric = glossary.display("metric", fact.metric, language)
    unit = unit_suffix(glossary, fact.unit, language)
    value = value_format(fact.value) + unit
    if decimals is not None and decimal_round(fact.value, decimals) != fact.value:
        value = number_display(fact.value, decimals) + unit + _rounded_note(value, decimals, language)
    elif decimals is not None:
        value = number_display(fact.value, decimals) + unit
    channel = ""
    if fact.channel != "TOTAL":
        name = glossary.display("channel", fact.channel, language)
        channel = f" ({name})" if language == "en" else f"（{name}）"
    if language == "en":
        as_of = f" · as of {fact.valid_as_of.isoformat()}" if fact.valid_as_of else ""
        source = f"source: {fact.source_doc} · {fact.locator}{as_of}"
        return f"{entity} {fact.period.label} {metric}{channel}: {value} ({source})"
    as_of = f" · 截至 {fact.valid_as_of.isoformat()}" if fact.valid_as_of else ""
    return f"{entity} {fact.period.label} {metric}{channel}：{value}（来源：{fact.source_doc} · {fact.locator}{as_of}）"


def _rounded_note(exact: str, decimals: int, language: str) -> str:
    if language == "en":
        to = "a whole number" if decimals == 0 else f"{decimals} decimal place{'s' if decimals > 1 else ''}"
        return f" (rounded to {to}; stored value {exact})"
    to = "整数" if decimals == 0 else f" {decimals} 位小数"
    return f"（已四舍五入至{to}；原值 {exact}）"


def pending_sentence(count: int, language: str) -> str:
    """That `count` candidate figures wait for curator review, none of them shown ("" for none)."""
    if count <= 0:
        return ""
    if language == "en":
        if count == 1:
            return "Another 1 candidate figure is waiting for curator review."
        return f"Another {count:,} candidate figures are waiting for curator review."
    return f"另有 {count:,} 个候选数字正在等待审核。"


def not_found_line(task: SubTask, glossary: GlossarySnapshot, language: str, pending: int = 0) -> str:
    """`查不到：…`; with `pending`, how many candidates for the key await review (never their values)."""
    metric = glossary.display("metric", task.metric, language)
    entity = glossary.display("entity", task.entity, language)
    channel = glossary.display("channel", task.channel, language)
    waiting = pending_sentence(pending, language)
    if language == "en":
        return (
            f"Not found: {metric} / {entity} / {task.period.label} (channel {channel}) is not in the fact table. "
            + (f"{waiting} " if waiting else "")
            + "To avoid misleading you, no estimated figure is given; try another period or entity."
        )
    return (
        f"查不到：{metric} / {entity} / {task.period.label}（渠道 {channel}）未在事实表中找到。{waiting}"
        "为避免误导，不提供任何推测数字；可尝试调整期间或实体后重问。"
    )


def pending_input_line(task: SubTask, count: int, glossary: GlossarySnapshot, language: str) -> str:
    """A refused computation's missing input with candidates awaiting review:
    `ACME香港 FY2026 营业收入：另有 2 个候选数字正在等待审核。`"""
    subject = _subject(task, glossary, language)
    waiting = pending_sentence(count, language)
    return f"{subject}: {waiting}" if _is_en(language) else f"{subject}：{waiting}"


def unrecognized_line(result: dict[str, Any], language: str) -> str:
    raw = str(result.get("raw", ""))[:32]
    param = result.get("param", "")
    if language == "en":
        return (
            f"Unrecognised parameter {param}: '{raw}'. "
            "Please check how the metric, entity or period is named and try again."
        )
    return f"无法识别参数 {param}：'{raw}'。请确认指标/实体/期间的说法后重试。"


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
_SYMBOLS = ((" - ", " − "), (" / ", " ÷ "), (" * ", " × "))


def _is_en(language: str) -> bool:
    return language == "en"


def _unsigned(text: str) -> str:
    return text.removeprefix("-")


def computed_figure(computed: Computed, glossary: GlossarySnapshot, language: str) -> str:
    """`8.54%`, `-2.2 个百分点`, `32,330.3 百万元`: the display with the unit's name."""
    shown = computed.display_text(language)
    if computed.unit in (UNIT_PCT, UNIT_PP, UNIT_RANK):
        return shown
    return shown + unit_suffix(glossary, computed.unit, language)


def formula_line(computed: Computed, language: str) -> str:
    """`公式：(营业收入[FY2025] − 营业收入[FY2024]) ÷ 营业收入[FY2024]`."""
    text = computed.formula_words(language)
    for plain, symbol in _SYMBOLS:
        text = text.replace(plain, symbol)
    return f"Formula: {text}" if _is_en(language) else f"公式：{text}"


def input_lines(facts: Iterable[FactRecord], glossary: GlossarySnapshot, language: str) -> list[str]:
    """Each input with its value, unit and source, under `数据：` / `Inputs:`."""
    lines = [f"· {fact_line(f, glossary, language)}" for f in dict.fromkeys(facts)]
    return ["Inputs:" if _is_en(language) else "数据：", *lines] if lines else []


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
        figure += f" ({times}×)" if _is_en(language) else f"（{times} 倍）"
    result = f"{head}: {figure}." if _is_en(language) else f"{head}为 {figure}。"
    return [result, formula_line(computed, language), *input_lines(computed.inputs, glossary, language)]


def _subject(task: SubTask, glossary: GlossarySnapshot, language: str) -> str:
    """`ACME集团 FY2025 营业收入（线上）` / `ACME Group FY2025 revenue (online)`."""
    entity = glossary.display("entity", task.entity, language)
    metric = glossary.display("metric", task.metric, language)
    channel = ""
    if task.channel != "TOTAL":
        name = glossary.display("channel", task.channel, language)
        channel = f" ({name})" if _is_en(language) else f"（{name}）"
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
    en = _is_en(language)
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
        note = fixed[1 if _is_en(language) else 0] if fixed else change.no_rate.text(language)
    en = _is_en(language)
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
    """`对比：FY2025 较 FY2024 +10,110.4 百万元（+8.5%）`; PCT metrics in percentage points, and
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
        relative = f" ({relative})" if _is_en(language) else f"（{relative}）"
    if _is_en(language):
        return f"Change: {newer.label} vs {older.label} {signed}{relative}"
    return f"对比：{newer.label} 较 {older.label} {signed}{relative}"


def _names(tasks: Sequence[SubTask], glossary: GlossarySnapshot, language: str) -> list[str]:
    """What tells the ranked subjects apart: entity, channel and/or period."""
    return subject_names(tasks, glossary.display, language)


def _ranked_over(tasks: Sequence[SubTask], glossary: GlossarySnapshot, language: str) -> str:
    """What every ranked subject shares: `FY2025 营业收入`, `ACME中国内地 FY2025 营业收入`."""
    first = tasks[0]
    parts = []
    if len({t.entity for t in tasks}) == 1:
        parts.append(glossary.display("entity", first.entity, language))
    if len({t.period for t in tasks}) == 1:
        parts.append(first.period.label)
    metric = glossary.display("metric", first.metric, language)
    if len({t.channel for t in tasks}) == 1 and first.channel != "TOTAL":
        name = glossary.display("channel", first.channel, language)
        metric += f" ({name})" if _is_en(language) else f"（{name}）"
    return " ".join([*parts, metric])


def _row_figure(display: str, unit: str, glossary: GlossarySnapshot, language: str) -> str:
    return display if display.endswith("%") else display + unit_suffix(glossary, unit, language)


MISSING_NAMED = 10  # keys without a figure named one by one; the rest are counted


def _coverage(ranking: Ranking) -> tuple[int, int]:
    """How many items have the figure, and how many were asked (with or without it)."""
    count = ranking.count or len({(f.entity, f.period, f.channel) for f in ranking.inputs})
    return count, count + len(ranking.missing) + len(ranking.not_meaningful)


def ranking_lines(
    ranking: Ranking, glossary: GlossarySnapshot, language: str, *, position: int | None = None
) -> list[str]:
    """The headline (the leader, or the place `position` asked about: 排名第二), then one line per
    row in rank order (ties marked), then the subjects without the figure (listed as missing,
    never dropped), the order rule and the inputs.

    When some items have no figure, the answer first says how many have it and ranks among
    those only (`在有数据的 2 项中…`); a top N beyond them says how many there are."""
    en = _is_en(language)
    subjects = [r.subject for r in ranking.rows] + list(ranking.missing) + list(ranking.not_meaningful)
    # a key cut by a top N still says what the ranked subjects differ in (one row is no list)
    metric = ranking.rows[0].subject.metric if ranking.rows else None
    cut = (SubTask(metric, f.entity, f.period, f.channel) for f in ranking.inputs) if metric else iter(())
    listed = set(subjects)
    outside = next((key for key in cut if key not in listed), None)
    field = [*subjects, outside] if outside is not None else subjects
    names = dict(zip(field, _names(field, glossary, language), strict=True))
    over = _ranked_over(field, glossary, language) if field else ""
    if not ranking.ranked:
        return _lone_lines(ranking, names, over, glossary, language)
    desc = ranking.order == "desc"
    count, total = _coverage(ranking)
    partial = total > count
    lines = []
    if partial:
        lines.append(
            f"{over}: {count:,} of {total:,} items have the figure."
            if en
            else f"{over}：{total:,} 项中有 {count:,} 项有该数据。"
        )
    among = (f" among the {count:,} items with the figure" if en else f"在有数据的 {count:,} 项中，") if partial else ""
    if position is not None and position > 1:
        lines.append(_place_line(ranking, position, names, over, glossary, language, among=among))
    elif leaders := [r for r in ranking.rows if r.rank == 1]:
        figure = _row_figure(leaders[0].display, leaders[0].unit, glossary, language)
        tied = len(leaders) > 1
        who = ", ".join(names[r.subject] for r in leaders) if en else "、".join(names[r.subject] for r in leaders)
        if en:
            lead = ("Tied " if tied else "") + ("highest" if desc else "lowest")
            lines.append(f"{lead[0].upper()}{lead[1:]} {over}{among}: {who} ({figure}).")
        else:
            lines.append(f"{among}{over}{'并列' if tied else ''}{'最高' if desc else '最低'}的是 {who}（{figure}）。")
    top = ranking.top
    if en:
        short = f"; only {count:,} items have the figure" if top and top > count else ""
        lines.append(f"Ranking ({'highest' if desc else 'lowest'} first{f', top {top}' if top else ''}{short}):")
    else:
        short = f"；有数据的只有 {count:,} 项" if top and top > count else ""
        lines.append(f"排名（{'从高到低' if desc else '从低到高'}{f'，前 {top} 名' if top else ''}{short}）：")
    for row in ranking.rows:
        mark = (" (tied)" if en else "（并列）") if row.tied else ""
        lines.append(f"{row.rank}. {names[row.subject]} {_row_figure(row.display, row.unit, glossary, language)}{mark}")
    lines += _unranked_lines(ranking, names, language, ranked=True)
    way = ("highest first" if desc else "lowest first") if en else ("从高到低" if desc else "从低到高")
    lines.append(
        f"Formula: {over}, {way} ({count:,} ranked)" if en else f"公式：按 {over} {way}排序（{count:,} 项参与排名）"
    )
    shown_inputs = [f for row in ranking.rows for f in row.inputs]
    return [*lines, *input_lines(shown_inputs, glossary, language)]


def _lone_lines(
    ranking: Ranking, names: dict[SubTask, str], over: str, glossary: GlossarySnapshot, language: str
) -> list[str]:
    """A field with one figure has no order: how many items have the figure, that figure as a
    plain value with its source (or its formula and inputs), and the items without it."""
    en = _is_en(language)
    _, total = _coverage(ranking)
    if total < 2:
        lines = [f"{over}: there is only 1 item, so there is no ranking." if en else f"{over}：只有 1 项，无法排名。"]
    elif en:
        lines = [f"{over}: only 1 of {total:,} items has the figure, so there is no ranking."]
    else:
        lines = [f"{over}：{total:,} 项中只有 1 项有该数据，无法排名。"]
    if ranking.computed:
        lines += computed_lines(ranking.computed[0], glossary, language)
    else:
        lines += [fact_line(f, glossary, language) for row in ranking.rows for f in row.inputs]
    return lines + _unranked_lines(ranking, names, language, ranked=False)


def _unranked_lines(ranking: Ranking, names: dict[SubTask, str], language: str, *, ranked: bool) -> list[str]:
    """The items without the figure (named, the rest past `MISSING_NAMED` counted) and those
    whose figure is undefined: listed, never dropped."""
    en = _is_en(language)
    sep = ", " if en else "、"
    lines = []
    if ranking.missing:
        shown = sep.join(names[t] for t in ranking.missing[:MISSING_NAMED])
        more = len(ranking.missing) - MISSING_NAMED
        if more > 0:
            shown += f" and {more:,} more" if en else f" 等 {len(ranking.missing):,} 项"
        note = ("; not ranked" if en else "，未参与排名") if ranked else ""
        lines.append(f"Not found: {shown} (no figure{note})" if en else f"未找到：{shown}（无该数据{note}）")
    if ranking.not_meaningful:
        shown = sep.join(names[t] for t in ranking.not_meaningful)
        note = ("; not ranked" if en else "，未参与排名") if ranked else ""
        lines.append(f"Not meaningful: {shown} (a zero divisor{note})" if en else f"无意义：{shown}（分母为 0{note}）")
    return lines


def _place_line(
    ranking: Ranking,
    position: int,
    names: dict[SubTask, str],
    over: str,
    glossary: GlossarySnapshot,
    language: str,
    *,
    among: str = "",
) -> str:
    """`FY2025 营业收入从高到低排第 2 的是 ACME香港（…）。`: the row in that place in the order, with
    every row tied with it; or that the ranking has no such place. `among` qualifies the place
    when only some items have the figure (`在有数据的 2 项中，`)."""
    en = _is_en(language)
    desc = ranking.order == "desc"
    if position > len(ranking.rows):
        count = ranking.count or len(ranking.rows)
        if position > count:
            if en:
                return f"{over}: only {count:,} ranked, so there is no No. {position:,}."
            return f"{over}只有 {count:,} 项参与排名，没有第 {position:,} 名。"
        if en:
            return f"{over}: No. {position:,} is not among the rows listed."
        return f"{over}第 {position:,} 名不在所列的排名之内。"
    rank = ranking.rows[position - 1].rank
    placed = [r for r in ranking.rows if r.rank == rank]
    figure = _row_figure(placed[0].display, placed[0].unit, glossary, language)
    tied = len(placed) > 1
    if en:
        who = ", ".join(names[r.subject] for r in placed)
        way = "highest first" if desc else "lowest first"
        tie = f", tied at No. {rank}" if tied else ""
        return f"No. {position:,} {over} ({way}{',' if among else ''}{among}): {who} ({figure}{tie})."
    who = "、".join(names[r.subject] for r in placed)
    way = "从高到低" if desc else "从低到高"
    tie = f"（并列第 {rank} 名）" if tied else ""
    return f"{among}{over}{way}排第 {position:,} 的是 {who}（{figure}）{tie}。"


def cannot_compute_line(asked: tuple[str, str], reason: Reason, language: str) -> str:
    """`无法计算：ACME东南亚 FY2025 净利率。缺少计算所需的数据：…` (the reason names what is missing)."""
    if _is_en(language):
        return f"Cannot compute {asked[1]}: {reason.en}" if asked[1] else f"Cannot compute: {reason.en}"
    return f"无法计算：{asked[0]}。{reason.zh}" if asked[0] else f"无法计算：{reason.zh}"
