"""A small server-side SVG bar chart for answers that span several periods or entities (no JS, no CDN)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from agent.serialize import AnswerFact

WIDTH, HEIGHT, PAD = 560, 200, 28


def chart_bars(facts: Sequence[AnswerFact], glossary: Any, language: str = "zh") -> dict[str, Any] | None:
    """Bars for one metric over several periods of one kind, or several entities; None when a
    chart would not help (one bar) or would mislead (a year's bar beside a half's or a quarter's)."""
    if len(facts) < 2 or len({f.metric for f in facts}) != 1 or len({f.unit for f in facts}) != 1:
        return None
    if len({f.period.period_type for f in facts}) != 1:
        return None
    periods = {f.period for f in facts}
    entities = {f.entity for f in facts}
    if len(periods) < 2 and len(entities) < 2:
        return None
    by_period = len(periods) >= 2
    ordered = sorted(facts, key=lambda f: f.period.sort_key) if by_period else list(facts)
    values = [f.value for f in ordered]
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
        label = fact.period.label if by_period else glossary.display("entity", fact.entity, language)
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
        "title": glossary.display("metric", ordered[0].metric, language),
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
    values = [r["value"] for r in drawn]
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


# -- series: one line over the periods in order, broken where a period has no figure ------------
LINE_HEIGHT, LINE_TOP, LINE_BOTTOM = 210, 28, 34  # room above for value labels, below for periods
LINE_SLOT_MIN, LINE_SLOT_MAX = 64, 112  # the room of one period along the axis
LINE_WIDTH_MAX = 640
LINE_FONT = 13
LINE_PHONE = 300  # a chart shrinks to fit a phone down to this width, or to 75 % of its own if wider
LINE_SHRINK = 0.75  # (below that its text would be too small to read: it scrolls sideways instead)
LABEL_OFF = 7  # a value label's distance from its point


def figure_width(text: str, size: int = LINE_FONT) -> float:
    """About how wide a figure such as `128,450.6` sets: digits are narrower than letters, and
    separators narrower still (`text_width` for anything else)."""
    narrow = sum(1 for ch in text if ch in ",.")
    digits = sum(1 for ch in text if ch.isdigit() or ch in "+-%")
    rest = "".join(ch for ch in text if not (ch.isdigit() or ch in ",.+-%"))
    return narrow * size * 0.34 + digits * size * 0.62 + text_width(rest, size)


Box = tuple[float, float, float, float]  # left, top, right, bottom


def _clear(boxes: list[Box], gap: float = 4.0) -> list[int]:
    """The boxes, in the order given, that clear every box kept before them."""
    kept: list[int] = []
    for i, (left, top, right, bottom) in enumerate(boxes):
        if all(
            left >= boxes[k][2] + gap or right + gap <= boxes[k][0] or top >= boxes[k][3] or bottom <= boxes[k][1]
            for k in kept
        ):
            kept.append(i)
    return kept


def _value_place(
    x: float, y: float, before: float | None, after: float | None, floor: float
) -> tuple[float, float, str]:
    """Where a value's label goes, clear of the line through its point: above a peak, below a
    trough, up-left on a rise and up-right on a fall (the segments run the other way), never
    below the plot's `floor`. Returns the label's x, baseline and text anchor."""
    higher = [n for n in (before, after) if n is not None and n < y]  # screen y: smaller is higher
    lower = [n for n in (before, after) if n is not None and n > y]
    if before is not None and after is not None and len(higher) == 1 and len(lower) == 1:
        rising = after < y
        return (x - LABEL_OFF, y - LABEL_OFF, "end") if rising else (x + LABEL_OFF, y - LABEL_OFF, "start")
    if higher and not lower and y + LABEL_OFF + LINE_FONT <= floor:
        return x, y + LABEL_OFF + LINE_FONT, "middle"
    return x, y - LABEL_OFF - 2, "middle"


def label_box(x: float, baseline: float, anchor: str, width: float) -> Box:
    left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
    return left, baseline - LINE_FONT, left + width, baseline + 3


def chart_line(points: list[dict[str, Any]], *, missing_mark: str) -> dict[str, Any] | None:
    """A line over `points` in the order given (the periods'), from a zero baseline.

    Each point gives `label` (its period), `value` (the `Decimal`, None when it has no figure),
    `display` (its text) and `derived`. A point without a figure breaks the line and is marked
    with `missing_mark` at its place, never left out. Each value is written beside its point,
    clear of the line, when it clears the labels already placed: the first, the last, the highest
    and the lowest first. Period labels thin out the same way, a missing one kept. None when no
    point has a figure.
    """
    values = [p["value"] for p in points]
    known = [v for v in values if v is not None]
    if not known:
        return None
    count = len(points)
    label_width = max(figure_width(p["label"]) for p in points) + 10
    value_widths = [figure_width(p["display"]) for p in points]
    slot = min(max(LINE_SLOT_MIN, label_width, max(value_widths) + 8), LINE_SLOT_MAX)
    side = max(8.0, max(value_widths) / 2 - slot / 2 + 6)
    if 2 * side + count * slot > LINE_WIDTH_MAX:
        slot = max((LINE_WIDTH_MAX - 2 * side) / count, 24.0)
    width = round(2 * side + count * slot)
    top = max(max(known), Decimal(0))
    bottom = min(min(known), Decimal(0))
    span = (top - bottom) or Decimal(1)
    plot = LINE_HEIGHT - LINE_TOP - LINE_BOTTOM
    height = LINE_HEIGHT + (LINE_FONT + 6 if bottom < 0 else 0)  # room for a label under the lowest point
    floor = height - LINE_BOTTOM + 4

    def y_of(value: Decimal) -> float:
        return round(LINE_TOP + float((top - value) / span) * plot, 1)

    centre = [round(side + slot * (i + 0.5), 1) for i in range(count)]
    ys = [y_of(v) if v is not None else None for v in values]
    segments: list[list[tuple[float, float]]] = [[]]
    for x, y in zip(centre, ys, strict=True):
        if y is None:
            segments.append([])
        else:
            segments[-1].append((x, y))
    places: dict[int, tuple[float, float, str]] = {}
    for i, y in enumerate(ys):
        if y is not None:
            before = ys[i - 1] if i > 0 else None
            after = ys[i + 1] if i + 1 < count else None
            x, baseline, anchor = _value_place(centre[i], y, before, after, floor)
            left, _, right, _ = label_box(x, baseline, anchor, value_widths[i])
            x += max(1 - left, 0) - max(right - (width - 1), 0)  # inside the drawing
            places[i] = (round(x, 1), baseline, anchor)
    order = sorted(places)
    first = [order[0], order[-1], min(order, key=lambda i: ys[i] or 0.0), max(order, key=lambda i: ys[i] or 0.0)]
    ranked = list(dict.fromkeys([*first, *order]))
    dots: list[Box] = [(centre[i] - 4, (ys[i] or 0.0) - 4, centre[i] + 4, (ys[i] or 0.0) + 4) for i in order]
    boxes = dots + [label_box(*places[i], value_widths[i]) for i in ranked]
    written = {ranked[k - len(dots)] for k in _clear(boxes, gap=2.0) if k >= len(dots)}
    missing = [i for i in range(count) if values[i] is None]
    named_order = list(dict.fromkeys([0, count - 1, *missing, *range(count)]))
    period_boxes = [label_box(centre[i], height - 12, "middle", figure_width(points[i]["label"])) for i in named_order]
    named = {named_order[k] for k in _clear(period_boxes, gap=8.0)}
    marks = []
    for i, (point, x, y) in enumerate(zip(points, centre, ys, strict=True)):
        place = places.get(i)
        marks.append(
            {
                "x": x,
                "y": y,
                "label": point["label"],
                "display": point["display"],
                "missing": y is None,
                "derived": bool(point.get("derived")),
                "value_shown": i in written,
                "value_x": place[0] if place else None,
                "value_y": place[1] if place else None,
                "value_anchor": place[2] if place else "middle",
                "label_shown": i in named,
            }
        )
    return {
        "width": width,
        "height": height,
        "phone": round(min(width, max(LINE_PHONE, width * LINE_SHRINK))),
        "left": round(side, 1),
        "right": round(width - side, 1),
        "zero_y": y_of(Decimal(0)),
        "plot_top": LINE_TOP - 8,
        "plot_bottom": round(LINE_TOP + plot, 1),
        "mid_y": round(LINE_TOP + plot / 2, 1),
        "label_y": height - 12,
        "segments": [" ".join(f"{x},{y}" for x, y in run) for run in segments if run],
        "points": marks,
        "missing_mark": missing_mark,
    }
