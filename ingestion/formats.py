"""The file formats ingestion reads, in one registry.

Every answer to "do we read this file, and how?" is derived from `FORMATS`: the extensions the
upload API, the admin upload and `manage.py ingest` accept (`EXTENSIONS`), the media type stored
with a document, the check that the bytes are what the extension says (`container`), and the
reader `extract` dispatches to. A format is added here, or nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal, Protocol

from .html import read_html
from .ir import ExtractedDocument
from .office import read_docx, read_pptx
from .pdf import read_pdf
from .sheets import read_xlsx
from .text import read_markdown, read_plain_text


class Reader(Protocol):
    def __call__(self, name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument: ...


@dataclass(frozen=True)
class Format:
    extension: str  # lower case, with the dot
    media_type: str
    container: Literal["ooxml", "pdf", "text", "html"]  # what the bytes must be
    reader: Reader
    label: str = ""  # what a curator calls it, in messages about mislabelled files
    legacy_extension: str = ""  # the binary Office format that is saved as this one
    ooxml_main_parts: tuple[str, ...] = ()  # content types in `[Content_Types].xml` that mark this format


FORMATS: tuple[Format, ...] = (
    Format(
        ".pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "ooxml",
        read_pptx,
        "PowerPoint presentation",
        ".ppt",
        ("presentationml.presentation.main+xml", "presentation.macroenabled.main+xml"),
    ),
    Format(
        ".xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ooxml",
        read_xlsx,
        "Excel workbook",
        ".xls",
        ("spreadsheetml.sheet.main+xml", "sheet.macroenabled.main+xml"),
    ),
    Format(".pdf", "application/pdf", "pdf", read_pdf, "PDF"),
    Format(
        ".docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "ooxml",
        read_docx,
        "Word document",
        ".doc",
        ("wordprocessingml.document.main+xml", "document.macroenabled.main+xml"),
    ),
    Format(".md", "text/markdown", "text", read_markdown, "Markdown"),
    Format(".markdown", "text/markdown", "text", read_markdown, "Markdown"),
    Format(".txt", "text/plain", "text", read_plain_text, "text"),
    Format(".html", "text/html", "html", read_html, "HTML page"),
    Format(".htm", "text/html", "html", read_html, "HTML page"),
)
EXTENSIONS: tuple[str, ...] = tuple(f.extension for f in FORMATS)
_BY_EXTENSION = {f.extension: f for f in FORMATS}


def extension_of(name: str) -> str:
    return PurePath(name).suffix.lower()


def format_of(name: str) -> Format | None:
    """The format a file name says it is, or None for one ingestion does not read."""
    return _BY_EXTENSION.get(extension_of(name))


def format_for_extension(extension: str) -> Format:
    return _BY_EXTENSION[extension]
