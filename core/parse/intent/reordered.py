"""An English metric said in other word order or inflection (`pay out in cash dividends` for the
alias `cash dividends paid`, `revenues` for `revenue`).

Takes the normalised question and the glossary; returns the stretch of the question and the
alias it says, or None. Words are compared by their stems (a plural, a past tense, `-ing`,
`-ment` dropped; `paid` is `pay`), function words aside. A stretch says an alias when it holds
every content word of the alias, within a window a few words longer than the alias, and no
word of another kind (a period, a number) in between; it is read only when exactly one metric
is said so, never a guess between two.
"""

from __future__ import annotations

import re

from core.glossary import GlossarySnapshot

_WORD = re.compile(r"[a-z][a-z&'-]*|[0-9][0-9a-z.]*")
_FUNCTION = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "from",
        "out",
        "up",
        "with",
        "and",
        "or",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "did",
        "do",
        "does",
        "how",
        "much",
        "many",
        "what",
        "which",
        "whats",
        "its",
        "it",
        "their",
        "total",
    ]
)
_IRREGULAR = {"paid": "pay", "spent": "spend", "sold": "sell", "made": "make", "bought": "buy", "owed": "owe"}
_SLACK = 3  # words a stretch may hold beyond the alias's own
_INDEXES: dict[int, tuple[int, list[tuple[frozenset[str], str, str]]]] = {}


def stem(word: str) -> str:
    word = word.strip("'-").removesuffix("'s")
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, keep in (("ments", 0), ("ment", 0), ("ies", 0), ("ing", 3), ("ed", 3), ("es", 3), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= max(keep, 3):
            base = word[: -len(suffix)]
            return base + "y" if suffix == "ies" else base.removesuffix("e")
    return word.removesuffix("e") if len(word) > 3 else word


def _index(glossary: GlossarySnapshot) -> list[tuple[frozenset[str], str, str]]:
    held = _INDEXES.get(id(glossary))
    if held is not None and held[0] == glossary.version:
        return held[1]
    entries: list[tuple[frozenset[str], str, str]] = []
    for code in glossary.metrics:
        for alias in glossary.aliases_of("metric", code):
            if not alias.isascii():
                continue
            words = frozenset(stem(w) for w in _WORD.findall(alias.lower()) if w not in _FUNCTION)
            if words:
                entries.append((words, code, alias))
    if len(_INDEXES) > 8:
        _INDEXES.clear()
    _INDEXES[id(glossary)] = (glossary.version, entries)
    return entries


def reordered_alias_find(normalized: str, glossary: GlossarySnapshot) -> tuple[str, str] | None:
    """`(the question's words, the alias they say)`, or None (see the module's docstring)."""
    tokens = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(normalized)]
    stems = [stem(t) if t[0].isalpha() else "\x00" for t, _, _ in tokens]
    best: dict[str, tuple[int, int, str, int]] = {}  # code → (start, end, alias, size)
    for words, code, alias in _index(glossary):
        width = len(words) + _SLACK
        for i in range(len(stems)):
            if stems[i] not in words:
                continue
            seen: set[str] = set()
            for j in range(i, min(len(stems), i + width)):
                if stems[j] == "\x00":
                    break
                if stems[j] in words:
                    seen.add(stems[j])
                if seen == words:
                    size = len(words)
                    held = best.get(code)
                    if held is None or size > held[3]:
                        best[code] = (tokens[i][1], tokens[j][2], alias, size)
                    break
    if not best:
        return None
    top = max(held[3] for held in best.values())
    winners = [code for code, held in best.items() if held[3] == top]
    if len(winners) != 1:
        return None
    start, end, alias, _ = best[winners[0]]
    return normalized[start:end], alias


_PARTICLES = str.maketrans("", "", "的之 ")


def formula_paraphrase_find(term: str, glossary: GlossarySnapshot) -> str | None:
    """The one formula metric whose name or alias holds `term`'s words in order with only
    particles between (`研发经费与利润的比值` → `企业研发经费与利润比值`), or None: none or two."""
    bare = term.translate(_PARTICLES).lower()
    if len(bare) < 2 or glossary.resolve("metric", term) is not None:
        return None  # a name the glossary already holds is that metric, no paraphrase
    found = set()
    for code in glossary.formula_metrics:
        for name in (glossary.metrics[code].name, *glossary.aliases_of("metric", code)):
            whole = name.translate(_PARTICLES).lower()
            # the question's words make most of the name: a few words left out (企业), never a
            # shorter name inside a longer one (`net profit` is not `net profit margin`)
            if bare in whole and len(bare) >= _COVERAGE * len(whole):
                found.add(code)
    return found.pop() if len(found) == 1 else None


_COVERAGE = 0.75
