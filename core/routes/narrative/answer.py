"""The narrative channel: retrieve → fuse → (rerank) → synthesise → ground (retrieval, fusion and
reranking in `core.routes.narrative.retrieve`).

Takes a question, the retriever port and optionally an LLM; returns text with a citation on
every sentence, the cited sources, and how many unsupported figures were removed. Retrieval
is clearance-filtered by the retriever itself, so RESTRICTED text never reaches this module
(or any LLM) for an uncleared user. With no LLM the answer is extractive. Every answer passes
the numeric grounding check (`grounding`): a figure that no snippet shown and no found fact
states, with the same value, unit class and sign, is removed with its sentence (extends
invariant 1 to narrative prose). A synthesis is checked as the model wrote it, before the
system expands its `[n]` markers into citations and appends its source list, so only the
system's own references are exempt; the question's figures are never support.

Attribution is about the thing asked (`attribution`): given the asked entities and period
(`Focus`), passages and sentences about them come first, general text after, and another
entity's only when nothing about the asked one was retrieved, under a label naming it (the label
states no figure and is exempt from grounding as the system's own text). The extractive selector
matches glossary concepts, so an English question meets Chinese passages, and never counts a
period or a figure as shared wording, nor quotes a bare title line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.model.facts import FactRecord
from core.model.registry import KIND_ANSWER, KIND_DEGRADED, KIND_REFUSAL
from core.model.result import Source
from core.ports import LLMProvider, NarrativeRetriever, ProviderError, RetrievedChunk
from core.routes.narrative.attribution import ASKED, OTHER, Focus, FocusReader, Sentence
from core.routes.narrative.grounding import MARKER, notice_add, numbers_check, numbers_ground, support_collect
from core.routes.narrative.retrieve import chunks_rerank, chunks_retrieve
from core.routes.narrative.wording import (
    coverage_of,
    greeting_is,
    periods_named,
    terms_of,
    terms_overlap,
    topic_of,
    voice_of,
)
from core.routes.render import (
    ABOUT_ENTITY,
    DEGRADED_NARRATIVE,
    DESK_GREETING,
    NAMES_JOINED,
    NARRATIVE_NO_HITS,
    NARRATIVE_NOT_COVERED,
    NARRATIVE_NOT_WIRED,
    QUOTES_IN_CHINESE,
)

TOP_CHUNKS = 4
MAX_SENTENCES = 4  # sentences chosen for their own wording
MAX_QUOTED = 6  # with the sentences that continue them
_SHORTEST = 6  # characters: a shorter fragment says nothing on its own
# The least share of a question's content the passages shown must hold (`coverage_of`). Measured on
# the demo: the golden and other narrative questions hold 0.71 or more, off-topic ones (HR, travel,
# IT, writing requests, unknown projects, chit-chat in four written forms) 0.5 or less.
RELEVANCE_FLOOR = 0.6
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class NarrativeOutcome:
    text: str
    kind: str
    sources: tuple[Source, ...] = ()
    numbers_unsupported: int = 0
    chunk_scores: tuple[tuple[int, float], ...] = ()
    usage: dict[str, int] = field(default_factory=dict)


# -- synthesis ------------------------------------------------------------------------------
def citation(chunk: RetrievedChunk) -> str:
    return f"（{chunk.doc} · {chunk.locator}）"


def about_label(about: frozenset[str], glossary: GlossarySnapshot, language: str) -> str:
    """The label before a sentence about another entity than the one asked (no figure in it)."""
    order = {info.code: index for index, info in enumerate(glossary.in_scope_entities())}
    codes = sorted(about, key=lambda code: (order.get(code, len(order)), code))
    names = NAMES_JOINED[language].join(glossary.display("entity", code, language) for code in codes)
    return ABOUT_ENTITY[language].format(name=names)


def extractive_answer(
    question: str,
    chunks: list[RetrievedChunk],
    *,
    glossary: GlossarySnapshot,
    focus: Focus | None = None,
    language: str = "zh",
) -> tuple[str, list[RetrievedChunk], list[str]]:
    """The sentences of the top snippets closest to the question, each with its citation, the
    snippets cited, and the entity labels used.

    A quoted sentence is relevant (`FocusReader.relevant`: it shares a topic term with the
    question, not merely the entity's name or a period), shares a term with it (`terms_of`; with
    no topic, its entity or period is enough) and is no bare title line. Sentences of the
    best-ranked document are preferred (a question is usually about one document), at most two
    per snippet and `MAX_SENTENCES` in all; one about the asked entity (any, with none asked) brings
    the sentences that continue it (the next ones of its paragraph about the same subject, as a
    reason list goes on: `主要原因：第一，…；第二，…`), up to `MAX_QUOTED` sentences in all. A
    sentence is quoted once, under its best-ranked citation, even when overlapping snippets both
    hold it. With a focus, relevant sentences about the asked entity come first and general ones
    after them; another entity's are quoted only when none about the asked one is relevant, each
    under a label naming its entity.
    """
    reader = FocusReader(focus, glossary)
    wanted = terms_of(question, glossary, question=True)
    topic = topic_of(wanted)
    shown = reader.passages_order(chunks, topic)[:TOP_CHUNKS]
    top_doc = shown[0].doc if shown else ""
    scored: list[tuple[float, int, int, Sentence, RetrievedChunk]] = []
    sentences: dict[int, list[Sentence]] = {}
    for rank, chunk in enumerate(shown):
        sentences[rank] = reader.sentences(chunk)
        for sentence in sentences[rank]:
            terms = reader.terms(sentence.text)
            overlap = terms_overlap(wanted, terms)
            if sentence.title or len(sentence.text) < _SHORTEST:
                continue
            if not reader.relevant(chunk, terms, topic, sentence.tier, sentence.in_period):
                continue
            if topic and overlap < (1 if chunk.doc == top_doc else 2):
                continue
            score = overlap + (0.5 if chunk.doc == top_doc else 0.0) - 0.25 * rank
            scored.append((score, rank, sentence.position, sentence, chunk))
    if any(item[3].tier == ASKED for item in scored):
        scored = [item for item in scored if item[3].tier != OTHER]
    per_chunk: dict[int, int] = {}
    seen: set[str] = set()
    best: list[tuple[int, Sentence, RetrievedChunk]] = []
    leads = 0
    for _, rank, _, sentence, chunk in sorted(scored, key=lambda e: (e[3].tier, not e[3].in_period, -e[0])):
        if leads >= MAX_SENTENCES or len(best) >= MAX_QUOTED:
            break
        if per_chunk.get(rank, 0) >= 2 or _sentence_key(sentence.text) in seen:
            continue
        per_chunk[rank] = per_chunk.get(rank, 0) + 1
        leads += 1
        # The asked entity's reasons go on past their first sentence; another entity's stand alone.
        goes_on = sentence.tier == ASKED or not reader.scope
        for follower in [sentence, *(_continuation(sentence, sentences[rank]) if goes_on else ())]:
            if len(best) < MAX_QUOTED and _sentence_key(follower.text) not in seen:
                seen.add(_sentence_key(follower.text))
                best.append((rank, follower, chunk))
    best.sort(key=lambda item: (item[1].tier, item[0], item[1].position))
    cited: list[RetrievedChunk] = []
    lines, labels = [], []
    for _, sentence, chunk in best:
        label = about_label(sentence.about, glossary, language) if sentence.tier == OTHER else ""
        lines.append(label + sentence.text + citation(chunk))
        labels += [label] if label else []
        if chunk not in cited:
            cited.append(chunk)
    return "\n".join(lines), cited, labels


def _sentence_key(text: str) -> str:
    """A sentence as compared for repeats: normalised, without spaces or its closing mark."""
    return compact_view(text_normalize(text))[0].rstrip("。！？!?；;.，,")


def _continuation(lead: Sentence, sentences: list[Sentence]) -> list[Sentence]:
    """The sentences right after `lead` in its paragraph that go on about its subject."""
    following = []
    for sentence in sentences[lead.position + 1 :]:
        if sentence.paragraph != lead.paragraph or sentence.about != lead.about or sentence.title:
            break
        following.append(sentence)
    return following


SYNTHESIS_SYSTEM = (
    "你是企业分析助手。只能依据用户提供的编号资料作答，不得使用资料以外的信息或数字。"
    "每句话后用 [编号] 标注来源。资料不足时直接说明无法回答。"
)


def answer_draft(
    question: str, chunks: list[RetrievedChunk], llm: LLMProvider, *, labels: Sequence[str] = ()
) -> tuple[str, dict[str, int]]:
    """The model's answer from the numbered snippets, as it wrote it (`[n]` markers unexpanded).

    `labels[i]`, when given, heads snippet i + 1: it names the entity a snippet is about when
    that is not the entity asked."""
    heads = list(labels) + [""] * (len(chunks) - len(labels))
    numbered = "\n".join(
        f"[{i}] {heads[i - 1]}（{c.doc} · {c.locator}）{c.text}" for i, c in enumerate(chunks, start=1)
    )
    prompt = f"问题：{question}\n\n资料：\n{numbered}"
    response = llm.create_message(system=SYNTHESIS_SYSTEM, messages=[{"role": "user", "content": prompt}], tools=[])
    return response.text.strip(), dict(response.usage)


def citations_expand(text: str, chunks: list[RetrievedChunk]) -> tuple[str, list[RetrievedChunk]]:
    """`[n]` becomes snippet n's citation (a marker naming no snippet is dropped), and every
    snippet's document the text does not name is appended as （资料来源：…）."""
    cited: list[RetrievedChunk] = []

    def expand(match: re.Match[str]) -> str:
        marks = []
        for number in re.findall(r"\d+", match.group(0)):
            index = int(number)
            if 1 <= index <= len(chunks):
                chunk = chunks[index - 1]
                marks.append(citation(chunk))
                if chunk not in cited:
                    cited.append(chunk)
        return "".join(marks)

    text = MARKER.sub(expand, text)
    named = {c.doc for c in chunks if c.doc in text}
    cited += [c for c in chunks if c.doc in text and c not in cited]
    unnamed: list[RetrievedChunk] = []
    for chunk in chunks:
        if chunk.doc not in named:
            unnamed.append(chunk)
            named.add(chunk.doc)
    if unnamed:
        text += "（资料来源：" + "；".join(f"{c.doc} {c.locator}" for c in unnamed) + "）"
    return text, cited + unnamed


def _references(chunks: Sequence[RetrievedChunk]) -> list[str]:
    """The strings the system knows verbatim: citations, locators and document names."""
    return [*(citation(c) for c in chunks), *(c.locator for c in chunks), *(c.doc for c in chunks)]


# -- the channel ----------------------------------------------------------------------------
def narrative_answer(
    question: str,
    *,
    retriever: NarrativeRetriever | None,
    glossary: GlossarySnapshot,
    cleared: bool,
    language: str,
    llm: LLMProvider | None = None,
    rerank: bool = False,
    facts: Sequence[FactRecord] = (),
    focus: Focus | None = None,
) -> NarrativeOutcome:
    if greeting_is(question):
        return NarrativeOutcome(DESK_GREETING[voice_of(question, language)], KIND_ANSWER)
    if retriever is None:
        return NarrativeOutcome(NARRATIVE_NOT_WIRED[language], KIND_DEGRADED)
    scope = FocusReader(focus, glossary).scope  # the asked entities and their subsidiaries
    chunks = chunks_retrieve(question, retriever=retriever, glossary=glossary, cleared=cleared, entities=scope)
    if not chunks:
        return NarrativeOutcome(NARRATIVE_NO_HITS[language], KIND_REFUSAL)
    usage: dict[str, int] = {}
    scores = tuple((c.chunk_id, round(c.score, 6)) for c in chunks)
    if llm is not None and rerank:
        chunks, usage = chunks_rerank(question, chunks, llm)
    reader = FocusReader(focus, glossary)
    shown = reader.passages_order(chunks, topic_of(terms_of(question, glossary, question=True)))[:TOP_CHUNKS]
    if not _covered(question, shown, reader, glossary):
        return NarrativeOutcome(NARRATIVE_NOT_COVERED[voice_of(question, language)], KIND_REFUSAL, chunk_scores=scores)
    if llm is not None:
        labels = [
            about_label(reader.about_chunk(c), glossary, language) if reader.passage_rank(c)[0] == OTHER else ""
            for c in shown
        ]
        try:
            draft, used = answer_draft(question, shown, llm, labels=labels)
        except ProviderError:
            return NarrativeOutcome(DEGRADED_NARRATIVE[language], KIND_DEGRADED, chunk_scores=scores)
        for key, value in used.items():
            usage[key] = usage.get(key, 0) + value
        # Ground what the model wrote before the system adds its own citations and source list.
        kept, removed = numbers_check(
            draft,
            support=support_collect([c.text for c in shown], facts, question),
            references=_references(chunks),
        )
        text, cited = citations_expand(kept, shown) if kept else ("", [])
        grounded = notice_add(text, removed, language)
    else:
        text, cited, labels = extractive_answer(question, chunks, glossary=glossary, focus=focus, language=language)
        if not text:
            return NarrativeOutcome(NARRATIVE_NO_HITS[language], KIND_REFUSAL, chunk_scores=scores)
        grounded, removed = numbers_ground(
            text,
            snippets=[c.text for c in cited],
            facts=facts,
            question=question,
            references=[*_references(chunks), *labels],
            language=language,
        )
        if language in QUOTES_IN_CHINESE and _CJK.search(grounded):
            grounded = f"{QUOTES_IN_CHINESE[language]}\n{grounded}"
    sources = tuple(Source("chunk", c.doc, c.locator, c.document_id, c.text, c.sensitivity) for c in cited)
    kind = KIND_ANSWER if grounded.strip() and sources else KIND_REFUSAL
    return NarrativeOutcome(grounded or NARRATIVE_NO_HITS[language], kind, sources, removed, scores, usage)


def _covered(question: str, shown: list[RetrievedChunk], reader: FocusReader, glossary: GlossarySnapshot) -> bool:
    """Whether the passages shown speak to the question: one is about the entity asked (whether its
    sentences answer is then the selector's test), they hold `RELEVANCE_FLOOR` of its content, or it
    has none but asks about an entity or a period in general (`2025年第四季度发生了什么`)."""
    if reader.scope and any(reader.passage_rank(c)[0] == ASKED for c in shown):
        return True
    share = coverage_of(question, glossary, [reader.passage_terms(c) for c in shown])
    if share is None:
        return bool(reader.scope or reader.focus.period or periods_named(question) or reader.named(question))
    return share >= RELEVANCE_FLOOR
