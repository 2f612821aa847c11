"""Digital-PDF extraction (pdfplumber) into the shared IR.

Per page: ruled tables (`page=N,table=M`), titled by the text line just above each; the rest of
the text as paragraphs (`page=N`, numbered from 1 on each page). Lines are joined into a
paragraph unless a vertical gap, an indent or a short previous line ends it; CJK lines join with
no space. Lines set larger than the body text are headings: the largest on the first page is the
document title (unless the PDF's metadata has one), the others open sections (`Block.heading`).
A table's `lead` is the last paragraph above it on its page (none when a heading or another
table comes between), its `caption` every paragraph above it down to the previous table or
heading on the page, and its `heading` the nearest large line above it.

A table split over pages is read as printed: a page whose first table has no text above it
(running headers and footers aside) continues the previous page's last table when that one has
no text below it, the two have as many columns, and the new one repeats the header rows (the
rows above the first row with a number other than a year) or has none of its own. The
continuation takes the previous table's title, lead and heading, and its header rows when it
does not repeat them, so its columns are still named.
A PDF that needs a password is refused; text that cannot be decoded to Unicode (`(cid:N)`) is
dropped with a warning; a scanned PDF (no text layer) yields nothing and is refused as empty.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import re
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from .aligned import Line, Word, aligned_tables
from .grids import grid_tidy
from .ir import (
    PDF_EMPTY_PASSWORD,
    PDF_UNDECODABLE_LINES,
    Block,
    ExtractedDocument,
    ExtractionError,
    IngestWarning,
    Table,
)
from .pdf_objects import page_objects, pdfium_objects
from .statements import statement_of
from .values import value_parse

_CID = re.compile(r"\(cid:[0-9]+\)")
_LINE_GAP = 6.0  # points: pieces closer than this are lines of one paragraph
_TITLE_GAP = 36.0  # points: how far above a table its title line may sit
_HEADING_RATIO = 1.15
_MARGIN = 0.1  # running headers and footers sit in this fraction of the page at its top or bottom
_YEAR = re.compile(r"(?:19|20)[0-9]{2}|2100")


@dataclass(frozen=True)
class _Found:
    """A table as found on its page, before its lead and heading are known."""

    top: float
    bottom: float
    title: str
    rows: list[list[str]]


@dataclass(frozen=True)
class _Page:
    number: int
    height: float
    lines: list[dict[str, Any]]
    found: list[_Found]


@dataclass(frozen=True)
class _Piece:
    """A paragraph or a heading line as laid out on its page."""

    top: float
    bottom: float
    text: str
    is_heading: bool


def _inside(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _join(left: str, right: str) -> str:
    if left and right and left[-1].isdigit() and right[0].isdigit() and left[-1].isascii() and right[0].isascii():
        return left + right  # a figure a narrow cell wrapped (`963,9` / `47`)
    if left and right and left[-1].isascii() and left[-1].isalnum() and right[0].isascii() and right[0].isalnum():
        return f"{left} {right}"
    if left.endswith("-") and left[-2:-1].isalpha() and right[:1].isascii() and right[:1].isalpha():
        return left[:-1] + right  # a word hyphenated at the line end; a spaced dash (`holders -`) stays
    return left + right


def _unreadable(text: str) -> bool:
    """Text that pdfminer could not map to Unicode: `(cid:1796)(cid:2359)…`."""
    garbage = sum(len(m) for m in _CID.findall(text))
    return garbage > 0 and garbage * 2 >= len(text.replace(" ", ""))


def _cell(text: str | None) -> str:
    if not text:
        return ""
    text = _CID.sub("", text)
    out = ""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            out = _join(out, line) if out else line
    return out


def _size(line: dict[str, Any]) -> float:
    if "size" in line:
        return float(line["size"])
    sizes = [round(float(ch.get("size", 0)), 1) for ch in line.get("chars", []) if not ch["text"].isspace()]
    return max(sizes, default=0.0)


def _slim(line: dict[str, Any]) -> dict[str, Any]:
    """What the paragraph pass needs of a line; the page's char objects are not kept (memory)."""
    return {
        "text": line["text"],
        "top": line["top"],
        "bottom": line["bottom"],
        "x0": line["x0"],
        "x1": line["x1"],
        "size": _size(line),
    }


def _open(name: str, data: bytes) -> Any:
    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    try:
        pdf = pdfplumber.open(io.BytesIO(data))
        _ = pdf.pages  # the page tree is parsed lazily; a damaged file fails here
    except Exception as error:
        cause: BaseException | None = error
        while cause is not None:
            if isinstance(cause, PDFPasswordIncorrect) or "password" in type(cause).__name__.lower():
                raise ExtractionError(
                    f"{name}: the PDF is password-protected (encrypted); remove the password and upload it again.",
                    "encrypted",
                ) from None
            cause = cause.__cause__ or cause.__context__
            if cause is error:
                break
        raise ExtractionError(
            f"{name}: the PDF could not be read ({type(error).__name__}); the file is damaged.", "corrupt"
        ) from None
    return pdf


def read_pdf(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    pdf = _open(name, data)
    try:
        count = len(pdf.pages)
        if count == 0:
            raise ExtractionError(f"{name}: the PDF has no pages.", "empty")
        if count > max_pages:
            raise ExtractionError(f"{name}: {count} pages exceed the limit of {max_pages}.", "too_many_pages")
        warnings: list[IngestWarning] = []
        if getattr(pdf.doc, "encryption", None):
            warnings.append(
                IngestWarning(
                    PDF_EMPTY_PASSWORD,
                    "the PDF is encrypted with an empty user password (permissions only); read as usual",
                )
            )
        pages, dropped = _pages_read(name, data, pdf, count)
        sizes: Counter[float] = Counter()
        for page in pages:
            for line in page.lines:
                sizes[_size(line)] += len(line["text"])
        if dropped:
            warnings.append(
                IngestWarning(
                    PDF_UNDECODABLE_LINES,
                    f"{dropped} lines of text could not be decoded (fonts without a Unicode mapping)",
                    count=dropped,
                )
            )
            if not any(p.lines for p in pages) and not any(p.found for p in pages):
                raise ExtractionError(
                    f"{name}: no readable text: the PDF's fonts have no Unicode mapping (or it is scanned); "
                    "OCR is not supported.",
                    "empty",
                )
        body = sizes.most_common(1)[0][0] if sizes else 0.0
        meta = pdf.metadata or {}
        title, blocks, pieces = _paragraphs(pages, body, str(meta.get("Title") or "").strip())
        tables = _tables_placed(pages, pieces)
    finally:
        pdf.close()
    return ExtractedDocument(name, media_type, title or PurePath(name).stem, tables, blocks, count, warnings)


_PAGES_PER_WORKER = 24  # below this many pages a second process costs more than it saves


def _pages_read(name: str, data: bytes, pdf: Any, count: int) -> tuple[list[_Page], int]:
    """Every page's text lines and tables, and how many lines could not be decoded. A long PDF
    is read in one process per core, each on its own run of pages; the pages are the same as
    read in one process (pdfplumber reads a page from the file alone)."""
    workers = min(os.cpu_count() or 1, count // _PAGES_PER_WORKER)
    if workers < 2:
        return _page_range(pdf, 1, count, data)
    bounds = [(1 + count * k // workers, count * (k + 1) // workers) for k in range(workers)]
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver")) as pool:
            runs = list(pool.map(_page_range_of, [(name, data, first, last) for first, last in bounds]))
    except (BrokenProcessPool, OSError):  # no process could be started here: read in this one
        return _page_range(pdf, 1, count, data)
    return [page for pages, _ in runs for page in pages], sum(dropped for _, dropped in runs)


def _page_range_of(job: tuple[str, bytes, int, int]) -> tuple[list[_Page], int]:
    name, data, first, last = job
    pdf = _open(name, data)
    try:
        return _page_range(pdf, first, last, data)
    finally:
        pdf.close()


def _page_range(pdf: Any, first: int, last: int, data: bytes = b"") -> tuple[list[_Page], int]:
    """Pages `first`..`last` (1-based, inclusive) as `_Page`s, and the undecodable line count.

    A page's tables are read from its ruling lines where they draw a table (two rows or more
    over two columns or more); cell shading or rules that draw only one-row fragments are no
    table, and the text there is read with the rest. The page's other lines are searched for
    tables printed without rules (`ingestion.aligned`): each table is read the one way its page
    shows it."""
    pages: list[_Page] = []
    dropped = 0
    drawn = _pdfium_open(data)
    for number in range(first, last + 1):
        page = pdf.pages[number - 1]
        # what pdfplumber would build from pdfminer's reading: by PDFium where it places the
        # objects the same way, else from pdfminer's objects without pdfplumber's general path
        fast = pdfium_objects(page, drawn[number - 1]) if drawn is not None else None
        page._objects = fast if fast is not None else page_objects(page)
        ruled = [(t, grid) for t in page.find_tables() if _drawn(grid := grid_tidy(_cells(t.extract())))]
        boxes = [tuple(t.bbox) for t, _ in ruled]
        rest = page.filter(lambda obj, boxes=boxes: not _inside(obj, boxes)) if boxes else page
        raw = []
        for line in rest.extract_text_lines(return_chars=True):
            if _unreadable(line["text"]):
                dropped += 1
            elif line["text"].strip():
                raw.append(line)
        barriers = tuple(t.bbox[1] for t, _ in ruled)
        aligned = aligned_tables([_positioned(line) for line in raw], _char_width(raw), barriers)
        used = {index for table in aligned for index in table.lines}
        lines = [_slim(line) for index, line in enumerate(raw) if index not in used]
        placed = [(t.bbox[1], t.bbox[3], grid) for t, grid in ruled]
        placed += [(table.top, table.bottom, table.rows) for table in aligned]
        tables = []
        for top, bottom, grid in sorted(placed, key=lambda item: item[0]):
            above = [ln for ln in lines if ln["bottom"] <= top + 1 and ln["top"] >= top - _TITLE_GAP]
            title = _cell(above[-1]["text"]) if above else ""
            tables.append(_Found(top, bottom, title, grid))
        pages.append(_Page(number, float(page.height), lines, tables))
        page.close()
    return pages, dropped


def _pdfium_open(data: bytes) -> Any:
    """The PDF opened by PDFium as well, or None (no bytes given, or PDFium cannot read it)."""
    if not data:
        return None
    try:
        import pypdfium2

        return pypdfium2.PdfDocument(data)
    except Exception:  # pdfminer reads what PDFium cannot
        return None


def _drawn(grid: list[list[str]]) -> bool:
    """Whether ruling lines drew a table: two rows or more, two columns or more with text."""
    filled = [row for row in grid if sum(1 for cell in row if cell) >= 1]
    columns = {c for row in grid for c, cell in enumerate(row) if cell}
    return len(filled) >= 2 and len(columns) >= 2


def _positioned(line: dict[str, Any]) -> Line:
    """A text line as words with their extents: a space in the line's text (where pdfplumber saw a
    space glyph or a gap) or a gap of a fifth of the type size between two characters ends a word."""
    spaced = _spaces_before(line)
    words: list[Word] = []
    text, x0, x1 = "", 0.0, 0.0
    for k, char in enumerate(line["chars"]):
        glyph = char["text"]
        split = float(char.get("size", 0) or 0) * 0.2 or 1.0
        if glyph.isspace() or (text and (char["x0"] - x1 > split or k in spaced)):
            if text:
                words.append(Word(x0, x1, _CID.sub("", text)))
            text = ""
            if glyph.isspace():
                continue
        if not text:
            x0 = char["x0"]
        text += glyph
        x1 = char["x1"]
    if text:
        words.append(Word(x0, x1, _CID.sub("", text)))
    return Line(line["top"], line["bottom"], tuple(w for w in words if w.text))


def _spaces_before(line: dict[str, Any]) -> set[int]:
    """The characters of a line (by index in `chars`) that its text prints a space before."""
    found: set[int] = set()
    chars, at, space = line["chars"], 0, False
    for letter in line["text"]:
        if letter.isspace():
            space = True
            continue
        while at < len(chars) and chars[at]["text"].isspace():
            at += 1
        if at >= len(chars) or chars[at]["text"] != letter:
            return found  # the text and the characters part ways (a ligature): gaps alone decide
        if space:
            found.add(at)
        space = False
        at += 1
    return found


def _char_width(lines: list[dict[str, Any]]) -> float:
    """A page's typical character width (points), its body text's."""
    widths = sorted(char["x1"] - char["x0"] for line in lines for char in line["chars"] if not char["text"].isspace())
    return widths[len(widths) // 2] if widths else 5.0


def _paragraphs(pages: list[_Page], body: float, title: str) -> tuple[str, list[Block], dict[int, list[_Piece]]]:
    """Lines → paragraph blocks (`page=N`, numbered per page); large lines → title and headings.

    Also returns, per page number, its paragraphs and heading lines where they sit (`_Piece`).
    """
    largest = max((_size(line) for page in pages for line in page.lines), default=0.0)
    blocks: list[Block] = []
    pieces: dict[int, list[_Piece]] = {}
    heading = ""
    for page in pages:
        number, lines = page.number, page.lines
        placed = pieces.setdefault(number, [])
        para = 0
        current: list[str] = []
        span = (0.0, 0.0)
        previous: dict[str, Any] | None = None
        left = min((line["x0"] for line in lines), default=0.0)
        right = max((line["x1"] for line in lines), default=0.0)
        for line in lines:
            text = " ".join(line["text"].split())
            size = _size(line)
            heading_line = bool(body) and size >= body * _HEADING_RATIO
            height = max(line["bottom"] - line["top"], 1.0)
            new = (
                heading_line
                or previous is None
                or line["top"] - previous["bottom"] > 0.8 * height  # paragraph spacing
                or line["x0"] - left > 1.5 * height  # a first-line indent
                or previous["x1"] < right - 2 * height  # the previous line stopped short
                or abs(_size(previous) - size) > 0.5
            )
            if new and current:
                para += 1
                blocks.append(Block(current[0], f"page={number}", para, heading))
                placed.append(_Piece(*span, current[0], False))
                current = []
            if heading_line:
                if not title and number == pages[0].number and size == largest and not blocks:
                    title = text
                elif text != title:
                    heading = text
                placed.append(_Piece(line["top"], line["bottom"], text, True))
                previous = None
                continue
            if current:
                current = [_join(current[0], text)]
                span = (span[0], line["bottom"])
            else:
                current, span = [text], (line["top"], line["bottom"])
            previous = line
        if current:
            para += 1
            blocks.append(Block(current[0], f"page={number}", para, heading))
            placed.append(_Piece(*span, current[0], False))
    return title, blocks, pieces


def _lead_paragraph(near: list[_Piece]) -> str:
    """The paragraph right before a table. The layout pass may break one paragraph into pieces
    (a line that stops short, a sentence that starts a line); pieces set at line spacing, with
    no paragraph gap between them, are joined back."""
    if not near or near[-1].is_heading:
        return ""
    pieces = [near[-1]]
    for piece in reversed(near[:-1]):
        if piece.is_heading or pieces[0].top - piece.bottom > _LINE_GAP:
            break
        pieces.insert(0, piece)
    return " ".join(piece.text for piece in pieces)


def _tables_placed(pages: list[_Page], pieces: dict[int, list[_Piece]]) -> list[Table]:
    """Every table with its lead and heading; a table continued from the previous page as one."""
    running = _running_lines(pages)
    tables: list[Table] = []
    heading = ""  # the nearest heading above the current page
    open_table: Table | None = None  # the previous page's last table, when nothing follows it there
    for page in pages:
        placed = pieces.get(page.number, [])
        by_top = sorted(range(len(page.found)), key=lambda i: page.found[i].top)
        made: dict[int, Table] = {}
        for position, index in enumerate(by_top):
            found = page.found[index]
            above = [p for p in placed if p.bottom <= found.top + 1]
            headings = [p.text for p in above if p.is_heading]
            floor = max((f.bottom for f in page.found if f.bottom <= found.top + 1), default=0.0)
            near = [p for p in above if p.top >= floor - 1]
            lead = _lead_paragraph(near)
            after_heading = [q for q in near if not q.is_heading] if not near or not near[-1].is_heading else []
            table = Table(
                f"page={page.number},table={index + 1}",
                found.title,
                found.rows,
                lead=lead,
                heading=headings[-1] if headings else heading,
                caption=" ".join(q.text for q in after_heading),
            )
            text_above = [
                ln["text"]
                for k, ln in enumerate(page.lines)
                if ln["bottom"] <= found.top + 1 and (page.number, k) not in running
            ]
            if open_table is not None and text_above and _title_again(text_above, open_table):
                text_above = []  # `… (continued)`, or the statement's title printed again
            if position == 0 and open_table is not None and not text_above and _continues(open_table, table):
                table = _continued(open_table, table)
            made[index] = table
        tables.extend(made[index] for index in range(len(page.found)))
        heading = next((p.text for p in reversed(placed) if p.is_heading), heading)
        open_table = None
        if by_top:
            last = max(range(len(page.found)), key=lambda i: page.found[i].bottom)
            bottom = page.found[last].bottom
            if not any(ln["top"] >= bottom - 1 and (page.number, k) not in running for k, ln in enumerate(page.lines)):
                open_table = made[last]
    return _statements_carried(tables)


_CONTINUED = re.compile(r"[(（]\s*(?:continued|cont'?d\.?|续(?:表)?)\s*[)）]|^续表|continued$", re.IGNORECASE)


def _title_again(texts: list[str], previous: Table) -> bool:
    """Whether the lines above a table only carry on the previous page's table: one of them says
    `(continued)` / `（续）`, or they name the statement the previous table is."""
    if any(_CONTINUED.search(" ".join(text.split())) for text in texts):
        return True
    named = statement_of(*texts)
    return named is not None and named == statement_of(previous.heading, previous.title, previous.caption)


def _statements_carried(tables: list[Table]) -> list[Table]:
    """A table that names no statement, as wide as the table of a statement right before it on
    its page or the page before, is that statement's next block or page (an equity statement's
    prior-year block, a page the continuation rule could not join): it takes that caption."""
    carried: list[Table] = []
    for table in tables:
        before = carried[-1] if carried else None
        if (
            before is not None
            and statement_of(table.title, table.caption, table.lead) is None
            and statement_of(before.title, before.caption, before.lead) is not None
            and table.width == before.width
            and 0 <= _page_of(table) - _page_of(before) <= 1
        ):
            table = replace(table, caption=before.caption)
        carried.append(table)
    return carried


def _page_of(table: Table) -> int:
    return int(table.locator_prefix.split(",")[0].removeprefix("page="))


def _continues(previous: Table, table: Table) -> bool:
    """Whether `table`, found where a continuation would be, reads as one: as many columns, and
    either the previous header repeated or no header of its own (a row naming columns above
    its first number; a label alone, such as `Liabilities:`, names none)."""
    if table.width != previous.width:
        return False
    header = _header_rows(previous.rows)
    if header and table.rows[: len(header)] == header:
        return True
    return not any(any(row[1:]) for row in _header_rows(table.rows))


def _continued(previous: Table, table: Table) -> Table:
    """`table` read as the rest of `previous`: its caption, and its header rows unless repeated."""
    header = _header_rows(previous.rows)
    rows = table.rows if table.rows[: len(header)] == header else [*header, *table.rows]
    return replace(
        table, title=previous.title, rows=rows, lead=previous.lead, heading=previous.heading, caption=previous.caption
    )


def _header_rows(rows: list[list[str]]) -> list[list[str]]:
    """The rows above the first row holding a number other than a year ([] when no row holds one)."""
    for index, row in enumerate(rows):
        if any(value_parse(cell) is not None and not _YEAR.fullmatch(cell.strip()) for cell in row):
            return [list(r) for r in rows[:index]]
    return []


_PAGE_NUMBER = re.compile(
    r"[-–—\s]*(?:page\s*)?#(?:\s*(?:of|/)\s*#)?[-–—\s]*|第\s*#\s*页(?:\s*[,，]?\s*共\s*#\s*页)?", re.I
)


def _running_lines(pages: list[_Page]) -> set[tuple[int, int]]:
    """Running headers and footers as (page number, line index): lines in a page's top or bottom
    margin that are a page number or recur, numbers aside, in the margins of another page."""
    keyed: list[tuple[int, int, str]] = []
    for page in pages:
        for index, line in enumerate(page.lines):
            if line["bottom"] <= page.height * _MARGIN or line["top"] >= page.height * (1 - _MARGIN):
                keyed.append((page.number, index, re.sub(r"[0-9]+", "#", " ".join(line["text"].split()))))
    pages_of: dict[str, set[int]] = {}
    for number, _, key in keyed:
        pages_of.setdefault(key, set()).add(number)
    return {(number, index) for number, index, key in keyed if len(pages_of[key]) > 1 or _PAGE_NUMBER.fullmatch(key)}


def _cells(rows: list[list[str | None]]) -> list[list[str | None]]:
    """Cell texts cleaned (`_cell`); `None` stays where a cell is merged into its left neighbour."""
    return [[None if cell is None else _cell(cell) for cell in row] for row in rows]
