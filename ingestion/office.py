"""PowerPoint and Word extraction (python-pptx, python-docx) into the shared IR.

pptx: every slide's tables (`slide=N,table=M`, titled by a caption just above the table or the
slide title), its text frames in reading order (`slide=N`) and its speaker notes
(`slide=N,notes`). Group shapes are walked. docx: body paragraphs and tables in document order;
Heading styles open sections (`section=<heading>`, paragraphs numbered within), the Title style
(or the first level-1 heading) is the document title; a table (`table=M`) is titled by the
caption paragraph just before it.

What sits around a table: its `lead` is the text right before it (pptx: the text shape just
above it, however long; docx: the paragraph just before it, none after a heading) and its
`heading` the nearest heading above (pptx: the slide title; docx: the nearest Title or Heading
paragraph).
"""

from __future__ import annotations

import io
from pathlib import PurePath
from typing import Any

from .ir import Block, ExtractedDocument, ExtractionError, Table
from .values import spreads_over_merge

_CAPTION_LIMIT = 80
_SENTENCE_END = ("。", "！", "？", ".", "!", "?", "；", ";")


def _cell_text(text: str) -> str:
    return " ".join(text.split())


# -- pptx ------------------------------------------------------------------------------------------


def _shapes(shapes: Any) -> list[Any]:
    """Every leaf shape, group shapes walked, in reading order (top, then left)."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    found: list[Any] = []
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            found.extend(_shapes(shape.shapes))
        else:
            found.append(shape)
    return sorted(found, key=lambda s: (s.top or 0, s.left or 0))


def _pptx_grid(table: Any) -> list[list[str]]:
    """A slide table as a grid; a merged text cell's text is repeated across its span."""
    rows: list[list[str]] = []
    for row in table.rows:
        rows.append([_cell_text(cell.text) for cell in row.cells])
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            if cell.is_merge_origin and spreads_over_merge(rows[r][c]):
                for dr in range(cell.span_height):
                    for dc in range(cell.span_width):
                        if r + dr < len(rows) and c + dc < len(rows[r + dr]):
                            rows[r + dr][c + dc] = rows[r][c]
    return rows


def _is_title(shape: Any) -> bool:
    from pptx.enum.shapes import PP_PLACEHOLDER

    if not shape.is_placeholder:
        return False
    return shape.placeholder_format.type in (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE)


def read_pptx(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    from pptx import Presentation

    presentation = Presentation(io.BytesIO(data))
    slides = list(presentation.slides)
    if len(slides) > max_pages:
        raise ExtractionError(f"{name}: {len(slides)} slides exceed the limit of {max_pages}.", "too_many_pages")
    tables: list[Table] = []
    blocks: list[Block] = []
    first_title = ""
    for number, slide in enumerate(slides, start=1):
        shapes = _shapes(slide.shapes)
        title_shape = next((s for s in shapes if _is_title(s)), None)
        slide_title = _cell_text(title_shape.text_frame.text) if title_shape is not None else ""
        first_title = first_title or slide_title
        text_shapes = [s for s in shapes if s.has_text_frame and s.text_frame.text.strip()]
        if title_shape is not None and title_shape in text_shapes:  # the title reads first
            text_shapes.remove(title_shape)
            text_shapes.insert(0, title_shape)
        for shape in text_shapes:
            for paragraph in shape.text_frame.paragraphs:
                text = _cell_text("".join(run.text for run in paragraph.runs) or paragraph.text)
                if text:
                    blocks.append(Block(text, f"slide={number}", None, slide_title))
        count = 0
        for shape in shapes:
            if not getattr(shape, "has_table", False) or not shape.has_table:
                continue
            count += 1
            captions = [
                s
                for s in text_shapes
                if s is not title_shape
                and (s.top or 0) + (s.height or 0) <= (shape.top or 0) + 1
                and (s.left or 0) < (shape.left or 0) + (shape.width or 0)
                and (shape.left or 0) < (s.left or 0) + (s.width or 0)
            ]
            captions.sort(key=lambda s: (s.top or 0) + (s.height or 0))
            caption = _cell_text(captions[-1].text_frame.text) if captions else ""
            title = caption if caption and len(caption) <= _CAPTION_LIMIT else slide_title
            grid = _pptx_grid(shape.table)
            tables.append(Table(f"slide={number},table={count}", title, grid, lead=caption, heading=slide_title))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            for paragraph in notes.paragraphs if notes is not None else []:
                text = _cell_text(paragraph.text)
                if text:
                    blocks.append(Block(text, f"slide={number},notes", None, slide_title))
    title = presentation.core_properties.title or first_title or PurePath(name).stem
    return ExtractedDocument(name, media_type, title, tables, blocks, len(slides))


# -- docx ------------------------------------------------------------------------------------------


def _heading_level(paragraph: Any) -> int | None:
    """0 for the Title style, N for Heading N (English or Chinese style names), else None."""
    style = paragraph.style
    name = (style.name if style is not None else "") or ""
    lowered = name.lower()
    if lowered == "title" or name == "标题":
        return 0
    for prefix in ("heading ", "标题 ", "标题"):
        if lowered.startswith(prefix):
            rest = lowered[len(prefix) :].strip()
            return int(rest) if rest.isdigit() else 1
    return None


def _docx_grid(table: Any) -> list[list[str]]:
    """A Word table as a grid; a merged numeric cell keeps its value only in its first position."""
    rows: list[list[str]] = []
    for row in table.rows:
        texts: list[str] = []
        previous = None
        for cell in row.cells:
            text = _cell_text(cell.text)
            same = previous is not None and cell._tc is previous
            texts.append("" if same and not spreads_over_merge(text) else text)
            previous = cell._tc
        rows.append(texts)
    return rows


def _is_caption(paragraph: Any, text: str) -> bool:
    style = paragraph.style
    if style is not None and (style.name or "").lower() == "caption":
        return True
    return len(text) <= _CAPTION_LIMIT and not text.endswith(_SENTENCE_END)


def read_docx(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    """A Word document has no pages to count: `max_pages` does not apply."""
    from docx import Document
    from docx.table import Table as DocxTable

    document = Document(io.BytesIO(data))
    title = ""
    section = ""
    heading = ""  # the nearest Title or Heading paragraph, for the tables below it
    para = 0
    blocks: list[Block] = []
    tables: list[Table] = []
    previous: tuple[Any, str] | None = None  # the paragraph just before, for a table caption
    for item in document.iter_inner_content():
        if isinstance(item, DocxTable):
            caption = previous[1] if previous is not None and _is_caption(*previous) else ""
            lead = previous[1] if previous is not None else ""
            grid = _docx_grid(item)
            tables.append(Table(f"table={len(tables) + 1}", caption, grid, lead=lead, heading=heading))
            previous = None
            continue
        text = _cell_text(item.text)
        if not text:
            continue
        level = _heading_level(item)
        if level is not None:
            heading = text
        if level is not None and (level == 0 or (level == 1 and not title and not section)) and not title:
            title = text
            previous = None
            continue
        if level is not None:
            section, para = text, 0
            previous = None
            continue
        para += 1
        blocks.append(Block(text, f"section={section}" if section else "", para, section))
        previous = (item, text)
    title = document.core_properties.title or title or PurePath(name).stem
    return ExtractedDocument(name, media_type, title, tables, blocks, 0)
