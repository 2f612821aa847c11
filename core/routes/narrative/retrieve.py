"""The narrative route's retrieval: the question and its glossary variants, fused, then reranked.

`queries_rewrite` takes a question and returns it with up to four variants: the question with
every glossary name written in the other language (an English question meets Chinese documents
through the glossary's Chinese names, all of them at once, even with no multilingual embedder;
and back), and variants that swap one name for its other aliases. `chunks_retrieve` asks the retriever
port for each (in one batch when the retriever can) and fuses the rankings with Reciprocal Rank
Fusion, the question as asked counting double. With entities asked, it asks within them (SPEC §7,
scoped to the entity asked: the documents they issued and the passages naming them, before the
top-k), and searches everything only when nothing within them matches; the route then labels
another entity's passages. `chunks_rerank` lets an LLM reorder the fused passages, keeping the
fused order on any failure. Clearance is the retriever's: nothing here sees a passage it did not
return.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from itertools import zip_longest
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.model.intent import Match
from core.ports import (
    BatchNarrativeRetriever,
    LLMProvider,
    NarrativeRetriever,
    ProviderError,
    RetrievedChunk,
    ScopedNarrativeRetriever,
)
from core.routes.narrative.wording import section_of, terms_of, topic_of

RRF_K = 60
MAX_QUERIES = 5
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def rrf_fuse(
    rankings: Iterable[Sequence[tuple[int, float]]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[int, float]]:
    """Reciprocal Rank Fusion: each list adds weight / (k + rank) to the ids it ranks."""
    fused: dict[int, float] = {}
    for index, ranking in enumerate(rankings):
        weight = weights[index] if weights is not None else 1.0
        for rank, (item, _) in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))


def name_in(glossary: GlossarySnapshot, kind: str, code: str, language: str) -> str | None:
    """The glossary's name for a concept in `language` (`zh`: one with Chinese characters, `en`:
    one without), or None when it has none: its name when written so, else its first such alias."""
    if language == "en":
        name = glossary.display(kind, code, "en")
        return name if name != code and name.isascii() else None
    return next((text for text in glossary.aliases_of(kind, code) if _CJK.search(text)), None)


def names_rewrite(normalized: str, matches: Sequence[Match], glossary: GlossarySnapshot, language: str) -> str:
    """`normalized` with every name `matches` found written in `language` (those it has no name
    in as they are): all at once, so a question naming a place and a metric meets a passage that
    names both in the documents' language."""
    _, positions = compact_view(normalized)
    pieces, last = [], 0
    for match in sorted(matches, key=lambda m: m.start):
        start, end = positions[match.start], positions[match.end - 1] + 1
        written = normalized[start:end]
        if start < last or (bool(_CJK.search(written)) if language == "zh" else written.isascii()):
            continue  # already written in that language
        name = name_in(glossary, match.kind, match.code, language)
        if name is None:
            continue
        pieces += [normalized[last:start], text_normalize(name)]
        last = end
    pieces.append(normalized[last:])
    text = ""
    for piece in pieces:  # an English name keeps apart from an English word beside it
        text += (
            " " + piece
            if text[-1:].isascii() and text[-1:].isalnum() and piece[:1].isascii() and piece[:1].isalnum()
            else piece
        )
    return text if last else normalized


def queries_rewrite(question: str, glossary: GlossarySnapshot, limit: int = MAX_QUERIES) -> list[str]:
    """The question first; then, when it names something in English, the question with every
        glossary name in Chinese; then variants with one name swapped for another alias (each name's
    first other alias before any name's second); then, when it
        names something in Chinese and there is room, the question with every name in English (at most
        `limit` in all). One name at a time, an alias in the other language already comes in a swap."""
    normalized = text_normalize(question)
    _, positions = compact_view(normalized)
    queries = [question]
    matches = [match for match in glossary.match(normalized) if not match.external]

    def add(variant: str) -> None:
        if variant != normalized and variant not in queries and len(queries) < limit:
            queries.append(variant)

    add(names_rewrite(normalized, matches, glossary, "zh"))
    swaps = []
    for match in matches:
        # The match spans the whitespace-free view: `hong kong` is one name there.
        start, end = positions[match.start], positions[match.end - 1] + 1
        aliases = glossary.aliases_of(match.kind, match.code)
        swaps.append([f"{normalized[:start]}{text_normalize(alias)}{normalized[end:]}" for alias in aliases])
    for variants in zip_longest(*swaps):  # each name's first other alias before any name's second
        for variant in variants:
            if variant is not None:
                add(variant)
    add(names_rewrite(normalized, matches, glossary, "en"))
    return queries


def chunks_retrieve(
    question: str,
    *,
    retriever: NarrativeRetriever,
    glossary: GlossarySnapshot,
    cleared: bool,
    k: int = 8,
    entities: frozenset[str] = frozenset(),
) -> list[RetrievedChunk]:
    """The fused passages for the question and its variants; with `entities`, those within what is
    about them when the retriever can scope and some passage within speaks to the question's topic
    (`scope_speaks`), else from everything.

    Within the scope the queries leave the asked entities' names out: every passage there is about
    them, so a name would only favour the passages that repeat it over the ones that answer."""
    queries = queries_rewrite(question, glossary)
    results: list[list[RetrievedChunk]] = []
    if entities and isinstance(retriever, ScopedNarrativeRetriever):
        within = list(dict.fromkeys(names_blank(query, entities, glossary) for query in queries))
        results = retriever.retrieve_within(within, entities=entities, cleared=cleared, k=k)
        if not scope_speaks(question, results, glossary):
            results = []
    if not any(results):  # nothing asked, nothing within it, or a retriever that cannot scope
        if isinstance(retriever, BatchNarrativeRetriever):  # the variants embedded in one batch
            results = retriever.retrieve_many(queries, cleared=cleared, k=k)
        else:
            results = [retriever.retrieve(query, cleared=cleared, k=k) for query in queries]
    by_id: dict[int, RetrievedChunk] = {}
    rankings = []
    for found in results:
        rankings.append([(c.chunk_id, c.score) for c in found])
        for chunk in found:
            by_id.setdefault(chunk.chunk_id, chunk)
    # The question as asked counts double: a synonym variant broadens recall, it does not outvote it.
    fused = rrf_fuse(rankings, weights=[2.0] + [1.0] * (len(rankings) - 1))
    return [RetrievedChunk(**{**by_id[i].__dict__, "score": score}) for i, score in fused[:k]]


def names_blank(query: str, entities: frozenset[str], glossary: GlossarySnapshot) -> str:
    """`query` (normalised) without the names of `entities`; as it is when nothing else is left."""
    normalized = text_normalize(query)
    _, positions = compact_view(normalized)
    kept = list(normalized)
    for match in glossary.match(normalized):
        if match.kind == "entity" and match.code in entities:
            for index in range(positions[match.start], positions[match.end - 1] + 1):
                kept[index] = " "
    blanked = re.sub(r"\s+", " ", "".join(kept)).strip()
    return blanked if any(ch.isalnum() for ch in blanked) else query


def scope_speaks(question: str, results: Sequence[Sequence[RetrievedChunk]], glossary: GlossarySnapshot) -> bool:
    """Whether a passage found within the scope shares a topic term with the question (see
    `wording.topic_of`), in its text or its section's name; with no topic, whether any was found.
    The scope's passages all name the asked entity or are its own, so a match on that name alone
    is no sign its documents say anything about what was asked."""
    topic = topic_of(terms_of(question, glossary, question=True))
    found = [chunk for chunks in results for chunk in chunks]
    if not topic:
        return bool(found)
    return any(topic & terms_of(f"{chunk.text}\n{section_of(chunk.locator)}", glossary) for chunk in found)


def rerank_parse(text: str, count: int) -> list[int] | None:
    """Indices (0-based) from a listwise judge's reply, robustly; None when nothing usable."""
    candidates: list[Any] = []
    try:
        parsed = json.loads(text)
        candidates = parsed if isinstance(parsed, list) else parsed.get("order", []) if isinstance(parsed, dict) else []
    except (json.JSONDecodeError, AttributeError):
        candidates = re.findall(r"\d+", text)
    order: list[int] = []
    for item in candidates:
        try:
            index = int(item) - 1
        except (TypeError, ValueError):
            continue
        if 0 <= index < count and index not in order:
            order.append(index)
    if not order:
        return None
    return order + [i for i in range(count) if i not in order]


def chunks_rerank(
    question: str, chunks: list[RetrievedChunk], llm: LLMProvider
) -> tuple[list[RetrievedChunk], dict[str, int]]:
    """An LLM listwise judge; any failure keeps the fused order."""
    numbered = "\n".join(f"[{i}] {c.text[:300]}" for i, c in enumerate(chunks, start=1))
    prompt = f"问题：{question}\n\n{numbered}\n\n按与问题的相关性从高到低排列编号，只输出 JSON 数组，例如 [2, 1, 3]。"
    try:
        response = llm.create_message(
            system="You rank passages by relevance.", messages=[{"role": "user", "content": prompt}], tools=[]
        )
    except ProviderError:
        return chunks, {}
    order = rerank_parse(response.text, len(chunks))
    return ([chunks[i] for i in order] if order else chunks), dict(response.usage)
