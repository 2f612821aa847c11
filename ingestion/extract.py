"""`extract`: one file's bytes → `ExtractedDocument`, or a clear `ExtractionError`.

Dispatches on the extension, through the format registry (`ingestion.formats`), after checking
that the content is what the extension says: OOXML is a zip whose `[Content_Types].xml` names the right main part,
a PDF starts with `%PDF-`, text is UTF-8, HTML is text (UTF-8, GB18030 or the charset it
declares) with HTML tags in it. Encrypted files, legacy binary Office files, empty
files, oversized files and files with too many pages are refused with a message a user can act
on; a parser's own exception never reaches the message (only its class name does).
"""

from __future__ import annotations

import io
import zipfile

from .formats import EXTENSIONS, FORMATS, Format, extension_of, format_for_extension, format_of
from .html import html_check
from .ir import ExtractedDocument, ExtractionError

MAX_BYTES = 50 * 1024 * 1024
MAX_PAGES = 1000  # the longest real annual reports; `RAGSPINE["MAX_PAGES"]` sets it for the app
UNPACK_RATIO = 20  # an OOXML zip may unpack to at most this many times max_bytes
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OOXML_KIND = {part: f.extension for f in FORMATS for part in f.ooxml_main_parts}


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


def _label(extension: str) -> str:
    return format_for_extension(extension).label


def _refuse_ole(data: bytes, name: str, ext: str) -> ExtractionError:
    if "EncryptionInfo".encode("utf-16-le") in data or "EncryptedPackage".encode("utf-16-le") in data:
        return ExtractionError(
            f"{name}: the file is password-protected (encrypted); remove the password and upload it again.",
            "encrypted",
        )
    legacy = format_for_extension(ext).legacy_extension or ".doc/.xls/.ppt"
    return ExtractionError(
        f"{name}: this is a legacy binary Office file ({legacy}), not {ext}; "
        f"save it as {ext or '.docx'} and upload again.",
        "mislabelled",
    )


def _check_content(name: str, fmt: Format, data: bytes, max_bytes: int) -> None:
    """Refuse content that does not match the extension."""
    ext = fmt.extension
    kind = _sniff(data)
    if fmt.container == "pdf":
        if kind == "pdf":
            return
        if kind == "zip":
            found, _ = _ooxml_kind(data, name, max_bytes * UNPACK_RATIO)
            what = f"a {_label(found)} ({found})" if found else "a zip archive"
            raise ExtractionError(f"{name}: mislabelled: the content is {what}, not a PDF.", "mislabelled")
        if kind == "ole":
            raise ExtractionError(f"{name}: mislabelled: the content is an Office file, not a PDF.", "mislabelled")
        raise ExtractionError(f"{name}: not a PDF (no %PDF header); the file is damaged or mislabelled.", "corrupt")
    if fmt.container == "ooxml":
        if kind == "ole":
            raise _refuse_ole(data, name, ext)
        if kind == "pdf":
            raise ExtractionError(f"{name}: mislabelled: the content is a PDF, not {ext}.", "mislabelled")
        if kind != "zip":
            raise ExtractionError(f"{name}: not a valid {fmt.label}; the file is damaged.", "corrupt")
        found, _ = _ooxml_kind(data, name, max_bytes * UNPACK_RATIO)
        if found is None:
            raise ExtractionError(
                f"{name}: mislabelled: a zip archive that is not an Office document (no [Content_Types].xml).",
                "mislabelled",
            )
        if found != ext:
            raise ExtractionError(
                f"{name}: mislabelled: the content is a {_label(found)} ({found}), not {ext}.", "mislabelled"
            )
        return
    if fmt.container == "html":
        if kind in ("zip", "ole") or data.lstrip().startswith(b"%PDF-"):
            what = {"zip": "a zip archive or an Office document", "ole": "a legacy or encrypted Office file"}
            raise ExtractionError(
                f"{name}: mislabelled: the content is {what.get(kind, 'a PDF')}, not an HTML page.", "mislabelled"
            )
        html_check(name, data)
        return
    # text
    if kind in ("pdf", "zip", "ole") or b"\x00" in data[:8192]:
        raise ExtractionError(f"{name}: mislabelled: binary content in a {ext} text file.", "mislabelled")


def extract(name: str, data: bytes, *, max_bytes: int = MAX_BYTES, max_pages: int = MAX_PAGES) -> ExtractedDocument:
    """Extract tables and text from one file; raise `ExtractionError` with a clear message."""
    fmt = format_of(name)
    if fmt is None:
        ext, supported = extension_of(name), ", ".join(sorted(EXTENSIONS))
        raise ExtractionError(
            f"{name}: unsupported file type '{ext or '(none)'}'; supported: {supported}.", "unsupported"
        )
    if not data or (len(data) < 4096 and not data.strip()):
        raise ExtractionError(f"{name}: the file is empty.", "empty")
    if len(data) > max_bytes:
        raise ExtractionError(
            f"{name}: {_megabytes(len(data))} exceeds the size limit of {_megabytes(max_bytes)}.", "too_large"
        )
    _check_content(name, fmt, data, max_bytes)
    try:
        document = fmt.reader(name, data, media_type=fmt.media_type, max_pages=max_pages)
    except ExtractionError:
        raise
    except Exception as error:  # every parser raises its own zoo of errors on a damaged file
        raise ExtractionError(
            f"{name}: the file could not be read as {fmt.extension} ({type(error).__name__}); "
            f"it is damaged or not a valid {fmt.extension} file.",
            "corrupt",
        ) from None
    if not document.tables and not document.blocks:
        raise ExtractionError(f"{name}: the file contains no text or tables.", "empty")
    return document
