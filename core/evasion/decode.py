"""Decoding what a reader or a model decodes at sight, before any folding.

HTML entities (`&amp;#31454;` is `竞`, also escaped again or written full-width), percent-encoded
UTF-8 (`%E7%AB%9E`) and `\\u7ade`, `\\U00007ade`, `\\u{7ade}`, `\\xe7\\xab\\x9e` escapes, each inside
the others a bounded number of rounds, only where they are valid; markup tags and comments become
blanks of their own length, so indices stay put (`竞<b>安</b>` is `竞安`; `收入<100亿` is no tag).
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

# A markup tag or comment between an alias's characters hides nothing: `竞<b>安</b>` is `竞安`. A tag
# starts with a letter, `/` or `!`, so a comparison (`收入<100亿 且 >50亿`) is not one.
_MARKUP = re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]{0,80}>", re.DOTALL)
_ENTITY_ROUNDS = 4  # `&amp;amp;#31454;` takes three; a bound keeps a crafted input cheap
_DECODE_ROUNDS = 4  # entities, percent-encoding and escapes inside one another (`%25E7`, `&#92;u7ade`)
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_BYTE_RUN = re.compile(r"(?:\\x[0-9A-Fa-f]{2})+")
_CODE_POINT = re.compile(
    r"\\u([dD][89abAB][0-9A-Fa-f]{2})\\u([dD][c-fC-F][0-9A-Fa-f]{2})"  # a UTF-16 surrogate pair
    r"|\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})"
)


def entities_decode(text: str) -> str:
    """`text` with its HTML entities decoded, also when escaped again or written full-width."""
    for _ in range(_ENTITY_ROUNDS):
        if not any(ampersand in text for ampersand in _ampersands()):
            break
        if not text.isascii():
            text = "".join(_ascii_form(ch) for ch in text)
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


def escapes_decode(text: str) -> str:
    """`text` with one level of percent-encoding and backslash escapes decoded.

    Percent-encoded UTF-8 (`%E7%AB%9E` is `竞`) and `\\uXXXX`, `\\u{X…}` and `\\UXXXXXXXX` code
    points decode; a run of `\\xXX` is read as UTF-8 bytes where they make characters and as
    code points otherwise (`J\\xedngan`). Anything that is no valid sequence stays as written:
    a truncated or invalid UTF-8 sequence, a lone surrogate, a code point past U+10FFFF.
    """
    if "%" in text:
        text = _PERCENT_RUN.sub(lambda run: _utf8_decode(run.group(0), 3, keep_invalid=True), text)
    if "\\" in text:
        text = _BYTE_RUN.sub(lambda run: _utf8_decode(run.group(0), 4, keep_invalid=False), text)
        text = _CODE_POINT.sub(_code_point, text)
    return text


def _utf8_decode(run: str, width: int, *, keep_invalid: bool) -> str:
    """A run of `width`-character byte escapes (`%E7`, `\\xe7`), read as UTF-8 where it is valid."""
    data = bytes.fromhex("".join(run[index + width - 2 : index + width] for index in range(0, len(run), width)))
    out: list[str] = []
    at = 0
    for ch in data.decode("utf-8", "surrogateescape"):
        if "\udc80" <= ch <= "\udcff":  # a byte that starts or continues no valid sequence
            out.append(run[at : at + width] if keep_invalid else chr(ord(ch) - 0xDC00))
            at += width
        else:
            out.append(ch)
            at += width * len(ch.encode("utf-8"))
    return "".join(out)


def _code_point(escape: re.Match[str]) -> str:
    high, low, braced, short, long = escape.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    value = int(braced or short or long, 16)
    if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return escape.group(0)
    return chr(value)


def reader_decode(text: str) -> str:
    """`text` as a reader or a model decodes it at sight: entities, percent-encoding, escapes.

    Each is decoded inside the others, a bounded number of rounds (`%25E7%25AB%259E` is `竞`
    after two). Base64 and other encodings that need a tool are left alone.
    """
    for _ in range(_DECODE_ROUNDS):
        decoded = escapes_decode(entities_decode(text))
        if decoded == text:
            break
        text = decoded
    return text


@lru_cache(maxsize=1)
def _ampersands() -> tuple[str, ...]:
    """`&` and every character whose compatibility form holds one (`＆`)."""
    found = (chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    return tuple(ch for ch in found if "&" in unicodedata.normalize("NFKC", ch))


@lru_cache(maxsize=4096)
def _ascii_form(ch: str) -> str:
    """`ch`, or the ASCII character it is a compatibility form of (`＆` is `&`)."""
    compatible = unicodedata.normalize("NFKC", ch)
    return compatible if len(compatible) == 1 and compatible.isascii() else ch


def markup_blank(text: str) -> str:
    """`text` with each markup tag or comment turned into as many spaces (indices stay put)."""
    if "<" not in text:
        return text
    return _MARKUP.sub(lambda tag: " " * len(tag.group(0)), text)
