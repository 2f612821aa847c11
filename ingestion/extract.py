"""`extract`: one file's bytes → `ExtractedDocument`, or a clear `ExtractionError`.

Dispatches on the extension (.pptx .xlsx .pdf .docx .md .txt) after checking that the content
is what the extension says: OOXML is a zip whose `[Content_Types].xml` names the right main part,
a PDF starts with `%PDF-`, text is UTF-8. Encrypted files, legacy binary Office files, empty
files, oversized files and files with too many pages are refused with a message a user can act
on; a parser's own exception never reaches the message (only its class name does).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath

from .ir import MEDIA_TYPES, ExtractedDocument, ExtractionError
from .text import blocks_from_text

MAX_BYTES = 50 * 1024 * 1024
MAX_PAGES = 500
UNPACK_RATIO = 20  # an OOXML zip may unpack to at most this many times max_bytes
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OOXML_KIND = {
    "presentationml.presentation.main+xml": ".pptx",
    "presentation.macroenabled.main+xml": ".pptx",
    "spreadsheetml.sheet.main+xml": ".xlsx",
    "sheet.macroenabled.main+xml": ".xlsx",
    "wordprocessingml.document.main+xml": ".docx",
    "document.macroenabled.main+xml": ".docx",
}
_KIND_NAMES = {".pptx": "PowerPoint presentation", ".xlsx": "Excel workbook", ".docx": "Word document"}


def _megabytes(size: int) -> str:
    """A size for a message: `50.0 MB`, `12.5 KB`, `800 bytes`."""
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} bytes"


def _sniff(data: bytes) -> str:
    """What the bytes are: pdf, zip, ole (legacy or encrypted Office), or other."""
    if data.startswith(_OLE_MAGIC):
        return "ole"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if b"%PDF-" in data[:1024]:
        return "pdf"
    return "other"


def _ooxml_kind(data: bytes, name: str, max_unpacked: int) -> tuple[str | None, zipfile.ZipFile]:
    """The OOXML extension the zip really holds (`.pptx` …), None for a zip that is not OOXML."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise ExtractionError(f"{name}: the file is damaged (not a readable zip package).", "corrupt") from None
    if sum(info.file_size for info in infos) > max_unpacked:
        raise ExtractionError(
            f"{name}: unpacks to more than {_megabytes(max_unpacked)}; the file is refused as too large.", "too_large"
        )
    try:
        types = archive.read("[Content_Types].xml").decode("utf-8", "replace").lower()
    except KeyError:
        return None, archive
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError):
        raise ExtractionError(f"{name}: the file is damaged (not a readable zip package).", "corrupt") from None
    kind = next((ext for marker, ext in _OOXML_KIND.items() if marker in types), None)
    return kind, archive


def _refuse_ole(data: bytes, name: str, ext: str) -> ExtractionError:
    if "EncryptionInfo".encode("utf-16-le") in data or "EncryptedPackage".encode("utf-16-le") in data:
        return ExtractionError(
            f"{name}: the file is password-protected (encrypted); remove the password and upload it again.",
            "encrypted",
        )
    legacy = {".pptx": ".ppt", ".xlsx": ".xls", ".docx": ".doc"}.get(ext, ".doc/.xls/.ppt")
    return ExtractionError(
        f"{name}: this is a legacy binary Office file ({legacy}), not {ext}; "
        f"save it as {ext or '.docx'} and upload again.",
        "mislabelled",
    )


def _check_content(name: str, ext: str, data: bytes, max_bytes: int) -> None:
    """Refuse content that does not match the extension."""
    kind = _sniff(data)
    if ext == ".pdf":
        if kind == "pdf":
            return
        if kind == "zip":
            found, _ = _ooxml_kind(data, name, max_bytes * UNPACK_RATIO)
            what = f"a {_KIND_NAMES[found]} ({found})" if found else "a zip archive"
            raise ExtractionError(f"{name}: mislabelled: the content is {what}, not a PDF.", "mislabelled")
        if kind == "ole":
            raise ExtractionError(f"{name}: mislabelled: the content is an Office file, not a PDF.", "mislabelled")
        raise ExtractionError(f"{name}: not a PDF (no %PDF header); the file is damaged or mislabelled.", "corrupt")
    if ext in _KIND_NAMES:
        if kind == "ole":
            raise _refuse_ole(data, name, ext)
        if kind == "pdf":
            raise ExtractionError(f"{name}: mislabelled: the content is a PDF, not {ext}.", "mislabelled")
        if kind != "zip":
            raise ExtractionError(f"{name}: not a valid {_KIND_NAMES[ext]}; the file is damaged.", "corrupt")
        found, _ = _ooxml_kind(data, name, max_bytes * UNPACK_RATIO)
        if found is None:
            raise ExtractionError(
                f"{name}: mislabelled: a zip archive that is not an Office document (no [Content_Types].xml).",
                "mislabelled",
            )
        if found != ext:
            raise ExtractionError(
                f"{name}: mislabelled: the content is a {_KIND_NAMES[found]} ({found}), not {ext}.", "mislabelled"
            )
        return
    # .md / .txt
    if kind in ("pdf", "zip", "ole") or b"\x00" in data[:8192]:
        raise ExtractionError(f"{name}: mislabelled: binary content in a {ext} text file.", "mislabelled")


def _read_text(name: str, ext: str, data: bytes) -> ExtractedDocument:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExtractionError(f"{name}: the text is not UTF-8; save it as UTF-8 and upload again.", "corrupt") from None
    title, blocks = blocks_from_text(text, markdown=ext == ".md")
    return ExtractedDocument(name, MEDIA_TYPES[ext], title or PurePath(name).stem, [], blocks, 0)


def extract(name: str, data: bytes, *, max_bytes: int = MAX_BYTES, max_pages: int = MAX_PAGES) -> ExtractedDocument:
    """Extract tables and text from one file; raise `ExtractionError` with a clear message."""
    ext = PurePath(name).suffix.lower()
    if ext not in MEDIA_TYPES:
        supported = ", ".join(sorted(MEDIA_TYPES))
        raise ExtractionError(
            f"{name}: unsupported file type '{ext or '(none)'}'; supported: {supported}.", "unsupported"
        )
    if not data or (len(data) < 4096 and not data.strip()):
        raise ExtractionError(f"{name}: the file is empty.", "empty")
    if len(data) > max_bytes:
        raise ExtractionError(
            f"{name}: {_megabytes(len(data))} exceeds the size limit of {_megabytes(max_bytes)}.", "too_large"
        )
    _check_content(name, ext, data, max_bytes)
    try:
        if ext in (".md", ".txt"):
            document = _read_text(name, ext, data)
        elif ext == ".pdf":
            from .pdf import read_pdf

            document = read_pdf(name, data, max_pages=max_pages)
        elif ext == ".xlsx":
            from .sheets import read_xlsx

            document = read_xlsx(name, data, max_pages=max_pages)
        elif ext == ".pptx":
            from .office import read_pptx

            document = read_pptx(name, data, max_pages=max_pages)
        else:
            from .office import read_docx

            document = read_docx(name, data)
    except ExtractionError:
        raise
    except Exception as error:  # every parser raises its own zoo of errors on a damaged file
        raise ExtractionError(
            f"{name}: the file could not be read as {ext} ({type(error).__name__}); "
            f"it is damaged or not a valid {ext} file.",
            "corrupt",
        ) from None
    if not document.tables and not document.blocks:
        raise ExtractionError(f"{name}: the file contains no text or tables.", "empty")
    return document
