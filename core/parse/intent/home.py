"""The home entity named by the bare head noun of its own name.

Takes the question, its normalised form, the glossary hits with their spans and the spans every
other reader took (periods, cues); returns the hits with the home entity added wherever a head
noun of its names stands alone: `Group` of `ACME Group` (`Group revenue`, `the group's`,
`group-wide`), `集团` of `ACME集团` (`集团营收`, `本集团`, `全集团`).

The head of a name is read from the glossary, never listed: the last word of an English name,
the organisation noun a Chinese name ends with (`ORGANISATION_NOUNS`, the tokenizer's own).
Invariants:

- a head names the home entity only when no other in-scope entity's names have it (`ACME Group`
  beside a peer `Foo Group`: `Group` names neither); an external entity's names never count, nor
  are they ever named by a head;
- a hit of the glossary's own always wins: a metric alias that holds the word (`集团内部交易`,
  `intra-group sales`) is the metric, a longer entity name (`Foo Group`) its entity;
- a head inside a longer name (`peer group`, `Tencent Group`, `腾讯集团`, `Group Holdings`), right
  after another entity, or counted (`each group`, `which group`, `两家集团`, `各集团`) names nothing.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.model.intent import Match
from core.parse.intent.latin import LATIN, NOT_A_TERM, Span, latin_tokens, taken_mask
from core.parse.intent.tokens import GENERIC_WORDS, ORGANISATION_NOUNS, UNKNOWN, Word, words_read

__all__ = ["home_head_spans", "home_heads", "home_heads_add", "name_head"]

Hit = tuple[Match, Span]

# Words that count or pick among several (`each group`, `两家集团`, `各集团`, `哪家公司`): the head
# after them is a kind of thing, not the home entity.
_PICKING_EN = frozenset(
    {
        *("a", "an", "any", "another", "other", "others", "each", "every", "which", "whichever", "what", "some"),
        *("several", "many", "both", "either", "neither", "all", "one", "two", "three", "four", "five", "per", "no"),
    }
)
_PICKING_ZH = tuple("各每哪其另别诸某")
# What stands before a Chinese head and still says the home entity: this (本集团), all of it (全集团).
_OWN_ZH = ("本", "全")
# What makes an English head an adjective of the whole (`group-wide`, `group-level`).
_WHOLE_EN = ("wide", "level")


def name_head(name: str) -> str | None:
    """The head noun of one name, normalised: the last word of an English name (`ACME Group` →
    `group`), the organisation noun a Chinese name ends with (`ACME集团` → `集团`), else None.

    A name of one word is its own head: the glossary matches it whole anyway, and it still
    counts against another entity's head (`China` of a subsidiary against `Bank of China`)."""
    text = "".join(text_normalize(name).split())
    if text[-1:].isascii():
        words = LATIN.findall(text_normalize(name))
        return words[-1] if words else None
    ends = [noun for noun in ORGANISATION_NOUNS if text.endswith(noun) and not noun.startswith(_OWN_ZH)]
    return max(ends, key=len) if ends else None


# The heads of each live snapshot, read once: a question is parsed several times over (typos, a
# moved question word), and a curated glossary may hold thousands of names. Keyed by identity (a
# snapshot is no hashable value), dropped when the snapshot is.
_heads_memo: dict[int, tuple[weakref.ref[GlossarySnapshot], frozenset[str]]] = {}


def home_heads(glossary: GlossarySnapshot) -> frozenset[str]:
    """The heads of the home entity's names that no other in-scope entity's names have."""
    key = id(glossary)
    kept = _heads_memo.get(key)
    if kept is not None and kept[0]() is glossary:
        return kept[1]
    heads = _heads_read(glossary)
    _heads_memo[key] = (weakref.ref(glossary, lambda _: _heads_memo.pop(key, None)), heads)
    return heads


def _heads_read(glossary: GlossarySnapshot) -> frozenset[str]:
    home = glossary.home_entity
    if home is None:
        return frozenset()
    owners: dict[str, set[str]] = {}
    for info in glossary.in_scope_entities():
        for name in glossary.aliases_of("entity", info.code):
            head = name_head(name)
            if head is not None:
                owners.setdefault(head, set()).add(info.code)
    return frozenset(head for head, codes in owners.items() if codes == {home})


def home_heads_add(
    question: str,
    normalized: str,
    matches: Sequence[Match],
    spans: Sequence[Span],
    taken: Sequence[Span],
    glossary: GlossarySnapshot,
) -> tuple[list[Match], list[Span]]:
    """`matches` and their `spans` with a hit of the home entity at each bare head, in reading order."""
    heads = home_heads(glossary)
    home = glossary.home_entity
    if not heads or home is None:
        return list(matches), list(spans)
    entity_ends = {end for m, (_, end) in zip(matches, spans, strict=True) if m.kind == "entity"}
    found = _heads_found(question, normalized, heads, [*spans, *taken], entity_ends)
    if not found:
        return list(matches), list(spans)
    _, positions = compact_view(normalized)
    compact = {at: i for i, at in enumerate(positions)}
    hits: list[Hit] = list(zip(matches, spans, strict=True))
    for start, end in found:
        match = Match("entity", home, compact[start], compact[end - 1] + 1, normalized[start:end], False)
        hits.append((match, (start, end)))
    hits.sort(key=lambda hit: hit[1][0])
    return [m for m, _ in hits], [span for _, span in hits]


def home_head_spans(question: str, normalized: str, glossary: GlossarySnapshot, taken: Sequence[Span]) -> list[Span]:
    """The spans of the bare heads that name the home entity, around the glossary's own hits and
    `taken` (for a reader that matches the glossary on its own)."""
    heads = home_heads(glossary)
    if not heads:
        return []
    _, positions = compact_view(normalized)
    hits = [(m, (positions[m.start], positions[m.end - 1] + 1)) for m in glossary.match(normalized)]
    entity_ends = {end for m, (_, end) in hits if m.kind == "entity"}
    return _heads_found(question, normalized, heads, [*(span for _, span in hits), *taken], entity_ends)


def _heads_found(
    question: str, normalized: str, heads: frozenset[str], taken: Sequence[Span], entity_ends: set[int]
) -> list[Span]:
    english = {head for head in heads if head.isascii()}
    chinese = heads - english
    found: list[Span] = []
    if english and LATIN.search(normalized):
        found += _english_heads(question, normalized, english, taken, entity_ends)
    if chinese:
        found += _chinese_heads(normalized, chinese, taken, entity_ends)
    return sorted(found)


def _english_heads(
    question: str, normalized: str, heads: set[str], taken: Sequence[Span], entity_ends: set[int]
) -> list[Span]:
    mask = taken_mask(len(normalized), taken)
    tokens = latin_tokens(question, normalized)
    found: list[Span] = []
    for i, (start, end, word) in enumerate(tokens):
        if word.lower() not in heads or any(mask[start:end]):
            continue
        before = tokens[i - 1] if i > 0 and normalized[tokens[i - 1][1] : start] in (" ", "-") else None
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        after_an_entity = len(normalized[:start].rstrip()) in entity_ends
        if after_an_entity or (before is not None and _opens_a_longer_name(before, mask)):
            continue  # `Hong Kong group`; `peer group`, `Tencent Group`, `each group`
        if after is not None and normalized[end : after[0]] == "-" and after[2].lower() in _WHOLE_EN:
            end = after[1]  # `group-wide`
        elif after is not None and normalized[end : after[0]] == " " and _continues_a_name(after, mask):
            continue  # `Group Holdings`
        found.append((start, end))
    return found


def _opens_a_longer_name(token: tuple[int, int, str], mask: list[bool]) -> bool:
    """Whether the Latin word right before a head makes it part of something else: a content word
    nothing reads (`peer group`, `Tencent Group`) or a word that counts or picks (`each group`)."""
    start, end, word = token
    if word.lower() in _PICKING_EN:
        return True
    return not any(mask[start:end]) and word.lower() not in NOT_A_TERM and not word.isdigit()


def _continues_a_name(token: tuple[int, int, str], mask: list[bool]) -> bool:
    start, end, word = token
    capitalised = word[:1].isupper() and not word.isupper()
    return capitalised and not any(mask[start:end]) and word.lower() not in NOT_A_TERM


def _chinese_heads(normalized: str, heads: set[str], taken: Sequence[Span], entity_ends: set[int]) -> list[Span]:
    words = words_read(normalized, taken)
    found: list[Span] = []
    for i, word in enumerate(words):
        head = next((h for h in heads if word.text == h or (word.text[1:] == h and word.text[0] in _OWN_ZH)), None)
        if head is None:
            continue
        before = words[i - 1] if i > 0 and words[i - 1].end == word.start else None
        if word.start in entity_ends or (before is not None and _opens_a_chinese_name(before)):
            continue  # `香港集团`, `腾讯集团`, `各集团`, `两家集团`
        found.append((word.start, word.end))
    return found


def _opens_a_chinese_name(word: Word) -> bool:
    """Whether the word right before a Chinese head makes it part of something else: content
    (腾讯 of 腾讯集团), or a word that counts or picks (各, 哪家, 两家)."""
    if word.text.startswith(_PICKING_ZH) or word.tag.startswith(("m", "q")):
        return True
    if word.text in GENERIC_WORDS:
        return False
    return word.kind == UNKNOWN or word.tag.startswith("b")
