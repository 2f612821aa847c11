"""Joint glossary matching over an Aho–Corasick automaton.

Takes normalised text (or a ready `MatchView`); returns the glossary hits chosen longest-leftmost
and non-overlapping across every kind at once (entity, external entity, metric, channel), so a
span taken by one match is never reused: the `门店` in `新开门店数` is not a channel and the
`中国` in `中国竞安` is not ACME_CN. Matching runs on a view of the text (by default the
whitespace-free one, so `竞 安` is `竞安`); an alias that starts or ends with an ASCII letter or
digit must sit on a word boundary of the text as written, where a space or a dropped separator
between two characters, or a letter meeting a digit, is a boundary: `HK` is found in `HK2025`
but not inside `HKEX`, nor `SEA` inside `research`.

A metric's name tolerates function words: `find` also matches metric aliases in a view
where the characters of `FUNCTION_CHARACTERS` are dropped from both the alias and the text, so
`归属于母公司所有者的净利润` is the alias `归属母公司所有者净利润`. The hit's span is the text as
written (never starting or ending on a dropped character), and it competes with every other hit
for longest-leftmost, so `净利润` inside the long name never wins. Entities and channels stay
exact: `于` is also a surname, and `于氏` must not be found in `李氏`. `find_in`, the security
gate's entry, matches exact keys only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

import ahocorasick

from core.language.normalize import ascii_word_continues, compact_view, is_ascii_word_char, text_normalize
from core.model.intent import Match

# The structural particle 的, its literary form 之 and the preposition 于 (归属于, 之净利润) join the
# words of a metric's name without adding meaning. 地/得 are content characters in names (地区),
# and 与/和/及 join *two* metrics in a question (营收和毛利率), so they stay.
FUNCTION_CHARACTERS = frozenset("的之于")
TOLERANT_KINDS = ("metric",)


def function_words_drop(text: str) -> str:
    """`text` without the characters of `FUNCTION_CHARACTERS`."""
    return "".join(ch for ch in text if ch not in FUNCTION_CHARACTERS)


@dataclass(frozen=True)
class AliasTarget:
    kind: str
    code: str
    external: bool = False


def _is_space(ch: str) -> bool:
    return ch == " "


@dataclass(frozen=True)
class MatchView:
    """The characters the automaton runs over, taken from `text`.

    `sources[i]` is the index in `text` that `chars[i]` came from. The text as written breaks
    between two characters when one of the characters of `text` dropped between them is
    `breaking` (a space, or a separator); both ends of the text are breaks.
    """

    text: str
    chars: str
    sources: tuple[int, ...]
    breaking: Callable[[str], bool] = _is_space

    def broken_before(self, index: int) -> bool:
        if index <= 0 or index >= len(self.chars):
            return True
        return any(map(self.breaking, self.text[self.sources[index - 1] + 1 : self.sources[index]]))


class AliasConflict(ValueError):
    """One alias text would point at two different codes."""


def compact_key(text: str) -> str:
    """The default key of an alias: normalised, whitespace-free."""
    key, _ = compact_view(text_normalize(text))
    return key


def compact_match_view(normalized: str) -> MatchView:
    """The whitespace-free view of normalised text, with a break wherever a space was."""
    chars, positions = compact_view(normalized)
    return MatchView(normalized, chars, tuple(positions))


class GlossaryMatcher:
    """An automaton over alias keys.

    `key` turns an alias into the form it is matched in; the text must be viewed the same way.
    Two aliases with one key and two targets raise `AliasConflict`, unless `prefer_external`
    is set, when the external target is kept (the security gate's view folds look-alikes
    together, and there a collision must err towards refusing).
    """

    def __init__(
        self,
        aliases: Iterable[tuple[str, AliasTarget]],
        *,
        key: Callable[[str], str] = compact_key,
        prefer_external: bool = False,
        tolerant_kinds: Collection[str] = TOLERANT_KINDS,
    ):
        self._key = key
        self._tolerant_kinds = frozenset(tolerant_kinds)
        self._tolerant: ahocorasick.Automaton | None = None
        self._tolerant_targets: dict[str, AliasTarget] | None = None
        self._tolerant_differs = False  # some tolerant key is not its exact key
        self._automaton = ahocorasick.Automaton()
        self._targets: dict[str, AliasTarget] = {}
        for text, target in aliases:
            alias = key(text)
            if not alias:
                continue
            known = self._targets.get(alias)
            if known is not None and known != target:
                if not prefer_external:
                    raise AliasConflict(
                        f"alias '{text}' points at both {known.kind} {known.code} and {target.kind} {target.code}"
                    )
                if known.external or not target.external:
                    continue
            self._targets[alias] = target
        for alias, target in self._targets.items():
            self._automaton.add_word(alias, (alias, target))
        if self._targets:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        return len(self._targets)

    def lookup(self, text: str) -> AliasTarget | None:
        """The target of an alias given on its own (a tool argument, a scope value)."""
        key = self._key(text)
        exact = self._targets.get(key)
        if exact is not None or not self._tolerant_kinds:
            return exact
        return self._tolerant_index()[1].get(function_words_drop(key))

    def find(self, normalized: str) -> list[Match]:
        """All chosen matches in already-normalised text, in reading order (metrics tolerate
        function words)."""
        if not self._targets or not normalized:
            return []
        view = compact_match_view(normalized)
        return self._choose(view, [*self._candidates(view), *self._tolerant_candidates(view)])

    def find_in(self, view: MatchView) -> list[Match]:
        """All chosen matches of exact keys in a view of a text, in reading order; spans index
        `view.chars`."""
        if not self._targets or not view.chars:
            return []
        return self._choose(view, self._candidates(view))

    def _candidates(self, view: MatchView) -> list[tuple[int, int, int, str, AliasTarget]]:
        found = []
        for end_index, (key, target) in self._automaton.iter(view.chars):
            start = end_index - len(key) + 1
            end = end_index + 1
            if self._on_word_boundary(view, start, end, key):
                found.append((start, end, 0, key, target))
        return found

    def _tolerant_candidates(self, view: MatchView) -> list[tuple[int, int, int, str, AliasTarget]]:
        """Hits of the tolerant keys in the view without function words, mapped back to `view`."""
        automaton, targets = self._tolerant_index()
        if not targets:
            return []
        sources = [i for i, ch in enumerate(view.chars) if ch not in FUNCTION_CHARACTERS]
        if len(sources) == len(view.chars) and not self._tolerant_differs:
            return []  # no function word on either side: the exact pass has found everything
        chars = "".join(view.chars[i] for i in sources)
        found = []
        for end_index, (key, target) in automaton.iter(chars):
            start = sources[end_index - len(key) + 1]
            end = sources[end_index] + 1
            if self._on_word_boundary(view, start, end, key):
                found.append((start, end, 1, view.chars[start:end], target))
        return found

    def _tolerant_index(self) -> tuple[ahocorasick.Automaton, dict[str, AliasTarget]]:
        """The tolerant keys of the tolerant kinds, built on first use (the gate never asks).

        A tolerant key shared by two targets is dropped: each keeps its exact match.
        """
        if self._tolerant is None or self._tolerant_targets is None:
            targets: dict[str, AliasTarget] = {}
            shared: set[str] = set()
            differs = False
            for alias, target in self._targets.items():
                if target.kind not in self._tolerant_kinds:
                    continue
                key = function_words_drop(alias)
                differs = differs or key != alias
                if not key:
                    continue
                if targets.get(key, target) != target:
                    shared.add(key)
                targets[key] = target
            for key in shared:
                del targets[key]
            automaton = ahocorasick.Automaton()
            for key, target in targets.items():
                automaton.add_word(key, (key, target))
            if targets:
                automaton.make_automaton()
            self._tolerant_differs = differs
            self._tolerant, self._tolerant_targets = automaton, targets
        return self._tolerant, self._tolerant_targets

    @staticmethod
    def _choose(view: MatchView, candidates: list[tuple[int, int, int, str, AliasTarget]]) -> list[Match]:
        """Longest-leftmost, non-overlapping; at one span an exact hit comes before a tolerant one."""
        candidates.sort(key=lambda c: (c[0], -(c[1] - c[0]), c[2]))
        chosen: list[Match] = []
        taken_until = 0
        for start, end, _, text, target in candidates:
            if start < taken_until:
                continue
            chosen.append(Match(target.kind, target.code, start, end, text, target.external))
            taken_until = end
        return chosen

    @staticmethod
    def _on_word_boundary(view: MatchView, start: int, end: int, key: str) -> bool:
        chars = view.chars
        glued_before = start > 0 and ascii_word_continues(chars[start - 1], key[0])
        if is_ascii_word_char(key[0]) and glued_before and not view.broken_before(start):
            return False
        glued_after = end < len(chars) and ascii_word_continues(key[-1], chars[end])
        return not (is_ascii_word_char(key[-1]) and glued_after and not view.broken_before(end))
