"""A whole less a part it holds (`集团营业收入（不含香港）`): the entity less one of its children,
or its total less one channel, for a figure that adds up; anything else is refused with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from core.engine import Change, difference_compute
from core.glossary import AGGREGATION_SUM
from core.model.facts import SubTask
from core.model.operation import OP_EXCLUDE, Operation
from core.routes.computed.answer import Item
from core.routes.computed.subjects import Axes, Context, refusal


def exclude_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    """A whole less a part it holds (`集团营业收入（不含香港）`): the first entity listed less a
    child of it, or the entity's total less a channel; only for a figure that adds up (a flow).
    A ratio or a balance excluding a part is refused with the reason, never shown whole."""
    glossary = context.glossary
    metric = axes.metrics[0]
    info = glossary.metrics.get(metric)
    whole = SubTask(metric, axes.entities[0], axes.periods[0], "TOTAL")
    asked = context.asked(whole, "（剔除部分后）", "excluding a part")
    part: SubTask | None = None
    children = [
        e for e in axes.entities[1:] if glossary.entities.get(e) and glossary.entities[e].parent == whole.entity
    ]
    named = [c for c in axes.channels if c != "TOTAL"]
    if children:
        part = replace(whole, entity=children[0])
    elif named:
        part = replace(whole, channel=named[0])
    if part is None or len(axes.entities) > 2 or len(named) > 1:
        reason = refusal(
            OP_EXCLUDE,
            "exclude_what",
            "无法确定要剔除的部分：需为所问实体的下属实体或渠道之一。",
            "Cannot tell which part to exclude: it must be one subsidiary or channel of the entity asked.",
        )
        return [Item(reason, asked)]
    if info is None or info.adds_up != AGGREGATION_SUM:
        reason = refusal(
            OP_EXCLUDE,
            "exclude_not_additive",
            "该指标不是可加总的流量（如比率、期末数），不能从整体中剔除一部分计算；为避免误导，不提供数字。",
            "This figure does not add up (a ratio or a balance), so a part cannot be excluded from it; "
            "no figure is given.",
        )
        return [Item(reason, asked)]
    outcome = difference_compute(context.lookup, whole, part, **context.options)
    if isinstance(outcome, Change):
        kind, code = ("entity", part.entity) if part.entity != whole.entity else ("channel", part.channel)
        name, name_en = glossary.display(kind, code, "zh"), glossary.display(kind, code, "en")
        metric_zh, metric_en = glossary.display("metric", metric, "zh"), glossary.display("metric", metric, "en")
        if kind == "entity":  # the inputs differ in entity: the whole is named with its metric
            metric_zh = glossary.display("entity", whole.entity, "zh") + metric_zh
            metric_en = f"{glossary.display('entity', whole.entity, 'en')} {metric_en}"
        change = replace(
            outcome.change,
            name_zh=f"{metric_zh}（不含{name}）",
            name_en=f"{metric_en} excluding {name_en}",
        )
        return [Item(change, asked)]
    return [Item(outcome, asked)]
