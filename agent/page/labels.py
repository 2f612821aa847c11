"""The words around an answer in the analyst UI, in the answer's language.

The page's chrome follows the UI language (`LocaleMiddleware`, the header's switch); an answer's
panel follows its question's language, as its text does: its table headers, its source list, its
badges, its export link and its feedback form. The words are `gettext` strings, their Chinese and
English in the checked-in catalogues (locale/), read with the answer's language active.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.utils import translation
from django.utils.translation import gettext

from core.glossary import GlossarySnapshot
from core.language.quantities.asked import count_unit, count_unit_display, money_unit, scaled_unit_display
from core.model.registry import (
    KIND_DEGRADED,
    KIND_REFUSAL,
    ROUTE_COMPOSITE,
    ROUTE_FAQ,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    Badge,
)

# The answer's language (core's `zh` / `en`) as a Django language code.
DJANGO_LANGUAGE = {"zh": "zh-hans", "en": "en"}


@contextmanager
def answer_language(language: str) -> Iterator[None]:
    """Within, `gettext` speaks the answer's language, whatever the UI's is."""
    with translation.override(DJANGO_LANGUAGE.get(language, "zh-hans")):
        yield


def panel_labels() -> dict[str, str]:
    """The panel's words in the active language (see `answer_language`)."""
    return {
        "entity": gettext("Entity"),
        "period": gettext("Period"),
        "metric": gettext("Metric"),
        "channel": gettext("Channel"),
        "value": gettext("Value"),
        "unit": gettext("Unit"),
        "sources": gettext("Sources"),
        "source": gettext("Source"),
        "inputs": gettext("Figures and sources ({count})"),
        "cell_row": gettext("Row (metric)"),
        "cell_column": gettext("Column (period)"),
        "cell": gettext("Cell"),
        "location": gettext("Location"),
        "nearest": gettext("Closest location: "),
        "at": gettext("Location: "),
        "open": gettext("Open document"),
        "export": gettext("Export CSV"),
        "thanks": gettext("Feedback recorded, thank you."),
        "reason": gettext("Reason (optional)"),
        "reason_label": gettext("Feedback reason"),
        "up": gettext("Useful"),
        "down": gettext("Not useful"),
        "up_title": gettext("This answer was useful"),
        "down_title": gettext("This answer was not useful"),
        "narrow": gettext("Narrow the question"),
        "choose": gettext("Choose one"),
        "dispute": gettext("This figure is wrong"),
        "dispute_note": gettext("What is wrong? (goes to the curators’ review queue)"),
        "dispute_send": gettext("Send"),
        # before a fact's figure as the report printed it, when its metric stores the amount
        "printed": gettext("printed"),
        # an answer built from RESTRICTED figures, for the analyst cleared to see them
        "restricted": gettext("Restricted"),
        "restricted_title": gettext("Built from RESTRICTED figures: share only with those cleared to see them"),
    }


def _badge_names() -> dict[str, str]:
    return {
        ROUTE_STRUCTURED: gettext("Data"),
        ROUTE_NARRATIVE: gettext("Documents"),
        ROUTE_COMPOSITE: gettext("Data + reasons"),
        ROUTE_FIND_DOCUMENTS: gettext("Find documents"),
        ROUTE_FAQ: gettext("FAQ"),
        KIND_REFUSAL: gettext("Not answered"),
        KIND_DEGRADED: gettext("Degraded"),
    }


def badge_in(badge: Badge | None, key: str) -> Badge | None:
    """`badge` named in the active language, its tone kept (the registry names it in Chinese)."""
    names = _badge_names()
    if badge is None or key not in names:
        return badge
    return Badge(names[key], badge.tone)


def unit_words(glossary: GlossarySnapshot, code: str, language: str) -> str:
    """A unit's name in the answer's language: the glossary's, or for a unit a conversion made
    (`CNY_HUNDRED_MILLION`, `USD_M`, `TEN_THOUSAND_PERSONS`) the words the answer's text uses
    (`亿元`, `USD m`, `万人`); the code only for a unit nothing names."""
    if code in glossary.units:
        return glossary.unit_display(code, language)
    money = money_unit(code)
    if money is not None:
        return scaled_unit_display(*money, language)
    counted = count_unit(code)
    if counted is not None:
        return count_unit_display(*counted, language)
    return code
