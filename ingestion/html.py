"""HTML (`.html`, `.htm`) into the shared IR, with the standard library's `html.parser`.

Text: headings (`<h1>`…`<h6>`) open sections, as Word's Heading styles do; every other block of
text (`<p>`, `<div>`, `<li>`, text between blocks) is a paragraph, `section=<heading>` and
numbered within it. `<title>`, else the first `<h1>` before any section, is the document's title.
Converters of filed reports write a bare `<h>` for any bold line: it is a heading unless it reads
as a sentence (ends in `。`, `：` …, or runs past a caption's length), then it is a paragraph.
`<head>` (the title aside), `<script>`, `<style>`, `<template>`, `<svg>`, `<math>` and comments
are not read. Entities are decoded (`&nbsp;`, `&amp;`, `&#20803;`); whitespace collapses to one
space, except that a line break between two CJK characters is none (as browsers render it, and
as filed reports converted from PDF break their lines); `<br>` is a space.

Tables: every `<table>` (`table=N`, numbered in document order; one inside a cell is a table of
its own) is a grid with `rowspan` / `colspan` expanded: a merged text cell's text is repeated
across its span, a merged value stays in its first position (as docx and pptx do). Its title is
its `<caption>`, else a caption-like paragraph right before it; its `lead` the paragraph right
before it (none after a heading or another table) and its `heading` the nearest heading above.
A table with no text is dropped. A statement printed as lines of text with aligned columns (a
`<pre>` block, or one `<p>` per line padded with spaces) is a table too, read by
`ingestion.aligned` (a wide character counts two columns) and numbered with the others in
document order; its lines are no paragraphs.

Decoding (`html_text`): a byte-order mark, else the `<meta charset>` the file declares, else UTF-8,
else GB18030 (a superset of GBK and GB2312, in which Chinese filings are often saved).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import PurePath

from .aligned import Line, Word, aligned_tables
from .ir import Block, ExtractedDocument, ExtractionError, Table
from .office import _CAPTION_LIMIT, _SENTENCE_END
from .values import spreads_over_merge

MAX_CELLS = 2_000_000  # expanded grid cells per document: spans must not blow a small file up
_MAX_COLSPAN = 1000  # the HTML standard's own limits
_MAX_ROWSPAN = 65534
_PRESCAN = 4096  # bytes searched for `<meta charset>`
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
# The WHATWG encoding standard reads these labels as these decoders.
_CHARSET_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "chinese": "gb18030",
    "csgb2312": "gb18030",
    "gb_2312-80": "gb18030",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
}
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_HTML_TAG = re.compile(
    r"<(?:!doctype\s+html|html|head|body|title|meta|p|h[1-6]?|table|tr|td|th|div|span|br|ul|ol|li|a|b|font)\b",
    re.IGNORECASE,
)
_SKIPPED = frozenset({"script", "style", "template", "svg", "math", "head"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "h"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog", "div",
        "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "html",
        "li", "main", "nav", "ol", "p", "pre", "section", "summary", "ul",
    }
)  # fmt: skip
_SENTENCE_LIKE = (*_SENTENCE_END, "：", ":")


def _declared_charset(data: bytes) -> str | None:
    found = _META_CHARSET.search(data[:_PRESCAN])
    if found is None:
        return None
    label = found.group(1).decode("ascii", "replace").lower()
    label = _CHARSET_ALIASES.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return None if name.startswith("utf-16") else name  # a file that says UTF-16 in ASCII is not UTF-16


def html_text(name: str, data: bytes) -> str:
    """The file's text, decoded; `ExtractionError` for binary content or text in no known encoding."""
    bom = next((encoding for mark, encoding in _BOMS if data.startswith(mark)), None)
    if bom is None and b"\x00" in data[:8192]:
        raise ExtractionError(f"{name}: mislabelled: binary content in an HTML file.", "mislabelled")
    candidates = [bom] if bom else [_declared_charset(data), "utf-8", "gb18030"]
    for encoding in dict.fromkeys(c for c in candidates if c):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise ExtractionError(
        f"{name}: the text is neither UTF-8 nor GB18030 (GBK), and no <meta charset> names its encoding; "
        "save it as UTF-8 and upload again.",
        "corrupt",
    )


def html_check(name: str, data: bytes) -> None:
    """Refuse bytes that do not decode as text, or text with no HTML in it."""
    if not _HTML_TAG.search(html_text(name, data)):
        raise ExtractionError(f"{name}: mislabelled: the content is not HTML (no HTML tags).", "mislabelled")


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _collapse(pieces: list[str | None]) -> str:
    """Text pieces as read (`None` for a `<br>` or a block inside a cell) → one line of text."""
    segments: list[str] = []
    current: list[str] = []
    for piece in [*pieces, None]:
        if piece is not None:
            current.append(piece)
            continue
        out = ""
        for line in "".join(current).splitlines():
            line = " ".join(line.split())
            if line:
                out += line if not out or (_wide(out[-1]) and _wide(line[0])) else " " + line
        if out:
            segments.append(out)
        current = []
    return " ".join(segments)


def _raw_lines(pieces: list[str | None]) -> list[str]:
    """A paragraph's lines as written (`<br>` and line breaks end one), spaces kept."""
    lines: list[str] = []
    current: list[str] = []
    for piece in [*pieces, None]:
        if piece is not None:
            current.append(piece)
            continue
        lines += "".join(current).replace("\xa0", " ").replace("\u3000", "  ").splitlines()
        current = []
    return lines


def _positioned(number: int, text: str) -> Line:
    """A line of text as words at their display columns (a wide character takes two)."""
    words: list[Word] = []
    column, start, word = 0.0, 0.0, ""
    for char in text:
        width = 2.0 if _wide(char) else 1.0
        if char.isspace():
            if word:
                words.append(Word(start, column, word))
                word = ""
        else:
            if not word:
                start = column
            word += char
        column += width
    if word:
        words.append(Word(start, column, word))
    return Line(float(number), number + 0.8, tuple(words))


def _span(value: str | None, limit: int) -> int:
    """A `rowspan` / `colspan` as the standard reads it: a non-negative integer, 1 when unreadable."""
    digits = re.match(r"\s*([0-9]+)", value or "")
    if digits is None:
        return 1
    return min(int(digits.group(1)), limit)


@dataclass
class _Cell:
    rowspan: int
    colspan: int
    pieces: list[str | None] = field(default_factory=list)


@dataclass
class _TableBuilder:
    number: int
    lead: str
    heading: str
    above: str = ""  # every paragraph since the previous table or heading (`Table.caption`)
    caption: list[str | None] = field(default_factory=list)
    rows: list[list[_Cell]] = field(default_factory=list)
    cell: _Cell | None = None
    in_caption: bool = False
    row_ended: bool = False  # a cell after `</tr>` opens a row of its own, as in a browser

    def row_open(self) -> None:
        self.cell, self.row_ended = None, False
        self.rows.append([])

    def row_close(self) -> None:
        self.cell, self.row_ended = None, True

    def cell_open(self, rowspan: int, colspan: int) -> None:
        if not self.rows or self.row_ended:
            self.row_open()
        self.cell = _Cell(rowspan, colspan)
        self.rows[-1].append(self.cell)


def _spans(rows: list[list[_Cell]]) -> list[list[tuple[int, int]]]:
    """Each cell's (rowspan, colspan) as placed: `rowspan="0"` and a rowspan past the last row
    reach the last row."""
    return [
        [(len(rows) - r if cell.rowspan == 0 else min(max(cell.rowspan, 1), len(rows) - r), max(cell.colspan, 1))
         for cell in cells]
        for r, cells in enumerate(rows)
    ]  # fmt: skip


def _grid(rows: list[list[_Cell]]) -> list[list[str]]:
    """The cells placed as a browser places them, spans expanded."""
    grid: list[list[str | None]] = [[] for _ in rows]
    for r, (cells, spans) in enumerate(zip(rows, _spans(rows), strict=True)):
        c = 0
        for cell, (rowspan, colspan) in zip(cells, spans, strict=True):
            while c < len(grid[r]) and grid[r][c] is not None:
                c += 1
            text = _collapse(cell.pieces)
            spread = text if spreads_over_merge(text) else ""
            for dr in range(rowspan):
                row = grid[r + dr]
                if len(row) < c + colspan:
                    row.extend([None] * (c + colspan - len(row)))
                for dc in range(colspan):
                    if row[c + dc] is None:  # spans that overlap (a malformed table) keep the first
                        row[c + dc] = text if dr == 0 and dc == 0 else spread
            c += colspan
    width = max((len(row) for row in grid), default=0)
    return [[cell or "" for cell in row] + [""] * (width - len(row)) for row in grid]


class _Reader(HTMLParser):
    def __init__(self, name: str) -> None:
        super().__init__(convert_charrefs=True)
        self.name = name
        self.title_text: list[str | None] = []
        self.in_title = False
        self.skipping: list[str] = []  # the open elements whose content is not read
        self.heading_tag = ""  # the heading element being read
        self.pieces: list[str | None] = []  # the paragraph or heading being read
        self.open_tables: list[_TableBuilder] = []
        self.done_tables: list[_TableBuilder] = []
        self.table_count = 0
        self.blocks: list[Block] = []
        self.doc_title = ""  # the first `<h1>` before any section
        self.section = ""
        self.heading = ""  # the nearest heading, for the tables below it
        self.para = 0
        self.previous = ""  # the paragraph just read, for a table's lead; "" after a heading or a table
        self.since: list[str] = []  # the paragraphs since the previous table or heading
        # what the body holds, in order: a paragraph's lines as written (its block's index), a
        # `<table>` (its number), a heading (a break): where tables printed as text lines are read
        self.flow: list[tuple[str, int, list[str]]] = []

    # -- where text goes ---------------------------------------------------------------------------

    def _target(self) -> list[str | None] | None:
        if self.open_tables:
            table = self.open_tables[-1]
            if table.in_caption:
                return table.caption
            return table.cell.pieces if table.cell is not None else None
        return self.pieces

    def _flush(self) -> None:
        """End the paragraph or heading being read (text outside tables)."""
        text = _collapse(self.pieces)
        lines = _raw_lines(self.pieces)
        tag, self.pieces, self.heading_tag = self.heading_tag, [], ""
        if not text:
            return
        sentence = tag == "h" and (text.endswith(_SENTENCE_LIKE) or len(text) > _CAPTION_LIMIT)
        if tag and not sentence:
            self.flow.append(("heading", len(self.blocks), [text]))
            self.heading, self.previous, self.since = text, "", []
            if tag == "h1" and not self.doc_title and not self.section:
                self.doc_title = text
            else:
                self.section, self.para = text, 0
            return
        self.para += 1
        self.flow.append(("lines", len(self.blocks), lines))
        self.blocks.append(Block(text, f"section={self.section}" if self.section else "", self.para, self.section))
        self.previous = text
        self.since.append(text)

    # -- the parser's events -----------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body" or (self.skipping == ["head"] and (tag in _BLOCKS or tag in _HEADINGS or tag == "table")):
            self.skipping = []  # a `<head>` left open ends where the body's content starts
        if self.skipping:
            if tag in _SKIPPED:
                self.skipping.append(tag)
            elif tag == "title" and self.skipping == ["head"]:
                self.in_title = True
            return
        if tag in _SKIPPED:
            self.skipping.append(tag)
            return
        if tag == "title":
            self.in_title = True
            return
        table = self.open_tables[-1] if self.open_tables else None
        if tag == "table":
            if table is None:
                self._flush()
            self.table_count += 1
            if table is None:
                self.flow.append(("table", self.table_count, []))
            lead, heading = (self.previous, self.heading) if table is None else ("", self.heading)
            above = " ".join(self.since) if table is None else ""
            self.open_tables.append(_TableBuilder(self.table_count, lead, heading, above))
            return
        if table is not None:
            self._table_tag(table, tag, attrs)
            return
        if tag in _HEADINGS:
            self._flush()
            self.heading_tag = tag
        elif tag in _BLOCKS:
            self._flush()
        elif tag == "br":
            self.pieces.append(None)

    def _table_tag(self, table: _TableBuilder, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            table.in_caption = False
            table.row_open()
        elif tag in ("td", "th"):
            table.in_caption = False
            values = dict(attrs)
            table.cell_open(_span(values.get("rowspan"), _MAX_ROWSPAN), _span(values.get("colspan"), _MAX_COLSPAN))
        elif tag == "caption":
            table.in_caption = True
        elif tag == "br" or tag in _BLOCKS or tag in _HEADINGS:
            target = self._target()
            if target is not None:
                target.append(None)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """`<br/>`: HTML ignores the slash, except that an element whose content is not read
        (`<script src="…"/>`, `<title/>`) must not stay open over the rest of the file."""
        if tag not in _SKIPPED and tag != "title":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == "title":
                self.in_title = False
            elif tag in self.skipping:
                while self.skipping and self.skipping.pop() != tag:
                    pass
            return
        if tag == "title":
            self.in_title = False
            return
        if self.open_tables:
            table = self.open_tables[-1]
            if tag == "table":
                self._table_close()
            elif tag == "caption":
                table.in_caption = False
            elif tag in ("td", "th"):
                table.cell = None
            elif tag == "tr":
                table.row_close()
            elif tag in _BLOCKS or tag in _HEADINGS:
                target = self._target()
                if target is not None:
                    target.append(None)
            return
        if tag in _HEADINGS or tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_text.append(data)
            return
        if self.skipping:
            return
        target = self._target()
        if target is not None:
            target.append(data)

    def _table_close(self) -> None:
        table = self.open_tables.pop()
        self.done_tables.append(table)
        if not self.open_tables:
            self.previous, self.since = "", []

    def close(self) -> None:
        super().close()
        while self.open_tables:
            self._table_close()
        self._flush()

    # -- the result --------------------------------------------------------------------------------

    def tables(self) -> list[Table]:
        cells = sum(r * c for built in self.done_tables for row in _spans(built.rows) for r, c in row)
        if cells > MAX_CELLS:
            raise ExtractionError(
                f"{self.name}: its tables expand to more than {MAX_CELLS:,} cells (merged cells included); "
                "the file is refused as too large.",
                "too_large",
            )
        placed: list[tuple[float, Table]] = []
        order = {number: k for k, (kind, number, _) in enumerate(self.flow) if kind == "table"}
        for built in sorted(self.done_tables, key=lambda t: t.number):
            rows = _grid(built.rows)
            if not any(any(row) for row in rows):
                continue
            caption = _collapse(built.caption)
            lead = built.lead
            is_caption = len(lead) <= _CAPTION_LIMIT and not lead.endswith(_SENTENCE_END)
            title = caption or (lead if is_caption else "")
            where = order.get(built.number, len(self.flow)) + built.number / (MAX_CELLS * 10)
            placed.append((where, Table("", title, rows, lead=lead, heading=built.heading, caption=built.above)))
        placed += self._text_tables()
        return [replace(table, locator_prefix=f"table={k + 1}") for k, (_, table) in enumerate(sorted(placed))]

    def _text_tables(self) -> list[tuple[float, Table]]:
        """Tables printed as lines of text with aligned columns (`<pre>`, or one `<p>` per line):
        read by `ingestion.aligned` from each run of paragraphs between two tables or headings,
        a wide character counting two columns. Their lines leave the paragraphs."""
        found: list[tuple[float, Table]] = []
        dropped: dict[int, set[int]] = {}  # block index → its lines a table took
        heading = ""
        run: list[tuple[int, int, int, str]] = []  # (flow position, block, line in block, text)

        def close() -> None:
            lines = [_positioned(k, text) for k, (_, _, _, text) in enumerate(run)]
            for table in aligned_tables(lines, 1.0):
                first = table.lines[0]
                above = [run[k][3].strip() for k in range(first) if k not in table.lines]
                lead = " ".join(above[-1].split()) if above else ""
                caption = " ".join(" ".join(text.split()) for text in above)
                title = lead if len(lead) <= _CAPTION_LIMIT and not lead.endswith(_SENTENCE_END) else ""
                found.append((run[first][0], Table("", title, table.rows, lead=lead, heading=heading, caption=caption)))
                for k in table.lines:
                    dropped.setdefault(run[k][1], set()).add(run[k][2])
            run.clear()

        for position, (kind, index, lines) in enumerate(self.flow):
            if kind != "lines":
                close()
                heading = lines[0] if kind == "heading" else heading
                continue
            run.extend((position, index, k, text) for k, text in enumerate(lines) if text.strip())
        close()
        for index in sorted(dropped, reverse=True):
            lines = [text for k, text in enumerate(self._lines_of(index)) if k not in dropped[index]]
            rest = " ".join(" ".join(line.split()) for line in lines if line.strip())
            if rest:
                self.blocks[index] = replace(self.blocks[index], text=rest)
            else:
                del self.blocks[index]
        return found

    def _lines_of(self, index: int) -> list[str]:
        return next(lines for kind, block, lines in self.flow if kind == "lines" and block == index)


def read_html(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    """An HTML page has no pages to count: `max_pages` does not apply."""
    reader = _Reader(name)
    reader.feed(html_text(name, data))
    reader.close()
    tables = reader.tables()
    title = _collapse(reader.title_text) or reader.doc_title or PurePath(name).stem
    return ExtractedDocument(name, media_type, title, tables, reader.blocks, 0)
