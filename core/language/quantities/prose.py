"""`prose_normalize`: `text_normalize` with the capitals kept, so that `MYR 1.2bn` still shows a code."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from core.language.normalize import text_normalize


@lru_cache(maxsize=4096)
def prose_normalize(text: str) -> str:
    """`text_normalize(text)` with each ASCII letter in the case it was written (after NFKC).

    Normalisation folds case last and never adds or drops an ASCII letter, so the letters of the
    NFKC text, in order, are the letters of the normal form; if they ever disagree the folded
    form is returned, which the reader reads the same way less the capitals-only rules.
    """
    folded = text_normalize(text)
    letters = iter([ch for ch in unicodedata.normalize("NFKC", text) if ch.isascii() and ch.isalpha()])
    out = []
    for ch in folded:
        if ch.isascii() and ch.isalpha():
            written = next(letters, None)
            if written is None or written.lower() != ch:
                return folded
            ch = written
        out.append(ch)
    return folded if next(letters, None) is not None else "".join(out)
