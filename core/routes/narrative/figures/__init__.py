"""Figures stated in documents: a how-much question about a term no metric holds.

Takes the parsed intent of a question the clarifier would ask back for its metric (`退货率是多少`:
no metric holds 退货率), the screened retriever and the user's clearance; returns the sentence(s)
that state a figure for the term, cited and labelled as a document's figure, or says no passage
states it (the metric ask-back's options still offered). None when the question names no term.

- **The term** is what the question says beside its slots (entity, channel, period), its asking
  words (`多少`, `what was`) and its operator (`涨了多少`); an English term is rendered into
  Chinese word by word (`figures.words`) so it meets Chinese passages.
- **A figure stated for it** is a small grammar over one clause of one sentence: the term's head
  word, then only linking words (`为`, `达`, `同比上涨约`, `rose to`, `of`), then a figure with a
  unit (a percent, an amount, a count); or the figure, then `的`, then the head. The term's other
  words stand before the head in the same clause. A sentence holding the term and a figure apart,
  about other things, states nothing.
- **The entity and the period asked**, when the question names them: a sentence about another
  entity, or in a passage of another period, is never chosen.
- Invariant 1: the sentence is quoted as the document wrote it, passes the numeric grounding
  check against its cited passage, and its figure never enters `facts` or `computed`.
  Invariant 5 and the competitor screen are the retriever's: nothing here sees a passage the
  screened, clearance-filtered retriever did not return, and a term whose only passage is hidden
  gets the very answer a term no passage mentions gets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.glossary import GlossarySnapshot
from core.model.clarification import CLARIFY_NONE, ClarificationResult
from core.model.intent import ParsedIntent
from core.model.registry import KIND_ANSWER, KIND_CLARIFICATION
from core.model.result import Source
from core.ports import NarrativeRetriever, RetrievedChunk
from core.routes.narrative.figures.stated import FigureSentence, figure_sentences
from core.routes.narrative.figures.term import FigureAsk, figure_asked
from core.routes.narrative.grounding import numbers_ground

__all__ = [
    "FIGURE_LABEL",
    "NOT_STATED",
    "FigureAnswer",
    "FigureAsk",
    "figure_answer",
    "figure_asked",
    "figure_sentences",
]

FIGURE_LABEL = {
    "zh": "文件所载数字（非经审核的事实库数据，未参与任何计算）：",
    "en": "A figure stated in a document (not a curated fact, and not computed with):",
}
NOT_STATED = {
    "zh": "未找到载明“{term}”数字的文件段落，无法给出该数字。",
    "en": "No passage in the documents states a figure for '{term}', so none is given.",
}
MAX_QUOTED = 3
_K = 10  # passages read per query


@dataclass(frozen=True)
class FigureAnswer:
    text: str
    kind: str
    clarification: ClarificationResult
    sources: tuple[Source, ...] = ()


def figure_answer(
    intent: ParsedIntent,
    *,
    retriever: NarrativeRetriever,
    glossary: GlossarySnapshot,
    cleared: bool,
    asked_back: ClarificationResult,
) -> FigureAnswer | None:
    """The sentences stating a figure for the term asked, or the ask-back led by a line saying no
    passage states it; None when the question asks about no term (the ask-back stands as it is)."""
    ask = figure_asked(intent, glossary)
    if ask is None:
        return None
    chunks = _chunks_found(ask, intent, retriever, glossary, cleared)
    # The numeric grounding check: a sentence is quoted only when its cited passage supports
    # every figure in it (quoted verbatim it always does; the check keeps it so).
    chosen = [f for f in figure_sentences(ask, chunks, glossary) if _grounded(f, intent)][:MAX_QUOTED]
    language = intent.language if intent.language in FIGURE_LABEL else "zh"
    if not chosen:
        said = NOT_STATED[language].format(term=ask.term)
        question = f"{said}\n{asked_back.question}" if asked_back.question else said
        return FigureAnswer(question, KIND_CLARIFICATION, replace(asked_back, question=question))
    lines = [f"{c.text}{_citation(c.chunk)}" for c in chosen]
    cited = list(dict.fromkeys(c.chunk for c in chosen))
    sources = tuple(Source("chunk", c.doc, c.locator, c.document_id, c.text, c.sensitivity) for c in cited)
    text = "\n".join([FIGURE_LABEL[language], *lines])
    return FigureAnswer(text, KIND_ANSWER, ClarificationResult(mode=CLARIFY_NONE), sources)


def _citation(chunk: RetrievedChunk) -> str:
    return f"（{chunk.doc} · {chunk.locator}）"


def _grounded(found: FigureSentence, intent: ParsedIntent) -> bool:
    _, removed = numbers_ground(
        found.text + _citation(found.chunk),
        snippets=[found.chunk.text],
        question=intent.raw_question,
        references=[_citation(found.chunk), found.chunk.doc, found.chunk.locator],
    )
    return removed == 0


def _chunks_found(
    ask: FigureAsk, intent: ParsedIntent, retriever: NarrativeRetriever, glossary: GlossarySnapshot, cleared: bool
) -> list[RetrievedChunk]:
    """The passages for the question as asked and for the term alone (in Chinese too, for an
    English term), with the entity's name beside it when one is asked; in order of first rank."""
    names = " ".join(glossary.display("entity", e, "zh") for e in ask.entities)
    queries = [intent.raw_question, f"{names} {ask.term}".strip()]
    if ask.english and ask.words:
        queries.append(f"{names} " + " ".join(word[0] for word in ask.words))
    by_id: dict[int, RetrievedChunk] = {}
    for query in dict.fromkeys(q for q in queries if q):
        for chunk in retriever.retrieve(query, cleared=cleared, k=_K):
            by_id.setdefault(chunk.chunk_id, chunk)
    return list(by_id.values())
