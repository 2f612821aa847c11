"""The public data sets the retrieval benchmarks read, as corpora with their queries.

- `cmrc_corpus`: CMRC 2018 dev passages, each question relevant to its own passage (Chinese).
- `tatqa_corpus`: TAT-QA dev paragraphs, text and table-text questions with their relevant
  paragraphs (English).
- `speed_corpus`: any number of chunks cut from passages as sentence windows, each with its
  source passage: the corpus of the speed and scale benchmarks.

The data is read in place from `../shared/bench/` (never copied). Pure Python: no Django, no
project import, so the retrieval benchmark and the e5 vector cache both read it.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Sequence
from pathlib import Path

SHARED_DIR = Path(__file__).resolve().parents[2] / "shared" / "bench"
CMRC_FILE = "cmrc2018_dev.json"
TATQA_FILE = "tatqa_dataset_dev.json"
CHUNK_CHARS = 480  # the chunk size: sentence windows longer than this are not used

Query = tuple[str, frozenset[int]]  # (question, indexes of its relevant documents)

_SENTENCE_END = re.compile(r"(?<=[。！？\n])")


def _load(path: Path | None, shared_dir: Path | None, name: str) -> object:
    file = Path(path) if path is not None else Path(shared_dir or SHARED_DIR) / name
    with file.open(encoding="utf-8") as handle:
        return json.load(handle)


def cmrc_corpus(path: Path | None = None, *, shared_dir: Path | None = None) -> tuple[list[str], list[Query]]:
    """CMRC 2018 dev: corpus = every `paragraphs[].context`; each question's relevant passage is its own."""
    data = _load(path, shared_dir, CMRC_FILE)
    corpus: list[str] = []
    queries: list[Query] = []
    for article in data["data"]:  # type: ignore[index]
        for paragraph in article["paragraphs"]:
            doc = len(corpus)
            corpus.append(paragraph["context"])
            queries.extend((qa["question"], frozenset({doc})) for qa in paragraph["qas"])
    return corpus, queries


def tatqa_corpus(path: Path | None = None, *, shared_dir: Path | None = None) -> tuple[list[str], list[Query]]:
    """TAT-QA dev: corpus = every `paragraphs[].text`; queries = text / table-text questions with
    `rel_paragraphs`; relevant = the paragraphs of their own document whose `order` is listed there
    (`rel_paragraphs` holds strings, `order` ints)."""
    data = _load(path, shared_dir, TATQA_FILE)
    corpus: list[str] = []
    queries: list[Query] = []
    for document in data:  # type: ignore[union-attr]
        by_order: dict[int, int] = {}
        for paragraph in document["paragraphs"]:
            by_order[int(paragraph["order"])] = len(corpus)
            corpus.append(paragraph["text"])
        for question in document["questions"]:
            if question["answer_from"] not in ("text", "table-text") or not question["rel_paragraphs"]:
                continue
            relevant = frozenset(by_order[int(order)] for order in question["rel_paragraphs"] if int(order) in by_order)
            if relevant:
                queries.append((question["question"], relevant))
    return corpus, queries


def _sentences(passage: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(passage) if part.strip(" \t\n。！？")]


def speed_corpus(passages: Sequence[str], n_chunks: int) -> tuple[list[str], list[int], dict]:
    """`n_chunks` chunks cut from `passages`, with each chunk's source passage.

    Every passage is split into sentences (on 。！？ and newline). Chunks are taken width by width:
    all single sentences, then all overlapping windows of 2 consecutive sentences, then 3, ... (a
    window is kept only while it fits in CHUNK_CHARS, or if it is a single sentence). If the unique
    windows run out before `n_chunks`, the pool is repeated with a suffix `#copyN` (round N) until
    the corpus is full; the copies also belong to their source passage.
    """
    split = [_sentences(passage) for passage in passages]
    by_width: dict[int, list[tuple[str, int]]] = {}
    for source, sentences in enumerate(split):
        for start in range(len(sentences)):
            text = ""
            for width, sentence in enumerate(sentences[start:], 1):
                text += sentence
                if width > 1 and len(text) > CHUNK_CHARS:
                    break
                by_width.setdefault(width, []).append((text, source))
    pool = [item for width in sorted(by_width) for item in by_width[width]]
    chunks: list[str] = []
    sources: list[int] = []
    round_ = 0
    while len(chunks) < n_chunks and pool:
        for text, source in pool[: n_chunks - len(chunks)]:
            chunks.append(text if round_ == 0 else f"{text} #copy{round_}")
            sources.append(source)
        round_ += 1
    unique = min(len(pool), n_chunks)
    widths_used: list[int] = []
    remaining = unique
    for width in sorted(by_width):
        if remaining <= 0:
            break
        widths_used.append(width)
        remaining -= len(by_width[width])
    described = {
        "chunks": len(chunks),
        "passages": len(passages),
        "sentences": len(by_width.get(1, [])),
        "unique_windows": unique,
        "windows_available": len(pool),
        "window_widths_sentences": f"1..{widths_used[-1]}" if widths_used else "none",
        "suffixed_copies": len(chunks) - unique,
        "avg_chars": round(statistics.fmean(len(text) for text in chunks), 1) if chunks else 0.0,
        "how": (
            f"CMRC passages split into sentences on 。！？\\n; every window of 1, 2, 3, ... consecutive sentences "
            f"of one passage (windows over {CHUNK_CHARS} chars dropped), taken width by width; when the unique "
            "windows run out the pool is repeated with a ' #copyN' suffix. A chunk's relevant passage is its source."
        ),
    }
    return chunks, sources, described
