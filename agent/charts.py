"""A small server-side SVG bar chart for answers that span several periods or entities (no JS, no CDN)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

WIDTH, HEIGHT, PAD = 560, 200, 28


def chart_bars(facts: list[dict[str, Any]], glossary: Any) -> dict[str, Any] | None:
    """Bars for one metric over several periods or entities; None when a chart would not help."""
    if len(facts) < 2 or len({f["metric"] for f in facts}) != 1 or len({f["unit"] for f in facts}) != 1:
        return None
    periods = {f["period"] for f in facts}
    entities = {f["entity"] for f in facts}
    if len(periods) < 2 and len(entities) < 2:
        return None
    by_period = len(periods) >= 2
    ordered = sorted(facts, key=lambda f: f["period"]) if by_period else facts
    values = [Decimal(f["value"]) for f in ordered]
    top = max(max(values), Decimal(0))
    bottom = min(min(values), Decimal(0))
    span = (top - bottom) or Decimal(1)
    plot = HEIGHT - 2 * PAD
    zero_y = PAD + float(top / span) * plot
    slot = (WIDTH - 2 * PAD) / len(ordered)
    bars = []
    for index, (fact, value) in enumerate(zip(ordered, values, strict=True)):
        height = float(abs(value) / span) * plot
        y = zero_y - height if value >= 0 else zero_y
        label = fact["period"] if by_period else glossary.display("entity", fact["entity"], "zh")
        bars.append(
            {
                "x": round(PAD + index * slot + slot * 0.15, 1),
                "width": round(slot * 0.7, 1),
                "y": round(y, 1),
                "height": round(max(height, 1.0), 1),
                "label": label,
                "label_x": round(PAD + index * slot + slot / 2, 1),
                "value": f"{value:,f}",
                "value_y": round(y - 4 if value >= 0 else y + height + 12, 1),
                "negative": value < 0,
            }
        )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "zero_y": round(zero_y, 1),
        "bars": bars,
        "pad": PAD,
        "right": WIDTH - PAD,
        "label_y": HEIGHT - 6,
        "title": glossary.display("metric", ordered[0]["metric"], "zh"),
    }


# -- ranking: horizontal bars, one per ranked row, in rank order -------------------------------
RANK_ROW, RANK_TOP, RANK_BOTTOM = 28, 6, 6
RANK_NUMBER = 34  # the column of rank numbers
RANK_GAP = 12  # between a rank number, its label and the plot
RANK_LABEL_MIN, RANK_LABEL_MAX = 56, 150
# The bars' room. The chart is only as wide as its columns need and scales down on a phone,
# where a wider one would shrink its text below reading size.
RANK_PLOT = 140
RANK_FONT = 14
MAX_RANK_BARS = 30


def text_width(text: str, size: int = RANK_FONT) -> float:
    """About how wide `text` sets in the chart's font, erring wide: a CJK character is one em."""
    return sum(size if ord(ch) >= 0x2E80 else size * 0.68 for ch in text)


def _text_fit(text: str, width: float) -> str:
    if text_width(text) <= width:
        return text
    while text and text_width(text + "…") > width:
        text = text[:-1]
    return text + "…"


def chart_ranking(rows: list[dict[str, Any]], *, tie_mark: str) -> dict[str, Any] | None:
    """One horizontal bar per ranked row, in the order given (the rank order), sized by `value`.

    Each row gives `rank`, `label`, `value` (the `Decimal` ranked), `display` (its text as the
    engine wrote it) and `tied`. Bars grow from a zero line, so a negative figure draws left of
    it; every value is written right of its bar or of the zero line, and a tied row's value
    carries `tie_mark`. At most `MAX_RANK_BARS` rows are drawn; `omitted`
    says how many more there are. None when there is nothing to draw.
    """
    if not rows:
        return None
    drawn = rows[:MAX_RANK_BARS]
    values = [Decimal(r["value"]) for r in drawn]
    texts = [f"{r['display']} · {tie_mark}" if r["tied"] else r["display"] for r in drawn]
    label_width = min(max(max(text_width(r["label"]) for r in drawn) + RANK_GAP, RANK_LABEL_MIN), RANK_LABEL_MAX)
    value_room = max(text_width(t) for t in texts) + 8
    top = max(max(values), Decimal(0))
    bottom = min(min(values), Decimal(0))
    span = (top - bottom) or Decimal(1)
    plot_left = RANK_NUMBER + label_width + 4
    width = round(plot_left + RANK_PLOT + value_room)
    scale = RANK_PLOT / float(span)
    zero_x = plot_left + float(-bottom) * scale
    bars = []
    for index, (row, value, text) in enumerate(zip(drawn, values, texts, strict=True)):
        length = max(float(abs(value)) * scale, 1.0)
        x = zero_x if value >= 0 else zero_x - length
        y = RANK_TOP + index * RANK_ROW
        bars.append(
            {
                "rank": row["rank"],
                "tied": row["tied"],
                "negative": value < 0,
                "x": round(x, 1),
                "y": round(y + 5, 1),
                "width": round(length, 1),
                "height": RANK_ROW - 10,
                "text_y": round(y + RANK_ROW / 2 + RANK_FONT * 0.35, 1),
                "rank_x": RANK_NUMBER - RANK_GAP / 2,
                "label": _text_fit(row["label"], label_width - RANK_GAP),
                "full_label": row["label"],
                "label_x": round(RANK_NUMBER + label_width - RANK_GAP / 2, 1),
                "value": text,
                "value_x": round(x + length + 4 if value >= 0 else zero_x + 4, 1),
            }
        )
    height = RANK_TOP + len(drawn) * RANK_ROW + RANK_BOTTOM
    return {
        "width": width,
        "height": height,
        "zero_x": round(zero_x, 1),
        "axis_top": RANK_TOP,
        "axis_bottom": height - RANK_BOTTOM,
        "bars": bars,
        "omitted": len(rows) - len(drawn),
    }
