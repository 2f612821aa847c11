"""The display order of text, by the Unicode bidirectional algorithm (UAX #9, `python-bidi`).

`\\u202e安竞\\u202c` shows `竞安`: text that bidi controls or right-to-left letters can reorder is
also read as a reader sees it, in a left-to-right and in a right-to-left paragraph.
"""

from __future__ import annotations

import regex

# What can make the display order differ from the logical one: right-to-left letters and the
# explicit embeddings, overrides and isolates (UAX #9). A paragraph ends at a paragraph separator.
# What can make the display order differ from the logical one: right-to-left letters and the
# explicit embeddings, overrides and isolates (UAX #9). A paragraph ends at a paragraph separator.
_REORDERING = regex.compile(
    r"[\p{Bidi_Class=R}\p{Bidi_Class=AL}\p{Bidi_Class=RLE}\p{Bidi_Class=RLO}"
    r"\p{Bidi_Class=RLI}\p{Bidi_Class=LRE}\p{Bidi_Class=LRO}\p{Bidi_Class=LRI}\p{Bidi_Class=FSI}"
    r"\p{Bidi_Class=PDF}\p{Bidi_Class=PDI}]"
)
_BIDI_CONTROL = regex.compile(r"\p{Bidi_Control}")
_PARAGRAPHS = regex.compile(r"(\p{Bidi_Class=B})")


def display_orders(text: str) -> list[str]:
    """`text` as a reader sees it, left to right, in a left-to-right and in a right-to-left
    paragraph (the Unicode bidirectional algorithm, UAX #9), each that differs from `text`.

    Empty unless `text` holds an explicit embedding, override or isolate, or a right-to-left
    letter. The bidi controls are dropped from the result: they have done their work.
    """
    if text.isascii() or not _REORDERING.search(text):
        return []
    from bidi import get_display  # the algorithm, in the Rust `unicode-bidi` crate

    paragraphs = _PARAGRAPHS.split(text)
    orders = []
    for direction in ("L", "R"):
        shown = "".join(
            get_display(paragraph, base_dir=direction) if _REORDERING.search(paragraph) else paragraph
            for paragraph in paragraphs
        )
        orders.append(_BIDI_CONTROL.sub("", shown))
    return [order for order in dict.fromkeys(orders) if order != text]
