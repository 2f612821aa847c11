"""Digital-PDF extraction (pdfplumber) into the shared IR.

Per page: ruled tables (`page=N,table=M`), titled by the text line just above each; the rest of
the text as paragraphs (`page=N`, numbered from 1 on each page). Lines are joined into a
paragraph unless a vertical gap, an indent or a short previous line ends it; CJK lines join with
no space. Lines set larger than the body text are headings: the largest on the first page is the
document title (unless the PDF's metadata has one), the others open sections (`Block.heading`).
A PDF that needs a password is refused; text that cannot be decoded to Unicode (`(cid:N)`) is
dropped with a warning; a scanned PDF (no text layer) yields nothing and is refused as empty.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import PurePath
from typing import Any

from .ir import Block, ExtractedDocument, ExtractionError, Table

_CID = re.compile(r"\(cid:[0-9]+\)")
_TITLE_GAP = 36.0  # points: how far above a table its title line may sit
_HEADING_RATIO = 1.15


def _inside(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _join(left: str, right: str) -> str:
    if left and right and left[-1].isascii() and left[-1].isalnum() and right[0].isascii() and right[0].isalnum():
        return f"{left} {right}"
    if left.endswith("-") and right[:1].isascii() and right[:1].isalpha():
        return left[:-1] + right
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
        warnings = []
        if getattr(pdf.doc, "encryption", None):
            warnings.append("the PDF is encrypted with an empty user password (permissions only); read as usual")
        pages: list[tuple[int, list[dict[str, Any]], list[Table]]] = []
        sizes: Counter[float] = Counter()
        dropped = 0
        for number, page in enumerate(pdf.pages, start=1):
            found = page.find_tables()
            boxes = [tuple(t.bbox) for t in found]
            rest = page.filter(lambda obj, boxes=boxes: not _inside(obj, boxes)) if boxes else page
            lines = []
            for line in rest.extract_text_lines(return_chars=True):
                if _unreadable(line["text"]):
                    dropped += 1
                elif line["text"].strip():
                    lines.append(_slim(line))
            for line in lines:
                sizes[_size(line)] += len(line["text"])
            tables = []
            for index, table in enumerate(found, start=1):
                top = table.bbox[1]
                above = [ln for ln in lines if ln["bottom"] <= top + 1 and ln["top"] >= top - _TITLE_GAP]
                title = _cell(above[-1]["text"]) if above else ""
                grid = [[_cell(cell) for cell in row] for row in table.extract()]
                tables.append(Table(f"page={number},table={index}", title, grid))
            pages.append((number, lines, tables))
            page.close()
        if dropped:
            warnings.append(f"{dropped} lines of text could not be decoded (fonts without a Unicode mapping)")
            if not any(lines for _, lines, _ in pages) and not any(tables for _, _, tables in pages):
                raise ExtractionError(
                    f"{name}: no readable text: the PDF's fonts have no Unicode mapping (or it is scanned); "
                    "OCR is not supported.",
                    "empty",
                )
        body = sizes.most_common(1)[0][0] if sizes else 0.0
        meta = pdf.metadata or {}
        title, blocks = _paragraphs(pages, body, str(meta.get("Title") or "").strip())
        tables = [t for _, _, page_tables in pages for t in page_tables]
    finally:
        pdf.close()
    return ExtractedDocument(name, media_type, title or PurePath(name).stem, tables, blocks, count, warnings)


def _paragraphs(
    pages: list[tuple[int, list[dict[str, Any]], list[Table]]], body: float, title: str
) -> tuple[str, list[Block]]:
    """Lines → paragraph blocks (`page=N`, numbered per page); large lines → title and headings."""
    largest = max((_size(line) for _, lines, _ in pages for line in lines), default=0.0)
    blocks: list[Block] = []
    heading = ""
    for number, lines, _ in pages:
        para = 0
        current: list[str] = []
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
                current = []
            if heading_line:
                if not title and number == pages[0][0] and size == largest and not blocks:
                    title = text
                elif text != title:
                    heading = text
                previous = None
                continue
            current = [_join(current[0], text)] if current else [text]
            previous = line
        if current:
            para += 1
            blocks.append(Block(current[0], f"page={number}", para, heading))
    return title, blocks
