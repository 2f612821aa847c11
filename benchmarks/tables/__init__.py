"""The TAT-QA real-layout table harness: render, oracle, score.

`render` turns each TAT-QA dev table into the xlsx, docx and PDF files a curator would upload;
`oracle` reads the ground truth from the printed grid, independently of the product; `score`
runs the product on every file and compares, cell by cell. `benchmarks.tables_bench` prints the
figures; `tests/ingestion/test_tatqa_tables.py` asserts them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The data set lives beside the project (settings.BASE_DIR.parent / "shared" / "bench"), never in it.
DATASET = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "tatqa_dataset_dev.json"


def items_load(path: Path = DATASET) -> list[dict[str, Any]] | None:
    """The TAT-QA dev items in file order, or None when the file is absent."""
    if not path.is_file():
        return None
    items: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return items
