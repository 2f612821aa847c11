"""Document ingestion, Django-free.

`extract` turns the bytes of a file in one of the registered formats (`ingestion.formats`:
.pptx / .xlsx / .pdf / .docx / .md / .markdown / .txt / .html / .htm) into one intermediate representation
(`ExtractedDocument`: tables as grids with cell locators, text as `Block`s with structural
locators). `facts_from_table` turns a table into fact candidates through the glossary;
`document_context` reads who issued the document, which report it is and its period.
"""

from __future__ import annotations

from .context import DocumentContext, document_context
from .extract import extract
from .ir import ExtractedDocument, ExtractionError, Table
from .tables import DocumentFacts, FactCandidate, document_facts, facts_from_document, facts_from_table

__all__ = [
    "DocumentContext",
    "DocumentFacts",
    "ExtractedDocument",
    "ExtractionError",
    "FactCandidate",
    "Table",
    "document_context",
    "document_facts",
    "extract",
    "facts_from_document",
    "facts_from_table",
]
