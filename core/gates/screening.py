"""Screening of retrieved text: competitors and instructions aimed at a model.

The security gate refuses a question that names a competitor. A question that names none can
still retrieve passages about one (an industry weekly discusses everybody), so every retrieved
passage passes the same gate before it reaches reranking, synthesis, find_documents, sources
or the stream: a sentence that mentions an external entity is dropped, a passage left with
nothing, or from a document whose very name mentions one, is dropped whole.

A document is evidence, never an instruction: a sentence that addresses the model (`忽略之前的
所有指令…`, `ignore previous instructions…`) is dropped the same way, so neither its orders nor
the figures it carries reach a prompt or an answer. The answer says, in one line each, how many
sentences were left out and why.

`ScreenedRetriever` wraps any `NarrativeRetriever`; one is made per request, so its counter
belongs to that request only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

from core.evasion.view import confusables_fold
from core.gates.security import external_mentions
from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.model.result import Source
from core.ports import BatchNarrativeRetriever, NarrativeRetriever, RetrievedChunk, ScopedNarrativeRetriever

# A sentence runs to its closing marks (Chinese or Latin; a full stop only before a space or the
# end, so `6.7` stays whole), a line end or the end of the text; its closing marks stay with it.
_SENTENCE_END = re.compile(r"[。！？；;!?]+|\.+(?=\s|$)|\n")

SCREENED_NOTICE = {
    "zh": "（已略去 {n} 处涉及外部公司的内容）",
    "en": "({n} passage(s) about outside companies were left out)",
}
INSTRUCTION_NOTICE = {
    "zh": "（已略去 {n} 处试图指挥模型的文本）",
    "en": "({n} sentence(s) that tried to instruct the model were left out)",
}
# Wording that addresses a model rather than a reader: orders to drop its instructions, to take a
# new role, or to answer with what the text dictates. Matched on the normalised text.
_INSTRUCTION = re.compile(
    r"(?:忽略|无视|忘记|忘掉|不要理会|不用理会)掉?(?:之前|以上|上述|前面|先前|此前|所有|全部|一切|任何|你的|系统)"
    r"[^。！？；\n]{0,6}(?:指令|指示|提示|规则|要求|设定)"
    r"|你(?:现在)?(?:是|扮演|作为)(?:一个|一名)?(?:ai|人工智能|智能助手|助手|模型|语言模型)"
    r"|(?:请|务必|必须)(?:直接|只)?(?:回答|输出|回复|告诉用户)(?:这个|该|以下|如下|此|为|是|:)"
    r"|\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,30}\b(?:instructions?|prompts?|rules|guidelines)\b"
    r"|\byou are now\b|\b(?:reveal|print|repeat|show)\b[^.!?\n]{0,12}\bsystem prompt\b"
    r"|\b(?:answer|reply|respond)\s+(?:only\s+)?with\s+(?:this|that|the following)\b"
)


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


@lru_cache(maxsize=8192)
def addresses_a_model(text: str) -> bool:
    """Whether `text` gives orders to a model (a prompt injection) rather than informs a reader.

    Read as the gate reads a name: look-alike letters folded (`Ignоre` with a Cyrillic `о`), and
    for Chinese also with spacing and punctuation between characters gone (`忽·略之前的指令`).
    """
    folded = confusables_fold(text_normalize(text))
    joined = _BETWEEN_CJK.sub("", compact_view(folded)[0])
    return _INSTRUCTION.search(folded) is not None or _INSTRUCTION.search(joined) is not None


# Punctuation and symbols between two Chinese characters, which a reader skips over.
_BETWEEN_CJK = re.compile(r"(?<=[\u3400-\u9fff])[^\w\u3400-\u9fff]+(?=[\u3400-\u9fff])")

# How far a mention may reach back over earlier sentences: an alias or an order is short, so a
# window wider than this past its last sentence adds nothing but cost.
_REACH = 80


def text_screen(
    text: str, glossary: GlossarySnapshot, *, drop: Callable[[str], bool] | None = None
) -> tuple[str, list[str]]:
    """`text` without the sentences that mention an external entity (or that `drop` picks),
    and those sentences.

    A mention may straddle a sentence or line break (`竞\n安`, an order split over two lines):
    every run of sentences whose joined text holds a mention that none of its shorter runs holds
    is dropped whole.
    """

    def found(piece: str) -> frozenset[object]:
        if drop is None:
            return frozenset(external_mentions(piece, glossary))
        return frozenset((True,)) if drop(piece) else frozenset()

    if not found(text):
        return text, []
    sentences = sentences_split(text)
    flagged = [bool(found(sentence)) for sentence in sentences]
    for last in range(1, len(sentences)):
        window = sentences[last]
        for first in range(last - 1, -1, -1):
            shorter = window
            window = sentences[first] + window
            if len(window) - len(sentences[last]) > _REACH + len(sentences[first]):
                break
            # Only what needs both ends of the run: not in the run without its first or last sentence.
            if found(window) - found(shorter) - found("".join(sentences[first:last])):
                flagged[first : last + 1] = [True] * (last + 1 - first)
                break
    kept: list[str] = []
    dropped: list[str] = []
    line_emptied = False  # the current line lost every sentence it had
    for sentence, unwanted in zip(sentences, flagged, strict=True):
        if unwanted:
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
        self._instructions: set[tuple[str, str]] = set()
        self._screened: dict[tuple[str, str, str], str] = {}

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        return self._kept(self._inner.retrieve(query, cleared=cleared, k=k))

    def retrieve_many(self, queries: Sequence[str], *, cleared: bool, k: int = 8) -> list[list[RetrievedChunk]]:
        if isinstance(self._inner, BatchNarrativeRetriever):
            found = self._inner.retrieve_many(queries, cleared=cleared, k=k)
        else:
            found = [self._inner.retrieve(query, cleared=cleared, k=k) for query in queries]
        return [self._kept(chunks) for chunks in found]

    def retrieve_within(
        self, queries: Sequence[str], *, entities: frozenset[str], cleared: bool, k: int = 8
    ) -> list[list[RetrievedChunk]]:
        """The inner retriever's passages within the scope, screened; from one that cannot scope,
        none (so the caller searches everything, and the route labels what is about another entity)."""
        if not isinstance(self._inner, ScopedNarrativeRetriever):
            return [[] for _ in queries]
        found = self._inner.retrieve_within(queries, entities=entities, cleared=cleared, k=k)
        return [self._kept(chunks) for chunks in found]

    def _kept(self, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
        kept: list[RetrievedChunk] = []
        for chunk in chunks:
            if self._glossary.is_external(chunk.issuer):  # a competitor's own report, named or not
                self._dropped.add((chunk.doc, ""))
                continue
            text = self._screen(chunk.doc, chunk.text, chunk.locator)
            if text:
                kept.append(replace(chunk, text=text))
        return kept

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        kept: list[Source] = []
        for source in self._inner.documents_find(query, cleared=cleared, k=k):
            snippet = self._screen(source.doc, source.snippet, source.locator)
            if snippet:
                kept.append(replace(source, snippet=snippet))
        return kept

    @property
    def screened(self) -> int:
        """How many distinct passages or sentences this request left out."""
        return len(self._dropped)

    @property
    def instructions(self) -> int:
        """How many distinct sentences addressed to a model this request left out."""
        return len(self._instructions)

    def notice(self, language: str) -> str:
        lines = []
        if self.screened:
            lines.append(SCREENED_NOTICE[language].format(n=self.screened))
        if self.instructions:
            lines.append(INSTRUCTION_NOTICE[language].format(n=self.instructions))
        return "\n".join(lines)

    def _screen(self, doc: str, text: str, locator: str = "") -> str:
        key = (doc, locator, text)
        if key not in self._screened:
            self._screened[key] = self._screen_once(doc, text, locator)
        return self._screened[key]

    def _screen_once(self, doc: str, text: str, locator: str) -> str:
        # The name and the locator (a section heading is part of it) are shown with every
        # citation: naming a competitor or giving orders there drops the passage whole.
        label = f"{doc}\n{locator}"
        if external_mentions(label, self._glossary):
            self._dropped.add((label, ""))
            return ""
        if addresses_a_model(label):
            self._instructions.add((label, ""))
            return ""
        kept, dropped = text_screen(text, self._glossary)
        self._dropped |= {(doc, sentence.strip()) for sentence in dropped}
        kept, orders = text_screen(kept, self._glossary, drop=addresses_a_model)
        self._instructions |= {(doc, sentence.strip()) for sentence in orders}
        return kept
