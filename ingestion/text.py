"""Markdown and plain text → a title and `Block`s.

Every non-empty line is a paragraph (CJK documents break paragraphs with newlines); in markdown
the first `# ` heading is the title and `##`-and-deeper headings open sections, which become the
blocks' `section=…` locators.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from .ir import Block, ExtractedDocument, ExtractionError


def blocks_from_text(text: str, *, markdown: bool) -> tuple[str, list[Block]]:
    """A title (the first `# ` heading; "" for none) and the paragraphs of a markdown or plain-text document."""
    title = ""
    section = ""
    para = 0
    blocks: list[Block] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line) if markdown else None
        if heading:
            level, words = len(heading.group(1)), heading.group(2).strip()
            if level == 1 and not title:
                title = words
            else:
                section, para = words, 0
            continue
        para += 1
        locator = f"section={section}" if section else ""
        blocks.append(Block(line, locator, para, section))
    return title, blocks


def read_markdown(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    return _read_text(name, data, media_type=media_type, markdown=True)


def read_plain_text(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    return _read_text(name, data, media_type=media_type, markdown=False)


def _read_text(name: str, data: bytes, *, media_type: str, markdown: bool) -> ExtractedDocument:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExtractionError(f"{name}: the text is not UTF-8; save it as UTF-8 and upload again.", "corrupt") from None
    title, blocks = blocks_from_text(text, markdown=markdown)
    return ExtractedDocument(name, media_type, title or PurePath(name).stem, [], blocks, 0)
