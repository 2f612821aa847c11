"""Which metric a row label may be suggested, grouped or waiting under: only one of its concept.

Takes a label (or a term) and a metric's names and aliases; returns whether they name one concept
(`same_concept`), through the one form both are compared in (`concept_key`). Invariant: a label
the glossary does not read is never given, nor offered, a metric whose names say something else:
`加：营业外收入` is no `营业收入`, `其他收益` no `收益`.
"""

from __future__ import annotations

import re
import unicodedata

from core.language.normalize import text_normalize

from ..scales import scale_read, scale_strip
from ..statements import label_as_printed
from ..values import _BRACKETS

# An explicit sub-row of the row above (`其中：线上`, `of which`): layout, like numbering.
_SUB_ROW = re.compile(r"^(?:其中|of which|ofwhich|including|incl\.?|among which|thereof)\s*[:：,，]?\s*", re.IGNORECASE)

# Units of measure as a label prints them in brackets (`（元/股）`, `（人）`, `(%)`, `(x)`), possibly
# scaled (`万股`); a bracket holding nothing else is formatting, as a unit column is.
_UNIT = (
    r"(?:[万千百亿]?(?:元|股|人|名|位|家|个|间|户|次|倍|天|日|月|年|岁|笔|张|件|台|套|吨)"
    r"|%|‰|x|times|days?|months?|years?|persons?|people|shares?|bps?|pp|[$€£¥])"
)
_UNIT_ONLY = re.compile(rf"(?:单位\s?[:：]?\s?)?{_UNIT}(?:\s?(?:/|每|per)\s?{_UNIT})?")

# Words that join a name's parts or mark its grammar and name nothing themselves: the Chinese
# structural particles and conjunctions, and English articles, `of` and `and`.
_CHINESE_FUNCTION_WORDS = re.compile(r"以及|及|的|之|于|与|和")
_ENGLISH_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "and", "&"})
_ENGLISH_WORD = re.compile(r"[a-z]+|&")

# The names statements print for the holders of one equity (CAS `所有者` / `股东`, US GAAP
# `stockholders` / `shareholders` / `shareowners`): one holder, so one form.
_HOLDER_NAMES = ((re.compile(r"股东"), "所有者"), (re.compile(r"stockholder|shareowner"), "shareholder"))


def concept_key(text: str) -> str:
    """What a name says, in the form two names of one concept share; "" when it says nothing.

    Set aside: (1) formatting: numbering, `加：` / `减：` / `其中：` / `of which`, sign notes, note
    references and footnote marks (`label_as_printed`), and brackets holding only a unit, a scale
    or a currency; (2) words that name nothing: the Chinese structural particles and conjunctions
    (`的 之 于 及 以及 与 和`), English articles, `of` and `and`, an English plural, punctuation,
    spacing, case and script; (3) the holder's name for one equity (`股东` is `所有者`). Every
    other word is content, so a label with one word more or fewer than a name names another
    concept, whatever that word is.
    """
    text = text_normalize(label_as_printed(text))
    text = _SUB_ROW.sub("", text)
    text = _BRACKETS.sub(_unit_bracket_drop, text)
    for holder, name in _HOLDER_NAMES:
        text = holder.sub(name, text)
    text = _ENGLISH_WORD.sub(_english_word, text)
    text = _CHINESE_FUNCTION_WORDS.sub("", text)
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PSZ")


def same_concept(label: str, name: str) -> bool:
    """Whether a label may be the metric `name` printed another way (see `concept_key`)."""
    key = concept_key(label)
    return bool(key) and key == concept_key(name)


def _unit_bracket_drop(m: re.Match[str]) -> str:
    inner = m.group(1).strip()
    rest = scale_strip(inner).strip() if scale_read(inner) is not None else inner
    return " " if not rest or _UNIT_ONLY.fullmatch(rest) else m.group(0)


def _english_word(m: re.Match[str]) -> str:
    word = m.group(0)
    if word in _ENGLISH_FUNCTION_WORDS:
        return " "
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
