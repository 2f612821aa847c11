"""The find-documents route: a list of the documents that match a question, with no model.

Takes the parsed intent, the narrative retriever (or none) and whether the asker is cleared;
returns the answer sections, the answer kind and the documents as sources. The topic is the
question without its document words; the retriever decides what the asker may see, so a
restricted document never reaches an uncleared asker's list.
"""

from __future__ import annotations

from core.model.types import KIND_ANSWER, KIND_DEGRADED, KIND_REFUSAL, AnswerSections, ParsedIntent, Source
from core.parse.intent import DOCUMENT_CUES
from core.ports import NarrativeRetriever
from core.routes import render


def documents_list(
    intent: ParsedIntent, retriever: NarrativeRetriever | None, cleared: bool
) -> tuple[AnswerSections, str, tuple[Source, ...]]:
    """Ranked documents with their best locators and a snippet, as (sections, kind, sources)."""
    if retriever is None:
        return AnswerSections(narrative=render.NARRATIVE_NOT_WIRED[intent.language]), KIND_DEGRADED, ()
    topic = DOCUMENT_CUES.sub(" ", intent.normalized).strip() or intent.raw_question
    documents = retriever.documents_find(topic, cleared=cleared)
    if not documents:
        return AnswerSections(narrative=render.NARRATIVE_NO_HITS[intent.language]), KIND_REFUSAL, ()
    header = (
        f"找到 {len(documents)} 份相关文件：" if intent.language == "zh" else f"{len(documents)} matching document(s):"
    )
    lines = [header] + [f"{i}. {d.doc}（{d.locator}）：{d.snippet}" for i, d in enumerate(documents, 1)]
    return AnswerSections(narrative="\n".join(lines)), KIND_ANSWER, tuple(documents)
