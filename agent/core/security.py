"""The deterministic security gate (SPEC §1.4, §4).

Takes the raw question (never a parser's output) and the glossary; returns a verdict. It
normalises the question itself and matches every alias jointly, so spacing, zero-width
characters, full-width forms, Traditional characters and case cannot hide a competitor, and
`中国竞安` is a competitor rather than ACME_CN. It calls no LLM and cannot be swapped out.
"""

from __future__ import annotations

from dataclasses import dataclass

from .glossary import GlossarySnapshot
from .normalize import compact_view, text_normalize
from .types import CLARIFY_OUT_OF_SCOPE_ENTITY, NarrowingOption

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


def external_mentions(text: str, glossary: GlossarySnapshot) -> tuple[str, ...]:
    """The codes of the external entities that `text` mentions, in reading order."""
    codes: list[str] = []
    for match in glossary.match(text_normalize(text)):
        if match.external and match.code not in codes:
            codes.append(match.code)
    return tuple(codes)


def security_screen(
    *, raw_question: str, glossary: GlossarySnapshot, language: str, scope_entity: str | None = None
) -> SecurityVerdict:
    normalized = text_normalize(raw_question)
    _, positions = compact_view(normalized)
    hits = [m for m in glossary.match(normalized) if m.external]
    external = hits[0].code if hits else None
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
    if home_name and hits:
        rewritten = _replace_spans(normalized, positions, [(m.start, m.end) for m in hits], home_name)
        label = f"Ask about {home_name} instead" if language == "en" else f"改问{home_name}"
        options = (NarrowingOption(label, rewritten, {}),)
    return SecurityVerdict(SECURITY_REFUSE_OUT_OF_SCOPE, external, message, options)


def _replace_spans(normalized: str, positions: list[int], spans: list[tuple[int, int]], text: str) -> str:
    out = normalized
    for start, end in sorted(spans, reverse=True):
        first, last = positions[start], positions[end - 1] + 1
        out = out[:first] + text + out[last:]
    return out
