"""The deterministic security gate.

Takes the raw question (never a parser's output) and the glossary; returns a verdict. It calls
no LLM and cannot be swapped out. It refuses when `external_mentions` finds a competitor, which
matches every alias jointly (so `中国竞安` is a competitor rather than ACME_CN) in two views of
the text:

- the normalised one the parser uses, where spacing, zero-width characters, full-width forms,
  Traditional characters and case cannot hide a competitor;
- the evasion-proof `evasion_views`, where HTML entities, percent-encoding and escapes, look-alike
  letters from Unicode's confusables table, letters styled by name (`ᴊɪɴɢᴀɴ`, `🅹🅸🅽🅶🅰🅽`), marks,
  variation selectors, blank fillers, any separator, punctuation, symbol or emoji between an
  alias's characters, bidi controls that reverse the display order, pinyin tone numbers
  (`Jing4an1`) and names written half in pinyin (`Jing安`) cannot either.

An ASCII alias must sit on a word boundary in both (`Jingan2025` names Jingan, `xjingan` does
not). `external_mentions` is public so other text (a retrieved passage) can be screened the same way.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import ahocorasick

from core.evasion.view import evasion_views, spelled_keys, spelled_view
from core.glossary import GlossarySnapshot
from core.language.matcher import AliasTarget, GlossaryMatcher, MatchView, compact_match_view
from core.language.normalize import text_normalize
from core.model.clarification import CLARIFY_OUT_OF_SCOPE_ENTITY, NarrowingOption
from core.model.intent import Match

SECURITY_ALLOW = "allow"
SECURITY_REFUSE_OUT_OF_SCOPE = CLARIFY_OUT_OF_SCOPE_ENTITY


@dataclass(frozen=True)
class SecurityVerdict:
    verdict: str
    entity: str | None = None
    message: str = ""
    narrowing_options: tuple[NarrowingOption, ...] = ()

    @property
    def refused(self) -> bool:
        return self.verdict == SECURITY_REFUSE_OUT_OF_SCOPE


_MEMO_LIMIT = 10_000


def external_mentions(text: str, glossary: GlossarySnapshot) -> tuple[str, ...]:
    """The codes of the external entities `text` names, each once, in reading order.

    Those the normalised view finds come first, then any only the evasion-proof view finds.
    Empty when `text` names none. Remembered per glossary snapshot (a new glossary version is a
    new snapshot, so an added alias is never hidden by a stale answer).
    """
    memo = glossary.mentions_memo
    found = memo.get(text)
    if found is None:
        found = _mentions_find(text, glossary)
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[text] = found
    return found


def _mentions_find(text: str, glossary: GlossarySnapshot) -> tuple[str, ...]:
    codes = [m.code for m in _external_hits(text, glossary)[1]]
    for _, hits in _gate_hits(text, glossary):
        codes.extend(m.code for m in hits)
    return tuple(dict.fromkeys(codes))


def security_screen(
    *, raw_question: str, glossary: GlossarySnapshot, language: str, scope_entity: str | None = None
) -> SecurityVerdict:
    mentioned = external_mentions(raw_question, glossary)
    external = mentioned[0] if mentioned else None
    if external is None and glossary.is_external(scope_entity):
        external = scope_entity
    if external is None:
        return SecurityVerdict(SECURITY_ALLOW)

    home_name = glossary.home_company_name or glossary.display("entity", glossary.home_entity or "", language)
    name = glossary.display("entity", external, language)
    if language == "en":
        message = (
            f"Out of scope: RAGSpine answers questions about {home_name or 'the company'} and its own "
            f"entities only, and gives no data or analysis on competitors or outside companies ({name})."
        )
    else:
        message = (
            f"超出范围：本系统只回答{home_name or '本公司'}及其下属实体的问题，"
            f"不提供竞争对手或外部公司（{name}）的数据或分析。"
        )
    options: tuple[NarrowingOption, ...] = ()
    if home_name and mentioned:
        label = f"Ask about {home_name} instead" if language == "en" else f"改问{home_name}"
        options = (NarrowingOption(label, _home_rewrite(raw_question, glossary, home_name), {}),)
    return SecurityVerdict(SECURITY_REFUSE_OUT_OF_SCOPE, external, message, options)


def _external_hits(text: str, glossary: GlossarySnapshot) -> tuple[MatchView, list[Match]]:
    view = compact_match_view(text_normalize(text))
    return view, [m for m in glossary.matcher.find_in(view) if m.external]


def _gate_hits(text: str, glossary: GlossarySnapshot) -> Iterator[tuple[MatchView, list[Match]]]:
    """Each of the gate's views of `text`, with the external aliases matched in it.

    In a view with the Chinese characters spelled in pinyin, only a hit that mixes spelled
    characters and ASCII letters as written counts (`Jing安`): `静安` is a homophone of 竞安, not
    a way of writing it, and a hit in characters or letters alone is the other views' to find.
    """
    views = evasion_views(text)
    for view in views:
        yield view, [m for m in glossary.gate_matcher.find_in(view) if m.external]
    matcher, holds_key = _spelled_matcher(glossary)
    for view in views:
        spelled = spelled_view(view, wanted=holds_key)
        if spelled is not None:
            yield spelled, [m for m in matcher.find_in(spelled) if m.external and spelled.mixes(m.start, m.end)]


# glossary snapshot id → (the snapshot, its external aliases keyed in pinyin, whether a text
# holds one of those keys); built on first use, forgotten with the snapshot. It belongs beside
# `GlossarySnapshot.gate_matcher`.
_SPELLED: dict[int, tuple[weakref.ref[GlossarySnapshot], GlossaryMatcher, Callable[[str], bool]]] = {}


def _spelled_matcher(glossary: GlossarySnapshot) -> tuple[GlossaryMatcher, Callable[[str], bool]]:
    """The external aliases of `glossary` keyed by each of their pinyin spellings (`spelled_keys`),
    and whether a text holds any of those keys at all, boundaries aside (if not, there is nothing
    to match). Only external aliases: a home alias written half in pinyin that holds a
    competitor's name is refused, erring towards refusing, and spelling every alias of a large
    glossary would cost seconds.
    """
    known = _SPELLED.get(id(glossary))
    if known is not None and known[0]() is glossary:
        return known[1], known[2]
    pairs = [(key, target) for text, target in _external_aliases(glossary) for key in spelled_keys(text)]
    matcher = GlossaryMatcher(pairs, key=str, prefer_external=True)
    keys = ahocorasick.Automaton()
    for key, _ in pairs:
        keys.add_word(key, key)
    if pairs:
        keys.make_automaton()

    def holds_key(text: str) -> bool:
        return bool(pairs) and next(keys.iter(text), None) is not None

    key = id(glossary)
    _SPELLED[key] = (weakref.ref(glossary, lambda _: _SPELLED.pop(key, None)), matcher, holds_key)
    return matcher, holds_key


def _external_aliases(glossary: GlossarySnapshot) -> Iterator[tuple[str, AliasTarget]]:
    """The code, name and aliases of every external entity of `glossary`, with its target."""
    for code in glossary.entities:
        if glossary.is_external(code):
            target = AliasTarget("entity", code, external=True)
            for text in (code, *glossary.aliases_of("entity", code)):
                yield text, target


def _home_rewrite(raw_question: str, glossary: GlossarySnapshot, home_name: str) -> str:
    """The question with every competitor it names replaced by the home company's name."""
    view, hits = _external_hits(raw_question, glossary)
    if not hits:
        view, hits = next(((v, h) for v, h in _gate_hits(raw_question, glossary) if h), (view, hits))
    out = view.text
    for match in sorted(hits, key=lambda m: m.start, reverse=True):
        first, last = view.sources[match.start], view.sources[match.end - 1] + 1
        out = out[:first] + home_name + out[last:]
    return out
