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
