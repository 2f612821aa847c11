"""BM25 over a sparse term × document matrix: no Python loop over documents.

Okapi BM25 with k1 = 1.5 and b = 0.75. The per-(term, document) weights are precomputed at
build time, so a query is a sum of a few sparse rows and a top-k partition. A mask (for
clearance) is applied before the top-k, so a hidden document can never take a place.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import sparse

K1 = 1.5
B = 0.75


class BM25Index:
    """`documents` is any iterable of token lists, read once: the index keeps compact arrays
    (4-byte term ids and counts while it reads), never the documents, so a corpus of a million
    chunks streams through it. With `statistics` (another index), the documents are weighted with
    that index's corpus size, average length and document frequencies, as if they had been added
    to it: how a refresh scores the chunks written since the main index was built."""

    def __init__(
        self, documents: Iterable[Sequence[str]], *, k1: float = K1, b: float = B, statistics: BM25Index | None = None
    ):
        vocabulary: dict[str, int] = {}
        term_of = vocabulary.setdefault
        terms = array("i")  # each document's distinct terms, in order of first occurrence
        counts = array("i")  # and how often each occurs in it
        distinct = array("q", [0])  # where each document's terms start (a CSC column pointer)
        lengths = array("f")
        for doc_tokens in documents:
            frequencies = Counter(doc_tokens)
            terms.extend([term_of(token, len(vocabulary)) for token in frequencies])
            counts.extend(frequencies.values())
            distinct.append(len(terms))
            lengths.append(len(doc_tokens))
        self.vocabulary = vocabulary
        self.size = len(lengths)
        n_terms = len(vocabulary)
        doc_lengths = np.frombuffer(lengths, dtype=np.float32) if self.size else np.zeros(0, dtype=np.float32)
        term_index = np.frombuffer(terms, dtype=np.int32) if len(terms) else np.zeros(0, dtype=np.int32)
        pointer = np.frombuffer(distinct, dtype=np.int64)
        if statistics is None:
            size, average = self.size, float(doc_lengths.mean()) if self.size else 0.0
            df = np.bincount(term_index, minlength=n_terms).astype(np.float32)
        else:  # weighted as members of `statistics`' corpus: its size, average length and df
            size, average, known = statistics.size, statistics.average, statistics.vocabulary
            df = np.asarray([statistics.df[known[t]] if t in known else 0.0 for t in vocabulary], dtype=np.float32)
        self.df, self.average = df, average
        idf = np.log((size - df + 0.5) / (df + 0.5) + 1.0)
        # Okapi BM25 per (term, document), in float32, computed as below.
        tf = np.frombuffer(counts, dtype=np.int32).astype(np.float32) if len(counts) else np.zeros(0, np.float32)
        norm = k1 * (1.0 - b + b * np.repeat(doc_lengths, np.diff(pointer)) / (average or 1.0))
        weights = idf[term_index] * tf * (k1 + 1.0) / (tf + norm)
        del tf, norm
        by_document = sparse.csc_matrix((weights, term_index, pointer), shape=(n_terms, self.size))
        self.matrix = by_document.tocsr()  # rows are terms: a query sums a few rows

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        # First-occurrence order, not a set's: the scores are summed in the same order in every process.
        terms = [self.vocabulary[t] for t in dict.fromkeys(query_tokens) if t in self.vocabulary]
        if not terms or self.size == 0:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.matrix[terms].sum(axis=0)).ravel()

    def search(
        self, query_tokens: Sequence[str], k: int, *, allowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k document indexes with positive scores (best first), and their scores."""
        scores = self.scores(query_tokens)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        k = min(k, self.size)
        if k <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        keep = scores[top] > 0
        return top[keep], scores[top][keep]
