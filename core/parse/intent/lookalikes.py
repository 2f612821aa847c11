"""Latin words spelt with a Greek or Cyrillic look-alike (`ACMΕ` with a Greek Epsilon, `Ηong Kong`
with a Greek Eta), read as the Latin word they look like.

A word that mixes Latin letters with Greek or Cyrillic ones is no word of either script: it is a
Latin word with a look-alike in it, pasted or typed on another keyboard. Each Greek or Cyrillic
letter of such a word becomes the Latin letter it folds to (`core.evasion.fold`), one character
for one, so every span read from the text still points at the question as asked. A word written
wholly in Greek or Cyrillic is left as it is.
"""

from __future__ import annotations

import re

from core.evasion.fold import confusables_fold

_WORD = re.compile(r"[a-zA-Z\u0370-\u03ff\u0400-\u04ff]+")
_LATIN = re.compile(r"[a-zA-Z]")
_OTHER = re.compile(r"[\u0370-\u03ff\u0400-\u04ff]")


def lookalikes_folded(text: str) -> str:
    """`text` with the Greek and Cyrillic letters of mixed-script words as their Latin look-alikes."""
    return _WORD.sub(_word_folded, text) if _OTHER.search(text) else text


def _word_folded(match: re.Match[str]) -> str:
    word = match.group(0)
    if not (_LATIN.search(word) and _OTHER.search(word)):
        return word
    return "".join(_letter_folded(ch) if _OTHER.match(ch) else ch for ch in word)


def _letter_folded(ch: str) -> str:
    folded = confusables_fold(ch)
    return folded if len(folded) == 1 and folded.isascii() and folded.isalpha() else ch
