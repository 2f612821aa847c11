"""A why's lines: each split of the change over its parts, the note that only parts the user
may see are shown, and a word when the question says the figure moved the other way.

Takes the engine's `Decomposition` and the glossary; returns text. The rows are the engine's;
nothing here computes a figure, only checks that the rounded displays add up.
"""

from __future__ import annotations

import re
from decimal import Decimal

from core.engine import Computed
from core.engine.why.decomposition import Decomposition
from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.facts import SubTask
from core.routes.computed.render import computed_figure
from core.routes.render import is_en

# Which way the question says the figure moved, to say so when it moved the other way.
_DOWN = re.compile(r"下降|下滑|下跌|跌|减少|萎缩|(?<![a-z])(?:declin\w*|fall\w*|fell|drop\w*|down|decreas\w*|shrank)")
_UP = re.compile(r"上升|上涨|涨|增长|增加|提升|(?<![a-z])(?:ris(?:e|es|ing)|rose|grow\w*|grew|up|increas\w*)(?![a-z])")


_DIMENSION_WORDS = {
    "channel": ("按渠道", "By channel"),
    "entity": ("按下属公司/地区", "By subsidiary or region"),
    "quarter": ("按季度", "By quarter"),
}


def _signed(computed: Computed, glossary: GlossarySnapshot, language: str) -> str:
    shown = computed_figure(computed, glossary, language)
    return shown if shown.startswith("-") or computed.value.is_zero() else f"+{shown}"


def _part_name(row_part: SubTask | None, whole: SubTask, glossary: GlossarySnapshot, language: str) -> str:
    assert row_part is not None
    if row_part.channel != whole.channel:
        return glossary.display("channel", row_part.channel, language)
    if row_part.entity != whole.entity:
        return glossary.display("entity", row_part.entity, language)
    return row_part.period.label


def decomposition_lines(d: Decomposition, glossary: GlossarySnapshot, language: str) -> list[str]:
    en = is_en(language)
    title = _DIMENSION_WORDS[d.dimension][1 if en else 0]
    lines: list[str] = []
    if d.effects:
        weight = glossary.display("metric", d.weight_metric, language)
        lines.append(
            f"{title}, rate and mix effects (weights: each part's share of {weight}):"
            if en
            else f"{title}拆分为率效应与结构效应（权重：各部分{weight}占比）："
        )
        for e in d.effects:
            name = _part_name(e.part, d.whole, glossary, language)
            rate, mix, total = (_signed(c, glossary, language) for c in (e.rate, e.mix, e.total))
            lines.append(
                f"· {name}: rate effect {rate}, mix effect {mix}, together {total}"
                if en
                else f"· {name}：率效应 {rate}，结构效应 {mix}，合计 {total}"
            )
        if d.unallocated is not None:
            left = _signed(d.unallocated, glossary, language)
            lines.append(f"· not in the parts above: {left}" if en else f"· 未归入以上部分：{left}")
        shown = [_number(c.display) for e in d.effects for c in (e.total,)]
        shown += [_number(d.unallocated.display)] if d.unallocated is not None else []
        pairs_add = all(_number(e.rate.display) + _number(e.mix.display) == _number(e.total.display) for e in d.effects)
        if sum(shown) != _number(d.change.display) or not pairs_add:
            lines.append(_ROUNDED[1 if en else 0])
        lines.append(
            "Formula: rate effect = prior-year weight × (rate now − rate before); "
            "mix effect = rate now × (weight now − weight before)"
            if en
            else "公式：率效应 = 上期权重 × (本期比率 − 上期比率)；结构效应 = 本期比率 × (本期权重 − 上期权重)"
        )
        return lines
    lines.append(
        f"{title} (the rows add up to the change exactly):" if en else f"{title}拆分（各行合计恰等于总变动）："
    )
    for row in d.rows:
        if row.part is not None:
            name = _part_name(row.part, d.whole, glossary, language)
        elif row.parts:
            name = f"{row.parts:,} other parts" if en else f"其余 {row.parts:,} 个部分"
            if row.unallocated:
                name += " (and change in no part)" if en else "（含未归入部分）"
        else:
            name = "not in the parts above" if en else "未归入以上部分"
        share = ""
        if row.share is not None:
            share = f", {row.share.display} of the change" if en else f"，占总变动 {row.share.display}"
        colon = ": " if en else "："
        lines.append(f"· {name}{colon}{_signed(row.change, glossary, language)}{share}")
    shares = [_number(row.share.display) for row in d.rows if row.share is not None]
    if shares and sum(shares) != 100:
        lines.append(_ROUNDED[1 if en else 0])
    lines.append(
        "Formula: a part's change = its figure now − its figure before; share = the part's change ÷ the total change"
        if en
        else "公式：部分变动 = 本期数 − 比较期数；占比 = 部分变动 ÷ 总变动"
    )
    return lines


_ROUNDED = (
    "（各项为四舍五入后的显示值，其和与合计可能略有出入；精确值之和恰等于总变动。）",
    "(Figures are rounded for display and may not add up exactly; the exact values do.)",
)


def _number(display: str) -> Decimal:
    """A display's number (`-0.31 pp`, `151.9%`, `-1.26 个百分点`) as a decimal."""
    found = re.search(r"-?[\d,]+(?:\.\d+)?", display)
    return Decimal(found.group(0).replace(",", "")) if found else Decimal(0)


def visible_note(language: str) -> str:
    return (
        "The split below uses only the figures in the fact table that you may see."
        if is_en(language)
        else "以下拆分只含事实库中您有权查看的数据。"
    )


def direction_note(question: str, change: Decimal, language: str) -> list[str]:
    """A word when the question says the figure fell and it rose, or the other way round."""
    text = text_normalize(question)
    down, up = _DOWN.search(text), _UP.search(text)
    if change > 0 and down and not up:
        return ["Note: the figure rose; it did not fall." if is_en(language) else "注意：该数字实际为上升，并非下降。"]
    if change < 0 and up and not down:
        return ["Note: the figure fell; it did not rise." if is_en(language) else "注意：该数字实际为下降，并非上升。"]
    return []
