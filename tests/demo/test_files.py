"""The demo as real files: generated from demo/, extracted back, equal to demo/facts.csv exactly."""

from __future__ import annotations

import csv
import hashlib
import re
from pathlib import Path

import pytest

from demo.files import demo_files_build, demo_files_write, demo_manifest, demo_sensitivity
from ingestion import extract, facts_from_document
from ingestion.ir import is_cell_locator
from ingestion.text import blocks_from_text
from retrieval.chunking import chunks_build
from tests.fakes import DEMO, demo_glossary

FIELDS = ("entity", "metric", "period", "channel", "value", "unit", "source_doc", "sensitivity")


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo_files")
    demo_files_write(DEMO, out)
    return out


def test_every_manifest_file_is_generated(demo_dir: Path) -> None:
    manifest = demo_manifest(DEMO)
    expected = {e["file"] for e in manifest["fact_documents"]} | {e["file"] for e in manifest["narrative_documents"]}
    assert {p.name for p in demo_dir.iterdir()} == expected


def test_facts_extracted_from_the_generated_files_equal_facts_csv(demo_dir: Path) -> None:
    glossary = demo_glossary()
    with (DEMO / "facts.csv").open(encoding="utf-8") as handle:
        expected = {tuple(row[f] for f in FIELDS) for row in csv.DictReader(handle)}
    got: list[tuple[str, ...]] = []
    for entry in demo_manifest(DEMO)["fact_documents"]:
        name = entry["file"]
        document = extract(name, (demo_dir / name).read_bytes())
        for fact in facts_from_document(document, glossary=glossary, sensitivity=demo_sensitivity(DEMO, name)):
            assert fact.status == "approved", fact
            assert is_cell_locator(fact.locator), fact.locator
            got.append(
                (
                    fact.entity,
                    fact.metric,
                    fact.period_label,
                    fact.channel,
                    str(fact.value),
                    fact.unit,
                    fact.source_doc,
                    fact.sensitivity,
                )
            )
    assert len(got) == len(set(got))
    assert set(got) == expected


def test_locators_per_format(demo_dir: Path) -> None:
    glossary = demo_glossary()
    patterns = {
        ".pptx": r"slide=\d+,table=\d+,row=[^,]+,col=[^,]+",
        ".xlsx": r"sheet=[^!]+![A-Z]+\d+",
        ".pdf": r"page=\d+,table=\d+,row=[^,]+,col=[^,]+",
        ".docx": r"table=\d+,row=[^,]+,col=[^,]+",
    }
    for entry in demo_manifest(DEMO)["fact_documents"]:
        name = entry["file"]
        document = extract(name, (demo_dir / name).read_bytes())
        pattern = patterns[Path(name).suffix]
        for fact in facts_from_document(document, glossary=glossary, sensitivity="INTERNAL"):
            assert re.fullmatch(pattern, fact.locator), fact.locator
    deck = extract("ACME_FY2025_Annual_Results.pptx", (demo_dir / "ACME_FY2025_Annual_Results.pptx").read_bytes())
    facts = facts_from_document(deck, glossary=glossary, sensitivity="INTERNAL")
    sea = next(f for f in facts if (f.entity, f.metric) == ("ACME_SEA", "OPERATING_PROFIT"))
    assert sea.locator == "slide=5,table=1,row=营业利润,col=FY2025" and str(sea.value) == "-1085.2"


def test_generation_is_deterministic() -> None:
    first = {name: hashlib.sha256(data).hexdigest() for name, data in demo_files_build(DEMO).items()}
    second = {name: hashlib.sha256(data).hexdigest() for name, data in demo_files_build(DEMO).items()}
    assert first == second


def _md_paragraphs(text: str) -> list[str]:
    return [b.text for b in blocks_from_text(text, markdown=True)[1]]


def test_narrative_documents_carry_their_markdown_text(demo_dir: Path) -> None:
    for entry in demo_manifest(DEMO)["narrative_documents"]:
        name = entry["file"]
        source = (DEMO / entry["text"]).read_text(encoding="utf-8")
        title, md_blocks = blocks_from_text(source, markdown=True)
        document = extract(name, (demo_dir / name).read_bytes())
        assert document.title == title, name
        suffix = Path(name).suffix
        texts = [b.text for b in document.blocks]
        if suffix == ".pptx":  # a title slide, then one slide per section: its title, then its paragraphs
            sections = [(b.heading, b.text) for b in md_blocks]
            body = [(b.heading, b.text) for b in document.blocks if b.locator != "slide=1" and b.text != b.heading]
            assert body == sections, name
            slides = 1 + len({b.heading for b in md_blocks})
            assert {b.locator for b in document.blocks} == {f"slide={n}" for n in range(1, slides + 1)}
            assert document.pages == slides
        elif suffix == ".pdf":
            assert texts == [b.text for b in md_blocks], name
            assert [b.heading for b in document.blocks] == [b.heading for b in md_blocks], name
            assert all(b.locator.startswith("page=") and b.para for b in document.blocks)
        elif suffix == ".docx":
            captions = {t.title for t in document.tables}
            assert [t for t in texts if t not in captions] == [b.text for b in md_blocks], name
            assert all(b.locator == f"section={b.heading}" for b in document.blocks)
        else:
            assert [(b.locator, b.para, b.text) for b in document.blocks] == [
                (b.locator, b.para, b.text) for b in md_blocks
            ]
        assert chunks_build(document.blocks), name
