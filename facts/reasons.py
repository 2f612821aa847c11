"""Why a candidate waits for review, read from its note: the kind of each reason (unknown label,
conflict, parent-company statement, scale, other) as a filter, and its words in the curator's
language. A note is the ingestion's reasons joined by `; `; each reason of a known form is a
msgid (the English catalogue says it as ingestion wrote it), one of no known form is shown as
written."""

from __future__ import annotations

import re
from contextlib import nullcontext

from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext, gettext_noop, pgettext, pgettext_lazy

PARENT_STATEMENT = "a parent-company statement"

# The phrases ingestion (`ingestion.tables`) and `facts_replace` write, per kind.
REASON_MARKERS: dict[str, tuple[str, ...]] = {
    "label": (
        "unknown row label",
        "empty row label",
        "the row label names no metric",
        "several metrics in one label",
        "which the glossary does not name with",
        "rows of this table: name each under its heading",
        "the glossary does not say which metric",
    ),
    "conflict": ("conflicts with", "conflicting values", "differs from the consolidated statement"),
    "parent": (PARENT_STATEMENT,),
    "scale": ("scale", "unit ", "printed in "),
}
REASON_KINDS = {
    "label": pgettext_lazy("review reason", "unknown label"),
    "conflict": pgettext_lazy("review reason", "conflict"),
    "parent": pgettext_lazy("review reason", "parent statement"),
    "scale": pgettext_lazy("review reason", "scale"),
    "other": pgettext_lazy("review reason", "other"),
}

# Each reason of a known form as ingestion writes it, and its words as a msgid: its groups are
# the msgid's values, so the English catalogue says the reason back as written.
_SAID: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (r"^unknown row label '(?P<label>.*)'$", gettext_noop("unknown row label '%(label)s'")),
        (r"^empty row label$", gettext_noop("empty row label")),
        (r"^the row label names no metric$", gettext_noop("the row label names no metric")),
        (r"^several metrics in one label$", gettext_noop("several metrics in one label")),
        (
            r"^under the heading '(?P<heading>.*)', which the glossary does not name with '(?P<label>.*)'$",
            gettext_noop("under the heading '%(heading)s', which the glossary does not name with '%(label)s'"),
        ),
        (
            r"^'(?P<label>.*)' heads (?P<count>\d+) rows of this table: name each under its heading$",
            gettext_noop("'%(label)s' heads %(count)s rows of this table: name each under its heading"),
        ),
        (
            r"^a total row: the glossary does not say which metric '(?P<label>.*)' totals$",
            gettext_noop("a total row: the glossary does not say which metric '%(label)s' totals"),
        ),
        (
            r"^columns (?P<columns>.+) all hold (?P<period>\S+): add their groups as channels or split the table$",
            gettext_noop("columns %(columns)s all hold %(period)s: add their groups as channels or split the table"),
        ),
        (
            r"^conflicts with the approved value (?P<value>.+?) from (?P<source>.+)$",
            gettext_noop("conflicts with the approved value %(value)s from %(source)s"),
        ),
        (
            r"^conflicts with the approved value (?P<value>.+)$",
            gettext_noop("conflicts with the approved value %(value)s"),
        ),
        (
            r"^conflicts with an approved value from (?P<source>.+)$",
            gettext_noop("conflicts with an approved value from %(source)s"),
        ),
        (
            r"^conflicting values in document \((?P<places>.+)\)$",
            gettext_noop("conflicting values in document (%(places)s)"),
        ),
        (r"^conflicting values in document$", gettext_noop("conflicting values in document")),
        (
            r"^differs from the consolidated statement's (?P<metric>.+) at (?P<place>.+)$",
            gettext_noop("differs from the consolidated statement's %(metric)s at %(place)s"),
        ),
        (
            r"^a parent-company statement \((?P<what>.+) of the parent alone\): never the group's figure$",
            gettext_noop("a parent-company statement (%(what)s of the parent alone): never the group's figure"),
        ),
        (
            r"^no scale stated \(the row, its column, the table's title or the sentence before it name none\)$",
            gettext_noop(
                "no scale stated (the row, its column, the table's title or the sentence before it name none)"
            ),
        ),
        (r"^a scale of (?P<scale>.+) has no unit$", gettext_noop("a scale of %(scale)s has no unit")),
        (
            r"^the table states a scale of (?P<scale>.+) for every figure: is (?P<label>.+) counted in it\?$",
            gettext_noop("the table states a scale of %(scale)s for every figure: is %(label)s counted in it?"),
        ),
        (
            r"^the row states a scale of (?P<scale>.+) for (?P<label>.+), which is in (?P<unit>.+)$",
            gettext_noop("the row states a scale of %(scale)s for %(label)s, which is in %(unit)s"),
        ),
        (
            r"^unit (?P<unit>\S+) but (?P<metric>\S+) is in (?P<metric_unit>\S+)$",
            gettext_noop("unit %(unit)s but %(metric)s is in %(metric_unit)s"),
        ),
        (
            r"^printed in (?P<unit>\S+) but (?P<metric>\S+) is in (?P<metric_unit>\S+)$",
            gettext_noop("printed in %(unit)s but %(metric)s is in %(metric_unit)s"),
        ),
        (
            r"^the table excepts percentages: is '(?P<label>.+)' one\?$",
            gettext_noop("the table excepts percentages: is '%(label)s' one?"),
        ),
        (r"^an external entity$", gettext_noop("an external entity")),
        (r"^several entities in one label$", gettext_noop("several entities in one label")),
        (
            r"^no entity in the title, sheet name or first cell$",
            gettext_noop("no entity in the title, sheet name or first cell"),
        ),
        (r"^the same figure waits for review$", gettext_noop("the same figure waits for review")),
    )
)


def reason_kind_q(kind: str) -> Q:
    """The notes of one reason kind, as a filter; `other`: a note of none of the known kinds."""
    if kind == "other":
        known = Q()
        for markers in REASON_MARKERS.values():
            for marker in markers:
                known |= Q(review_note__icontains=marker)
        return ~known
    condition = Q(pk__in=[])
    for marker in REASON_MARKERS.get(kind, ()):
        condition |= Q(review_note__icontains=marker)
    return condition


def reason_kinds(note: str) -> list[str]:
    """The kinds of the reasons in a note, in `REASON_KINDS` order."""
    lowered = note.lower()
    kinds = [kind for kind, markers in REASON_MARKERS.items() if any(m in lowered for m in markers)]
    return kinds or (["other"] if note else [])


def reason_shown(note: str, language: str | None = None) -> str:
    """The note in the curator's language (`language`, else the active one): each reason of a
    known form in its words, the others as written."""
    with translation.override(language) if language else nullcontext():
        parts = [_reason_said(part.strip()) for part in note.split("; ") if part.strip()]
        return pgettext("list separator", "; ").join(parts)


def _reason_said(reason: str) -> str:
    for pattern, words in _SAID:
        if found := pattern.match(reason):
            return gettext(words) % found.groupdict()
    return reason
