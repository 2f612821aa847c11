"""Retrieval tokens: the question normalisation (`core.language.normalize`), jieba words (every glossary alias loaded as
a user word), CJK character bigrams for recall, and ASCII words. Used at ingestion (the tokens
are stored with each chunk) and for queries, so both sides always agree.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_ASCII_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_STOP_WORDS = "的了和与及是在有为对将等也中其并或而被之于以从这那个吗呢呀啊哪么什怎"
_STOP = frozenset(_STOP_WORDS)
_lock = threading.Lock()
_loaded_words: set[str] = set()
_jieba = None


def _tokenizer():  # type: ignore[no-untyped-def]
    global _jieba
    if _jieba is None:
        with _lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                tokenizer = jieba.Tokenizer()
                tokenizer.initialize()
                _jieba = tokenizer
    return _jieba


def user_words_load(words: Iterable[str]) -> None:
    """Teach the segmenter glossary aliases (idempotent; new words only)."""
    tokenizer = _tokenizer()
    with _lock:
        for word in words:
            normalized = text_normalize(word)
            if normalized and normalized not in _loaded_words and _CJK.search(normalized):
                tokenizer.add_word(normalized, freq=200_000)
                _loaded_words.add(normalized)


_taught: tuple[int, int] | None = None  # the glossary snapshot whose aliases the segmenter knows
_checked_at = 0.0
RECHECK_SECONDS = 1.0


def glossary_words_ensure(current: Callable[[], GlossarySnapshot]) -> None:
    """Teach the segmenter the current glossary's aliases, once per glossary version.

    Ingestion teaches them before it stores a chunk's tokens; a query must be cut the same way
    in every process, including one that has never ingested anything (a fresh web worker). The
    glossary's stamp is read at most once a second, so a search pays for it only then.
    """
    global _taught, _checked_at
    now = time.monotonic()
    if _taught is not None and now - _checked_at < RECHECK_SECONDS:
        return
    _checked_at = now
    glossary = current()
    key = (glossary.version, id(glossary))
    if _taught != key:
        user_words_load(glossary.alias_texts())
        _taught = key


def tokens(text: str) -> list[str]:
    """Index or query tokens of `text`: jieba words, CJK bigrams and ASCII words."""
    normalized = text_normalize(text)
    out: list[str] = []
    for word in _ASCII_WORD.findall(normalized):
        out.append(word)
    tokenizer = _tokenizer()
    for run in _CJK.findall(normalized):
        for word in tokenizer.lcut(run, HMM=False):
            if word not in _STOP:
                out.append(word)
        if len(run) > 1:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif run not in _STOP:
            out.append(run)
    return out


@functools.lru_cache(maxsize=1 << 16)
def name_terms(name: str) -> tuple[str, ...]:
    """The index terms every chunk that writes `name` holds, however the segmenter cut the words
    around it: its ASCII words and the character bigrams of its Chinese runs (a lone Chinese
    character may be cut into a longer word, so it is no such term). Empty when `name` gives too
    little to tell a chunk naming it (a single letter)."""
    normalized = text_normalize(name)
    terms = [word for word in _ASCII_WORD.findall(normalized)]
    for run in _CJK.findall(normalized):
        terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    distinct = tuple(dict.fromkeys(terms))
    return distinct if sum(map(len, distinct)) >= 2 else ()
