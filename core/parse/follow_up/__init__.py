"""Follow-ups in a conversation.

`follow_up_apply(intent, previous, glossary)` takes the question's own parsed intent and the
conversation's previous answered intent; it returns the intent to answer and a note in the
analyst's words saying what was inherited (None when nothing was).

The invariant: a follow-up inherits only when it brings no topic of its own. A topic is a
document cue, a metric-like term the glossary does not know, a competitor, or any word that is
not a glossary term, a period or one of the follow-up's own filler words (`那`, `呢`,
`what about`, …); a narrative cue that names a subject (`监管`, `政策`) is such a word. So a
narrative, FAQ or document question is never turned into a structured one. Otherwise:

- with no metric of its own (`那香港呢？`, `去年呢`, `线上呢`, `what about Hong Kong?`) it takes
  the previous metric(s) and operation, keeps every slot it names, takes the previous value of
  each slot it leaves out, and routes `structured`; after a question in parts (`毛利率是多少？营收
  同比增速呢？`) each part is asked again with the slots the follow-up names;
- with a metric of its own (`那净利润呢`) it keeps that metric and takes the left-out entity,
  period and channel; the previous operation too when it applied to one metric (growth, rank…);
- a stretch just before the previous periods (`那前三年呢`, `那之前三年呢`, `what about the three
  years before?`) replaces them with that many years (or quarters) just before the earliest of
  them, listed as they were (`periods_before`): after FY2022–FY2025, FY2019–FY2021;
- a bare "why" (`那为什么呢？`, `why?`, and with only a pronoun, an auxiliary or a word of
  movement besides: `Why did it fall?`, `它为什么跌了`, `为什么会这样`) asks about the previous
  answer: it keeps its narrative (or composite) route, with no operation, and carries the
  previous slots so that retrieval has a topic (`follow_up_topic`); it never repeats the number
  as a structured answer.

Whether the question brings a topic of its own is `own_topic`'s to say; the note of what it
inherited is written by `note`. Django-free and deterministic.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.language.periods import period_shifts, periods_before
from core.model.intent import ParsedIntent, Part, Routing
from core.model.operation import OP_AVERAGE, OP_CAGR, OP_DIFFERENCE, OP_GROWTH, OP_RANK, OP_SHARE, OP_SUM
from core.model.period import Period
from core.model.registry import ROUTE_COMPOSITE, ROUTE_NARRATIVE, ROUTE_STRUCTURED
from core.parse.follow_up.note import NOTE_PREFIX, REASON_PREFIX, inherited_text, operation_name
from core.parse.follow_up.own_topic import BARE_ASK, has_own_topic
from core.parse.intent import asks_why_change

# Words saying the figure moved (`它为什么跌了`, `Why did it go down?`): a bare why with one is
# asked of the figure's change, which is answered with its parts first.
_MOVED = re.compile(
    r"下降|上升|下滑|下跌|上涨|跌|涨|增长|减少|增加|提升|回落"
    r"|(?<![a-z])(?:declin\w*|fall\w*|fell|drop\w*|decreas\w*|increas\w*|grow\w*|grew|ris(?:e|es|ing)|rose"
    r"|(?:go|goes|went|gone) (?:down|up))(?![a-z])"
)

# The operations that apply to one metric: a follow-up naming another metric keeps them.
_PER_METRIC = (OP_GROWTH, OP_CAGR, OP_DIFFERENCE, OP_RANK, OP_SUM, OP_AVERAGE, OP_SHARE)

# How a question says it continues the previous one; a question with a metric of its own
# inherits the other slots only with such a marker (`那净利润呢`, not `净利润是多少`).
_FOLLOW_UP_MARKER = re.compile(
    r"(?:呢|怎么样|如何)[\s?？。!！]*$|^(?:那么|那|咁|噉|还有|再看看?|换成|如果是)"
    r"|^(?:what about|how about|and|then|same for)(?![a-z])|\bthen[\s?!.]*$"
)


def continues_nothing(intent: ParsedIntent, glossary: GlossarySnapshot) -> bool:
    """Whether the question only continues an earlier one (`那香港呢？`, `同比呢`, `那为什么呢？`,
    `what about Hong Kong?`): it says it follows up, brings no metric or topic of its own, and
    changes something an earlier question would have asked. Asked with no earlier question, it
    can only be asked back (`NOTHING_TO_CONTINUE`)."""
    normalized = (intent.normalized or text_normalize(intent.raw_question)).strip()
    if _metrics_of(intent) or not _FOLLOW_UP_MARKER.search(normalized) or has_own_topic(intent, glossary):
        return False  # the cheap tests first: most questions stop at the first or the second
    shifted = next(iter(period_shifts(normalized, date.today())), None) is not None
    changes = intent.has_slot or intent.operation is not None or intent.decimals is not None or shifted
    return changes or bool(BARE_ASK.search(normalized))


def follow_up_apply(
    intent: ParsedIntent, previous: ParsedIntent, glossary: GlossarySnapshot
) -> tuple[ParsedIntent, str | None]:
    previous_metrics = _metrics_of(previous)
    if not previous_metrics or has_own_topic(intent, glossary):
        return intent, None
    normalized = intent.normalized or text_normalize(intent.raw_question)
    # `为什么增长？` reads a growth from its word of movement: still a bare why of the figure
    why_moved = intent.operation is not None and intent.operation.kind == OP_GROWTH and asks_why_change(normalized)
    bare_ask = (intent.operation is None or why_moved) and bool(BARE_ASK.search(normalized))
    own_metrics = _metrics_of(intent)
    if own_metrics and not _FOLLOW_UP_MARKER.search(normalized.strip()):
        return intent, None  # a question of its own (`营收是多少`): its own assumptions apply
    decimals = intent.decimals
    own_periods = intent.periods or ((intent.period,) if intent.period else ())
    shift = next(iter(period_shifts(normalized, date.today())), None) if not own_periods else None
    continued = own_metrics or bare_ask or intent.has_slot or intent.operation is not None or decimals is not None
    if not continued and shift is None:
        return intent, None  # says nothing that could be continued (`呢？`, `好的`)

    changes: dict[str, Any] = {}
    inherited: dict[str, tuple[str, ...]] = {}
    if not own_metrics:
        changes.update(metric=previous_metrics[0], metrics=previous_metrics)
        inherited["metric"] = previous_metrics
    if not (intent.entity or intent.entities):
        entities = previous.entities or ((previous.entity,) if previous.entity else ())
        if entities:
            changes.update(entity=entities[0], entities=entities)
            inherited["entity"] = entities
    if not own_periods:
        periods = previous.periods or ((previous.period,) if previous.period else ())
        if periods and shift is not None:
            start, end, count, unit = shift
            before = periods_before(periods, count, unit)
            changes.update(period=before[0], periods=before, periods_read=(*intent.periods_read, (start, end)))
            earliest = min(periods, key=lambda p: p.sort_key).label
            inherited["period"] = _shifted_labels(before, earliest, count, unit, intent.language)
            own_periods = before
        elif periods:
            changes.update(period=periods[0], periods=periods)
            inherited["period"] = tuple(p.label for p in periods)
    if not intent.channel_given and previous.channel_given:
        channels = previous.channels or (previous.channel,)
        changes.update(channel=channels[0], channels=channels, channel_given=True)
        inherited["channel"] = channels
    operation = previous.operation
    if (
        operation is not None
        and intent.operation is None
        and not bare_ask
        and (not own_metrics or (len(previous_metrics) == 1 and operation.kind in _PER_METRIC))
    ):
        changes["operation"] = operation if decimals is None else replace(operation, decimals=decimals)
        inherited["operation"] = (operation_name(operation, intent.language),)
    if previous.parts and not own_metrics and intent.operation is None and not bare_ask:
        changes["parts"] = _parts_again(previous.parts, replace(intent, periods=own_periods), decimals)
        changes["operation"] = next((p.operation for p in changes["parts"] if p.operation is not None), None)
    if not inherited:
        return intent, None

    language = "en" if intent.language == "en" else "zh"
    what = inherited_text(inherited, glossary, language)
    if not own_metrics:
        # a bare why of one figure is answered with its change and parts first (`why_answer`)
        # (`为什么下降了？`, or a why after a growth); a bare `那为什么呢？` after a level stays narrative
        moved = _MOVED.search(normalized) is not None or (
            previous.operation is not None and previous.operation.kind in (OP_GROWTH, OP_DIFFERENCE)
        )
        why_of_figure = bare_ask and len(previous_metrics) == 1 and moved and asks_why_change(normalized)
        changes["route"] = ROUTE_COMPOSITE if why_of_figure else ROUTE_NARRATIVE if bare_ask else ROUTE_STRUCTURED
    reason = f"{REASON_PREFIX[language]}{what}"
    if own_metrics and intent.routing.reason:
        reason = f"{intent.routing.reason} · {reason}"
    changes["routing"] = Routing(intent.routing.mode, intent.routing.confidence, reason)
    changes["unrecognized_terms"] = ()
    return replace(intent, **changes), f"{NOTE_PREFIX[language]}{what}"


def _shifted_labels(
    periods: tuple[Period, ...], earliest: str, count: int, unit: str, language: str
) -> tuple[str, ...]:
    """The periods a stretch before the previous ones reads as, the last saying what it is before:
    `FY2019、FY2020、FY2021（FY2022 之前 3 年）` / `… (the 3 years before FY2022)`."""
    labels = [p.label for p in periods]
    if language == "en":
        labels[-1] += f" (the {count} {unit}{'s' if count > 1 else ''} before {earliest})"
    else:
        labels[-1] += f"（{earliest} 之前 {count} {'年' if unit == 'year' else '个季度'}）"
    return tuple(labels)


def _parts_again(parts: tuple[Part, ...], intent: ParsedIntent, decimals: int | None) -> tuple[Part, ...]:
    """The previous question's parts, each asked again with the slots the follow-up names (a
    part that ran across the subsidiaries keeps running across them)."""
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    periods = intent.periods or ((intent.period,) if intent.period else ())
    channels = intent.channels if intent.channel_given else ()
    again = []
    for part in parts:
        across = part.operation is not None and part.operation.over == "entities"
        operation = part.operation
        if operation is not None and decimals is not None:
            operation = replace(operation, decimals=decimals)
        again.append(
            replace(
                part,
                operation=operation,
                entities=part.entities if across or not entities else entities,
                periods=periods or part.periods,
                channels=channels or part.channels,
                decimals=decimals if decimals is not None else part.decimals,
            )
        )
    return tuple(again)


def follow_up_topic(intent: ParsedIntent, glossary: GlossarySnapshot) -> str:
    """The question with the slots it carries spelled out, for retrieval: `那为什么呢？` after a
    revenue figure searches for `ACME集团 FY2025 营业收入 那为什么呢？`.

    The slots are spelled by their glossary names, the catalogue's own wording, in whatever
    language the question is: the documents share it, and an English follow-up (`Why did it
    fall?`) has no word of its own that would meet them."""
    words = [_catalogue_name(glossary, "entity", code) for code in intent.entities or (intent.entity or "",) if code]
    words += [p.label for p in intent.periods or ((intent.period,) if intent.period else ())]
    words += [_catalogue_name(glossary, "metric", code) for code in _metrics_of(intent)]
    if intent.channel_given:
        words += [_catalogue_name(glossary, "channel", code) for code in intent.channels or (intent.channel,)]
    return " ".join([*words, intent.raw_question])


def _catalogue_name(glossary: GlossarySnapshot, kind: str, code: str) -> str:
    records = {"entity": glossary.entities, "metric": glossary.metrics, "channel": glossary.channels}[kind]
    info = records.get(code)
    return info.name if info is not None else code


def _metrics_of(intent: ParsedIntent) -> tuple[str, ...]:
    return intent.metrics or ((intent.metric,) if intent.metric else ())
