"""Locators as a reader says them: `ACME集团 · D3 (营业收入, FY2024)`, `第3页 · 表1 ·
营业收入 / FY2025`, `第5张幻灯片及其备注`. The machine locator (`sheet=ACME集团!D3`,
`page=3,table=1,row=…,col=…`, `slide=5; slide=5,notes`) stays in the JSON and in a tooltip; this
is the one place it is turned into words.

A locator is parsed into typed parts, then rendered: the grammar the readers under `ingestion/`
and `retrieval.chunking` write is

    composite := locator ( "; " locator )*                 (`documents_find`: a document's hits)
    locator   := part ( "," part )*
    part      := page=N | slide=N | sheet=NAME[!A1] | section=TEXT | file=NAME
               | table=N | row=LABEL | col=LABEL | para=N[-M] | line=N | notes

A section's heading, a sheet's or a file's name and a cell's labels are text as printed, commas
included: a comma in them starts a part only when a `key=` (or `notes`) follows it. Parts are
said in order: the document-level place (page, slide, sheet, file, section) first, then table,
cell or paragraphs, then notes; each part once. A composite says a place its locators share
once and lists what differs under it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_SEPARATOR = " · "


@dataclass(frozen=True)
class Numbered:
    """A numbered place or range of them: `page=2`, `para=5-6` (`kind`, `first`, `last`)."""

    kind: str
    first: str
    last: str


@dataclass(frozen=True)
class Named:
    """A place named by text: a sheet, a section heading, an imported file."""

    kind: str
    name: str


@dataclass(frozen=True)
class SheetCell:
    """A sheet's A1 reference (`C4`, or `C4:D5`)."""

    reference: str


@dataclass(frozen=True)
class CellLabels:
    """A table cell named by its row label and column header (either may be missing)."""

    row: str
    column: str


@dataclass(frozen=True)
class Notes:
    """A slide's speaker notes."""


@dataclass(frozen=True)
class Unknown:
    """A part no reader writes (`figure=3`), kept so nothing a locator says is lost."""

    key: str
    value: str


Part = Numbered | Named | SheetCell | CellLabels | Notes | Unknown

_PLACE_KINDS = ("page", "slide", "sheet", "file", "section")  # where in the document, said first
_NUMBERED_KINDS = ("page", "slide", "table", "para", "line", "row")
_KEY = r"[a-z][a-z_]*="
_PART_HEAD = re.compile(rf"^\s*(?:{_KEY}|notes\s*$)")
_TEXT_VALUED = re.compile(r"^\s*(?:section|sheet|file|row|col)=")  # a printed text: commas are its own
_LOCATOR_START = re.compile(rf";\s*(?={_KEY}|notes(?:,|$))")
_RANGE = re.compile(r"^\s*(?P<first>[0-9]+)\s*(?:[-–—~～]\s*(?P<last>[0-9]+)\s*)?$")
_SHEET_CELL = re.compile(r"^(?P<sheet>.+)!(?P<cell>[A-Z]{1,3}[0-9]+(?::[A-Z]{1,3}[0-9]+)?)$")


@dataclass(frozen=True)
class _Words:
    """How one language says the parts: `numbered[kind]` is (one, several), e.g. `paragraph {}`
    and `paragraphs {}`; `items` lists what differs under one place, `groups` the places."""

    numbered: dict[str, tuple[str, str]]
    notes: str
    slide_notes: str
    slide_and_notes: str
    body: str
    items: str
    last_item: str
    groups: str


_WORDS = {
    "zh": _Words(
        numbered={
            "page": ("第{}页", "第{}页"),
            "slide": ("第{}张幻灯片", "第{}张幻灯片"),
            "table": ("表{}", "表{}"),
            "para": ("第{}段", "第{}段"),
            "line": ("第{}行", "第{}行"),
            "row": ("第{}行", "第{}行"),
        },
        notes="备注",
        slide_notes="{}备注",
        slide_and_notes="{}及其备注",
        body="正文",
        items="、",
        last_item="、",
        groups="，",
    ),
    "en": _Words(
        numbered={
            "page": ("page {}", "pages {}"),
            "slide": ("slide {}", "slides {}"),
            "table": ("table {}", "tables {}"),
            "para": ("paragraph {}", "paragraphs {}"),
            "line": ("line {}", "lines {}"),
            "row": ("row {}", "rows {}"),
        },
        notes="notes",
        slide_notes="{} notes",
        slide_and_notes="{} and its notes",
        body="body text",
        items=", ",
        last_item=" and ",
        groups=", ",
    ),
}


def _numbered(kind: str, value: str) -> Numbered:
    span = _RANGE.match(value)
    if span is None:
        return Numbered(kind, value.strip(), value.strip())
    return Numbered(kind, span["first"], span["last"] or span["first"])


def _part_parse(text: str) -> list[Part]:
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals:
        return [Notes()] if key == "notes" else [Unknown("", text.strip())]
    if key == "row":
        return [CellLabels(value, "")]
    if key in _NUMBERED_KINDS:
        return [_numbered(key, value)] if value.strip() else []
    if key == "sheet":
        cell = _SHEET_CELL.match(value)
        if cell is not None:
            return [Named("sheet", cell["sheet"]), SheetCell(cell["cell"])]
        return [Named("sheet", value)]
    if key in ("section", "file"):
        return [Named(key, value)]
    if key == "col":
        return [CellLabels("", value)]
    return [Unknown(key, value)]


def _rank(part: Part) -> int:
    if isinstance(part, Numbered | Named) and part.kind in _PLACE_KINDS:
        return 0
    if isinstance(part, Numbered) and part.kind == "table":
        return 1
    return 3 if isinstance(part, Notes) else 2


def locator_parse(locator: str) -> tuple[Part, ...]:
    """One locator (no `;`) as its parts, place first, each once; () for an empty locator."""
    texts: list[str] = []
    for piece in locator.split(","):
        if texts and not _PART_HEAD.match(piece) and _TEXT_VALUED.match(texts[-1]):
            texts[-1] += "," + piece
        else:
            texts.append(piece)
    parts = [part for text in texts for part in _part_parse(text)]
    # `row=…,col=…` name one cell together; a row number alone is a line of a file (`file=a.csv,row=12`)
    labels = [p for p in parts if isinstance(p, CellLabels)]
    if labels:
        row = next((p.row for p in labels if p.row), "")
        column = next((p.column for p in labels if p.column), "")
        table = any(isinstance(p, Numbered) and p.kind == "table" for p in parts)
        cell: Part = CellLabels(row, column)
        if not column and not table and _RANGE.match(row):
            cell = _numbered("row", row)
        at = parts.index(labels[0])
        parts = [p for p in parts if not isinstance(p, CellLabels)]
        parts.insert(at, cell)
    unique = list(dict.fromkeys(parts))
    return tuple(sorted(unique, key=_rank))


def _span(part: Numbered) -> str:
    return part.first if part.first == part.last else f"{part.first}–{part.last}"


def _numbered_words(kind: str, spans: Sequence[str], language: str) -> str:
    """`第5–6段` / `paragraphs 5–6`; several at once: `第5–6段、第1–4段` / `paragraphs 5–6 and 1–4`."""
    one, several = _WORDS[language].numbered[kind]
    if language == "zh":
        return _WORDS[language].items.join(one.format(span) for span in spans)
    if len(spans) == 1 and "–" not in spans[0]:
        return one.format(spans[0])
    return several.format(_list_join(spans, language))


def _list_join(items: Sequence[str], language: str) -> str:
    words = _WORDS[language]
    if len(items) < 2:
        return "".join(items)
    return words.items.join(items[:-1]) + words.last_item + items[-1]


def _part_words(part: Part, language: str, what: str = "") -> str:
    if isinstance(part, Numbered):
        return _numbered_words(part.kind, [_span(part)], language)
    if isinstance(part, Named):
        return part.name.strip()
    if isinstance(part, SheetCell):
        return part.reference + (f" ({what})" if what else "")
    if isinstance(part, CellLabels):
        return " / ".join(label for label in (part.row, part.column) if label)
    if isinstance(part, Notes):
        return _WORDS[language].notes
    return f"{part.key} {part.value}".strip()


def _is_slide(part: Part) -> bool:
    return isinstance(part, Numbered) and part.kind == "slide"


def _parts_words(parts: Sequence[Part], language: str, what: str = "") -> str:
    """One locator's parts in words; a slide's notes are said with the slide (`第5张幻灯片备注`)."""
    said = [_part_words(part, language, what) for part in parts if not isinstance(part, Notes)]
    if Notes() in parts:
        slide = next((i for i, p in enumerate(parts) if _is_slide(p)), None)
        if slide is None:
            said.append(_WORDS[language].notes)
        else:
            said[slide] = _WORDS[language].slide_notes.format(said[slide])
    return _SEPARATOR.join(words for words in said if words)


def _head(parts: tuple[Part, ...]) -> tuple[Part, ...]:
    return tuple(p for p in parts if _rank(p) == 0)


def _ordered_groups(tails: Iterable[tuple[Part, ...]]) -> dict[Part, list[tuple[Part, ...]]]:
    groups: dict[Part, list[tuple[Part, ...]]] = {}
    for tail in tails:
        groups.setdefault(tail[0], []).append(tail[1:])
    return groups


def _tails_words(tails: Sequence[tuple[Part, ...]], language: str) -> list[str]:
    """What differs under one place, each said once: paragraphs under one noun, a table's cells
    under the table (`表1 · 营业收入 / FY2025、毛利 / FY2025`)."""
    kinds = {p.kind for tail in tails for p in tail if isinstance(p, Numbered)}
    if all(len(t) == 1 and isinstance(t[0], Numbered) for t in tails) and len(kinds) == 1:
        spans = [_span(t[0]) for t in tails if isinstance(t[0], Numbered)]
        return [_numbered_words(kinds.pop(), spans, language)]
    words: list[str] = []
    for first, rests in _ordered_groups(t for t in tails if t).items():
        if len(rests) == 1:
            words.append(_parts_words((first, *rests[0]), language))
            continue
        below = _tails_words([r for r in rests if r], language)
        if any(not r for r in rests):
            below.insert(0, _WORDS[language].body)
        words.append(_SEPARATOR.join((_part_words(first, language), _list_join(below, language))))
    return words


def _group_words(head: tuple[Part, ...], tails: list[tuple[Part, ...]], language: str) -> str:
    words = _WORDS[language]
    if len(tails) == 1:
        return _parts_words(head + tails[0], language)
    place = _parts_words(head, language)
    if any(_is_slide(p) for p in head) and set(tails) == {(), (Notes(),)}:
        return words.slide_and_notes.format(place)
    below = _tails_words([t for t in tails if t], language)
    if () in tails:
        below.insert(0, words.body)
    return _SEPARATOR.join(w for w in (place, _list_join(below, language)) if w)


def locator_human(locator: str, *, language: str = "zh", what: str = "") -> str:
    """`locator` in words, in `language` (`zh` or `en`); `what` (e.g. `营业收入, FY2024`) is
    added after a sheet cell's reference, which does not say it. A composite (`; `-joined)
    locator is said as a list, a place its locators share said once. A part no reader writes
    is said as `key value`; a locator of which nothing parses is kept as written."""
    language = language if language in _WORDS else "zh"
    parsed = [locator_parse(one) for one in _LOCATOR_START.split(locator) if one.strip()]
    if not parsed or all(isinstance(p, Unknown) for parts in parsed for p in parts):
        return locator.strip()
    if len(parsed) == 1:
        return _parts_words(parsed[0], language, what)
    groups: dict[tuple[Part, ...], list[tuple[Part, ...]]] = {}
    for parts in parsed:
        tails = groups.setdefault(_head(parts), [])
        tail = tuple(p for p in parts if _rank(p) != 0)
        if tail not in tails:
            tails.append(tail)
    said = [_group_words(head, tails, language) for head, tails in groups.items()]
    return _WORDS[language].groups.join(said)


def source_human(document: str, locator: str, *, language: str = "zh", what: str = "") -> str:
    """A document and a place in it: `ACME_5yr_Summary.xlsx · ACME集团 · D3 (营业收入, FY2024)`."""
    place = locator_human(locator, language=language, what=what)
    return _SEPARATOR.join(part for part in (document, place) if part)


# A locator in running text ends where the text does, not inside a longer locator: not before a
# digit or letter (`slide=1` in `slide=10`), a range (`para=1` in `para=1-2`), a sheet cell
# (`sheet=X` in `sheet=X!C4`) or a further part (`slide=5` in `slide=5,notes`).
_BEFORE = r"(?<![0-9A-Za-z_=,!])"
_AFTER = rf"(?![0-9A-Za-z_!]|\s*[-–—~～]\s*[0-9]|,(?:{_KEY}|notes\b))"


def locators_in_words(text: str, places: dict[str, str]) -> str:
    """`text` with each machine locator among `places`' keys said in the words given for it, in
    one pass (longest first, so `slide=3` never replaces a piece of `slide=3,table=1,…`), and
    only where the whole locator stands (so `slide=1` leaves `slide=10` alone)."""
    wanted = sorted((locator for locator in places if locator), key=len, reverse=True)
    if not wanted or not text:
        return text
    pattern = re.compile(_BEFORE + "(?:" + "|".join(re.escape(locator) for locator in wanted) + ")" + _AFTER)
    return pattern.sub(lambda match: places[match.group(0)], text)
