"""Competitor screening of retrieved text (SPEC §1, §3: external entities are out of scope).

The security gate refuses a question that names a competitor. A question that names none can
still retrieve passages about one (an industry weekly discusses everybody), so every retrieved
passage passes the same gate before it reaches reranking, synthesis, find_documents, sources
or the stream: a sentence that mentions an external entity is dropped, a passage left with
nothing, or from a document whose very name mentions one, is dropped whole. The answer then
says, in one line, how many were left out.

`ScreenedRetriever` wraps any `NarrativeRetriever`; one is made per request, so its counter
belongs to that request only.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .glossary import GlossarySnapshot
from .ports import NarrativeRetriever, RetrievedChunk
from .security import external_mentions
from .types import Source

# A sentence runs to its closing marks (Chinese or Latin; a full stop only before a space or the
# end, so `6.7` stays whole), a line end or the end of the text; its closing marks stay with it.
_SENTENCE_END = re.compile(r"[。！？；;!?]+|\.+(?=\s|$)|\n")

SCREENED_NOTICE = {
    "zh": "（已略去 {n} 处涉及外部公司的内容）",
    "en": "({n} passage(s) about outside companies were left out)",
}


def sentences_split(text: str) -> list[str]:
    """The sentences of `text`, each with its closing mark; joined they give `text` back."""
    pieces: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        pieces.append(text[start : end.end()])
        start = end.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def text_screen(text: str, glossary: GlossarySnapshot) -> tuple[str, list[str]]:
    """`text` without the sentences that mention an external entity, and those sentences."""
    if not external_mentions(text, glossary):
        return text, []
    kept: list[str] = []
    dropped: list[str] = []
    line_emptied = False  # the current line lost every sentence it had
    for sentence in sentences_split(text):
        if external_mentions(sentence, glossary):
            dropped.append(sentence)
            line_emptied = not kept or kept[-1].endswith("\n")
            if sentence.endswith("\n") and not line_emptied:
                kept.append("\n")
            continue
        if sentence == "\n" and line_emptied:
            line_emptied = False
            continue
        kept.append(sentence)
        line_emptied = False
    return "".join(kept).strip(), dropped


class ScreenedRetriever:
    """A retriever whose passages and snippets never mention an external entity."""

    def __init__(self, inner: NarrativeRetriever, glossary: GlossarySnapshot):
        self._inner = inner
        self._glossary = glossary
        self._dropped: set[tuple[str, str]] = set()

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        kept: list[RetrievedChunk] = []
        for chunk in self._inner.retrieve(query, cleared=cleared, k=k):
            text = self._screen(chunk.doc, chunk.text)
            if text:
                kept.append(replace(chunk, text=text))
        return kept

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        kept: list[Source] = []
        for source in self._inner.documents_find(query, cleared=cleared, k=k):
            snippet = self._screen(source.doc, source.snippet)
            if snippet:
                kept.append(replace(source, snippet=snippet))
        return kept

    @property
    def screened(self) -> int:
        """How many distinct passages or sentences this request left out."""
        return len(self._dropped)

    def notice(self, language: str) -> str:
        return SCREENED_NOTICE[language].format(n=self.screened) if self.screened else ""

    def _screen(self, doc: str, text: str) -> str:
        if external_mentions(doc, self._glossary):
            self._dropped.add((doc, ""))
            return ""
        kept, dropped = text_screen(text, self._glossary)
        self._dropped |= {(doc, sentence.strip()) for sentence in dropped}
        return kept
