"""The deterministic security gate (SPEC §1.4, §4).

Takes the raw question (never a parser's output) and the glossary; returns a verdict. It calls
no LLM and cannot be swapped out. It refuses when `external_mentions` finds a competitor, which
matches every alias jointly (so `中国竞安` is a competitor rather than ACME_CN) in two views of
the text:

- the normalised one the parser uses, where spacing, zero-width characters, full-width forms,
  Traditional characters and case cannot hide a competitor;
- the evasion-proof `gate_view`, where HTML entities, look-alike letters from Unicode's
  confusables table, marks, variation selectors, blank fillers and any separator, punctuation,
  symbol or emoji between an alias's characters cannot either.

An ASCII alias must sit on a word boundary in both (`Jingan2025` names Jingan, `xjingan` does
not). `external_mentions` is public so other text (a retrieved passage) can be screened the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from .glossary import GlossarySnapshot
from .matcher import MatchView, compact_match_view
from .normalize import text_normalize
from .types import CLARIFY_OUT_OF_SCOPE_ENTITY, Match, NarrowingOption

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
    _, gate_hits = glossary.gate_match(text)
    codes.extend(m.code for m in gate_hits if m.external)
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


def _home_rewrite(raw_question: str, glossary: GlossarySnapshot, home_name: str) -> str:
    """The question with every competitor it names replaced by the home company's name."""
    view, hits = _external_hits(raw_question, glossary)
    if not hits:
        view, gate_hits = glossary.gate_match(raw_question)
        hits = [m for m in gate_hits if m.external]
    out = view.text
    for match in sorted(hits, key=lambda m: m.start, reverse=True):
        first, last = view.sources[match.start], view.sources[match.end - 1] + 1
        out = out[:first] + home_name + out[last:]
    return out
