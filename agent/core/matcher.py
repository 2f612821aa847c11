"""Joint glossary matching over an Aho–Corasick automaton (SPEC §5).

Takes normalised text; returns the glossary hits chosen longest-leftmost and non-overlapping
across every kind at once (entity, external entity, metric, channel), so a span taken by one
match is never reused: the `门店` in `新开门店数` is not a channel and the `中国` in `中国竞安`
is not ACME_CN. Matching runs on the whitespace-free view (`竞 安` is `竞安`); an alias that
starts or ends with an ASCII letter or digit must sit on a word boundary of the text as
written, so `HK` is not found inside `HKEX`, nor `SEA` inside `research`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick

from .normalize import compact_view, is_ascii_word_char, text_normalize
from .types import Match


@dataclass(frozen=True)
class AliasTarget:
    kind: str
    code: str
    external: bool = False


class AliasConflict(ValueError):
    """One alias text would point at two different codes."""


class GlossaryMatcher:
    def __init__(self, aliases: Iterable[tuple[str, AliasTarget]]):
        self._automaton = ahocorasick.Automaton()
        self._targets: dict[str, AliasTarget] = {}
        for text, target in aliases:
            key, _ = compact_view(text_normalize(text))
            if not key:
                continue
            known = self._targets.get(key)
            if known is not None and known != target:
                raise AliasConflict(
                    f"alias '{text}' points at both {known.kind} {known.code} and {target.kind} {target.code}"
                )
            self._targets[key] = target
        for key, target in self._targets.items():
            self._automaton.add_word(key, (key, target))
        if self._targets:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        return len(self._targets)

    def lookup(self, text: str) -> AliasTarget | None:
        """The target of an alias given on its own (a tool argument, a scope value)."""
        key, _ = compact_view(text_normalize(text))
        return self._targets.get(key)

    def find(self, normalized: str) -> list[Match]:
        """All chosen matches in already-normalised text, in reading order."""
        if not self._targets or not normalized:
            return []
        compact, positions = compact_view(normalized)
        candidates: list[tuple[int, int, str, AliasTarget]] = []
        for end_index, (key, target) in self._automaton.iter(compact):
            start = end_index - len(key) + 1
            end = end_index + 1
            if self._on_word_boundary(normalized, positions, start, end, key):
                candidates.append((start, end, key, target))
        candidates.sort(key=lambda c: (c[0], -(c[1] - c[0])))
        chosen: list[Match] = []
        taken_until = 0
        for start, end, key, target in candidates:
            if start < taken_until:
                continue
            chosen.append(Match(target.kind, target.code, start, end, key, target.external))
            taken_until = end
        return chosen

    @staticmethod
    def _on_word_boundary(normalized: str, positions: list[int], start: int, end: int, key: str) -> bool:
        if is_ascii_word_char(key[0]):
            before = positions[start] - 1
            if before >= 0 and is_ascii_word_char(normalized[before]):
                return False
        if is_ascii_word_char(key[-1]):
            after = positions[end - 1] + 1
            if after < len(normalized) and is_ascii_word_char(normalized[after]):
                return False
        return True
