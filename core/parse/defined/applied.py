"""The intent of a question that brings its own formula: the intent of its other words, with the
formula as what is asked (its metric slot `DEFINED`, the structured route, no glossary
operation, and the period the formula's own years end in when the question names none), its
name and words as the question wrote them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.model.intent import Definition, ParsedIntent
from core.model.operation import OP_AVERAGE
from core.model.period import Period
from core.model.registry import ROUTE_STRUCTURED

DEFINED = "DEFINED"  # the metric slot of a question that defines its own formula


def definition_apply(rest: ParsedIntent, definition: Definition, normalized: str) -> ParsedIntent:
    """The intent of the question's other words with the formula as what is asked: its metric
    slot `DEFINED`, the structured route, no glossary operation (the formula is the operation),
    and the period the formula's own years end in when the question names none."""
    period = rest.period
    if period is None and definition.over:
        period = Period("FY", definition.over[-1][2:])
    if period is None:
        written = [label for label in re.findall(r"\[(FY[0-9]{4})\]", definition.formula)]
        period = Period("FY", max(written)[2:]) if written else None
    term = rest.unknown_metric or ""
    definition = replace(
        definition,
        name=_as_written(definition.name or term, rest.raw_question),  # `it is defined as`: the term asked
        written=_as_written(definition.written, rest.raw_question),
    )
    operation = rest.operation
    if operation is not None and (operation.cue in term or (definition.over and operation.kind == OP_AVERAGE)):
        operation = None  # a word of the term defined (`revenue growth index`), or the average it runs
    label = definition.name or definition.written
    reason = (
        f"依据：问题自带的公式 {label}" if rest.language != "en" else f"based on: the question's own formula {label}"
    )
    return replace(
        rest,
        normalized=normalized,
        metric=DEFINED,
        metrics=(DEFINED, *rest.metrics),  # a metric asked beside the formula is answered too
        period=period,
        periods=rest.periods or ((period,) if period else ()),
        route=ROUTE_STRUCTURED,
        parts=(),
        operation=operation,
        unknown_metric=None,
        unrecognized_terms=(),
        definition=definition,
        routing=replace(rest.routing, confidence=1.0, reason=reason),
    )


def _as_written(text: str, question: str) -> str:
    """`text` (normalised) as the question writes it, capitals kept (`dpo` → `DPO`), when the
    question holds it with only case and spacing changed; else `text`."""
    if not text or not text.isascii():
        return text
    pattern = r"\s*".join(re.escape(part) for part in text.split())
    m = re.search(pattern, question, flags=re.IGNORECASE)
    return m.group(0) if m is not None else text
