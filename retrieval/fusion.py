"""Hybrid fusion of a lexical and a vector ranking: a convex combination of scores
normalised min-max within each list's own candidates.

Measured against RRF (k = 60, weighted), BM25-first, vector rescue and z-scores on CMRC 2018 and
TAT-QA (`BENCHMARKS.md`, "Semantic retrieval"), with its weight chosen on one set and reported on
the other: the only fusion better than BM25 on both. Normalising inside each candidate list lets
e5's narrow cosine band count without any fixed score threshold. Pure Python: the benchmarks call
this same function.
"""

from __future__ import annotations

from collections.abc import Sequence

VECTOR_WEIGHT = 0.4

Ranking = Sequence[tuple[int, float]]


def scores_fuse(lexical: Ranking, vector: Ranking, *, alpha: float = VECTOR_WEIGHT) -> list[tuple[int, float]]:
    """(id, fused score), best first: (1 − alpha) · the lexical score and alpha · the vector score,
    each as (s − min) / (max − min) over its own list. A document a list lacks (a chunk
    without its vector yet, or beyond the list's candidates) gets 0 from that list, never a loss of
    the other's; a list whose scores are all equal gives each of its documents 1.
    Ties go by place in the lexical list, then in the vector list, then by id: scores too close
    to tell apart after scaling keep each list's order."""
    fused: dict[int, float] = {}
    for ranking, weight in ((lexical, 1.0 - alpha), (vector, alpha)):
        if not ranking:
            continue
        scores = [score for _, score in ranking]
        low, high = min(scores), max(scores)
        for item, score in ranking:
            share = (score - low) / (high - low) if high > low else 1.0
            fused[item] = fused.get(item, 0.0) + weight * share
    unlisted = len(lexical) + len(vector)
    place = [{item: n for n, (item, _) in enumerate(ranking)} for ranking in (lexical, vector)]
    return sorted(
        fused.items(),
        key=lambda pair: (-pair[1], place[0].get(pair[0], unlisted), place[1].get(pair[0], unlisted), pair[0]),
    )
