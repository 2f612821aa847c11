"""Paragraph-greedy chunking with structural locators.

Takes `ingestion.ir.Block`s — a paragraph of text with the locator of the structure it sits in
(`section=二、香港业务`, `slide=3`, `page=2`) and its paragraph number there — and returns chunks
of about 480 characters. Paragraphs of one structure are packed greedily; a paragraph longer
than the target is split at sentence ends; consecutive chunks of one structure overlap by about
80 characters of whole sentences. A chunk's locator names its structure and paragraph(s):
`section=二、香港业务,para=1` or `page=2,para=3-4`. Office extractors feed this too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingestion.ir import Block

TARGET = 480
OVERLAP = 80
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+")


@dataclass(frozen=True)
class ChunkDraft:
    text: str
    locator: str
    heading: str


def sentences(text: str) -> list[str]:
    return [s for s in (part.strip() for part in _SENTENCE_END.split(text)) if s]


def _locator(base: str, first: int | None, last: int | None) -> str:
    if first is None:
        return base
    para = f"para={first}" if first == last or last is None else f"para={first}-{last}"
    return f"{base},{para}" if base else para


def _pieces(text: str, target: int, overlap: int = OVERLAP) -> list[str]:
    """Split one long paragraph at sentence ends into pieces of at most ~target characters.

    A run-on sentence is cut hard, each cut overlapping the last `overlap` characters, so a
    name or a figure that straddles a cut stands whole in one piece (and is screened there).
    """
    pieces: list[str] = []
    current = ""
    step = max(target - overlap, target // 2)
    for sentence in sentences(text) or [text]:
        while len(sentence) > target:  # a single run-on sentence: cut it hard
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:target])
            sentence = sentence[step:]
        if current and len(current) + len(sentence) > target:
            pieces.append(current)
            current = ""
        current += sentence
    if current:
        pieces.append(current)
    return pieces


def _tail(text: str, overlap: int) -> str:
    """The last whole sentences of `text` that fit in `overlap` characters."""
    tail = ""
    for sentence in reversed(sentences(text)):
        if len(tail) + len(sentence) > overlap:
            break
        tail = sentence + tail
    return tail


def chunks_build(blocks: list[Block], *, target: int = TARGET, overlap: int = OVERLAP) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    group: list[Block] = []

    def flush() -> None:
        if not group:
            return
        base, heading = group[0].locator, group[0].heading
        text = "".join(b.text if i == 0 else "\n" + b.text for i, b in enumerate(group))
        first, last = group[0].para, group[-1].para
        drafts.append(ChunkDraft(text, _locator(base, first, last), heading))
        group.clear()

    previous_base: str | None = None
    for block in blocks:
        if block.locator != previous_base:
            flush()
            previous_base = block.locator
        if len(block.text) > target:
            flush()
            carry = ""
            for piece in _pieces(block.text, target - overlap):
                text = (carry + piece) if carry else piece
                drafts.append(ChunkDraft(text, _locator(block.locator, block.para, block.para), block.heading))
                carry = _tail(piece, overlap)
            continue
        size = sum(len(b.text) + 1 for b in group)
        if group and size + len(block.text) > target:
            carried = _tail(group[-1].text, overlap)
            flush()
            if carried and carried != block.text:
                block = Block(carried + block.text, block.locator, block.para, block.heading)
        group.append(block)
    flush()
    return drafts
