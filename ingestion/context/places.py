"""The lines and table cells of a document where its context is read, and the choice among
what was read there: the value read at the most places, with the places for the evidence."""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath

from core.language.normalize import text_normalize

from ..ir import ExtractedDocument

COVER_BLOCKS = 30  # the cover of a document without pages: its first blocks
EVIDENCE_ITEMS = 3
_PAGE = re.compile(r"(?:^|,)(?:page|slide)=([0-9]+)")


@dataclass(frozen=True)
class Place:
    """A line or a cell of the document: normalised text, where it stands, whether on the cover."""

    text: str
    where: str
    order: tuple[int, int, int]
    cover: bool


@dataclass(frozen=True)
class Seen:
    """One reading: the value read (an entity code, or a report and its period), how and where."""

    value: Hashable
    what: str
    place: Place


def places_read(doc: ExtractedDocument) -> Iterator[Place]:
    stem = PurePath(doc.name).stem
    if doc.title and doc.title != stem:
        yield Place(text_normalize(doc.title), "title", (0, 0, -1), True)
    heading = ""
    for index, block in enumerate(doc.blocks):
        found = _PAGE.search(block.locator)
        page = int(found.group(1)) if found else 0
        cover = page == 1 if found else index < COVER_BLOCKS
        where = f"{block.locator},para={block.para}" if block.para and "para=" not in block.locator else block.locator
        if block.heading and block.heading != heading:
            yield Place(text_normalize(block.heading), block.locator or "heading", (page, 0, index), cover)
        heading = block.heading
        yield Place(text_normalize(block.text), where or f"para={index + 1}", (page, 0, index), cover)


def cells_read(doc: ExtractedDocument) -> Iterator[tuple[Place, Place | None, Place | None]]:
    """Every table cell, with the cell to its right and the one below it."""
    for number, table in enumerate(doc.tables):
        found = _PAGE.search(table.locator_prefix)
        page = int(found.group(1)) if found else 0
        rows = [[text_normalize(cell) for cell in row] for row in table.rows]
        grid = {
            (r, c): Place(text, table.locator_prefix, (page, 1, number), page == 1)
            for r, row in enumerate(rows)
            for c, text in enumerate(row)
            if text
        }
        for (r, c), cell in grid.items():
            yield cell, grid.get((r, c + 1)), grid.get((r + 1, c))


def choose(seen: Iterable[Seen], *, cover_first: bool) -> tuple[Hashable, str]:
    """The value read at the most places (a cover's first, when `cover_first`; one with a period
    before one without), the earliest on a tie; and where it was read."""
    groups: dict[Hashable, list[Seen]] = {}
    for item in seen:
        groups.setdefault(item.value, []).append(item)
    if not groups:
        return None, ""

    def rank(value: Hashable) -> tuple[bool, bool, int, tuple[int, int, int]]:
        items = groups[value]
        first = min(item.place.order for item in items)
        negated = (-first[0], -first[1], -first[2])
        cover = cover_first and any(item.place.cover for item in items)
        dated = isinstance(value, tuple) and value[1] is not None
        return cover, dated, len(items), negated

    best = max(groups, key=rank)
    items = sorted(groups[best], key=lambda item: item.place.order)
    shown: dict[str, str] = {}
    for item in items:
        shown.setdefault(item.what, item.place.where)
    listed = ", ".join(f"«{what}» at {where}" for what, where in list(shown.items())[:EVIDENCE_ITEMS])
    more = len(items) - min(len(shown), EVIDENCE_ITEMS)
    return best, listed + (f" and {more} more place{'s' if more > 1 else ''}" if more > 0 else "")
