"""The narrative route's retrieval: the question and its glossary variants, fused, then reranked.

`queries_rewrite` takes a question and returns it with up to four variants that swap a glossary
name for its other aliases; `chunks_retrieve` asks the retriever port for each (in one batch when
the retriever can) and fuses the rankings with Reciprocal Rank Fusion, the question as asked
counting double; `chunks_rerank` lets an LLM reorder the fused passages, keeping the fused order
on any failure. Clearance is the retriever's: nothing here sees a passage it did not return.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.ports import BatchNarrativeRetriever, LLMProvider, NarrativeRetriever, ProviderError, RetrievedChunk

RRF_K = 60
MAX_QUERIES = 5


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


def queries_rewrite(question: str, glossary: GlossarySnapshot, limit: int = MAX_QUERIES) -> list[str]:
    """The question first, then variants with glossary synonyms swapped in (at most `limit`)."""
    normalized = text_normalize(question)
    _, positions = compact_view(normalized)
    queries = [question]
    for match in glossary.match(normalized):
        if match.external:
            continue
        # The match spans the whitespace-free view: `hong kong` is one name there.
        start, end = positions[match.start], positions[match.end - 1] + 1
        for alias in glossary.aliases_of(match.kind, match.code):
            variant = f"{normalized[:start]}{text_normalize(alias)}{normalized[end:]}"
            if variant != normalized and variant not in queries and len(queries) < limit:
                queries.append(variant)
    return queries[:limit]


def chunks_retrieve(
    question: str, *, retriever: NarrativeRetriever, glossary: GlossarySnapshot, cleared: bool, k: int = 8
) -> list[RetrievedChunk]:
    by_id: dict[int, RetrievedChunk] = {}
    rankings = []
    queries = queries_rewrite(question, glossary)
    if isinstance(retriever, BatchNarrativeRetriever):  # the variants embedded in one batch
        results = retriever.retrieve_many(queries, cleared=cleared, k=k)
    else:
        results = [retriever.retrieve(query, cleared=cleared, k=k) for query in queries]
    for found in results:
        rankings.append([(c.chunk_id, c.score) for c in found])
        for chunk in found:
            by_id.setdefault(chunk.chunk_id, chunk)
    # The question as asked counts double: a synonym variant broadens recall, it does not outvote it.
    fused = rrf_fuse(rankings, weights=[2.0] + [1.0] * (len(rankings) - 1))
    return [RetrievedChunk(**{**by_id[i].__dict__, "score": score}) for i, score in fused[:k]]


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
