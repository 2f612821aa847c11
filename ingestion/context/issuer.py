"""The issuer of a document: the glossary entity whose name or stock code is printed where an
issuer is (labelled fields, the registrant line, a title line, a name alone on the cover).

A name counts only when one entity's aliases cover all of it but company-form words; a code
counts when it is an alias or an entity's code, or qualifies the printed digits with an
exchange (`603339` → `SH603339`, `0700.HK`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view

from ..ir import ExtractedDocument
from .places import Place, Seen, cells_read
from .report import EN_TITLE, ZH_TITLE, periods_strip

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
_NAME_LABEL = r"公司的?(?:中文)?(?:名称|简称)|(?:股票|证券|[abh]股)简称|编制单位|发行人(?:名称)?|company name"
_CODE_LABEL = r"(?:公司|股票|证券|[abh]股)代码|stock code|ticker(?: symbol)?|trading symbols?(?:\(s\))?"
_LABEL = rf"(?<![{_CJK}a-z])(?:(?P<name>{_NAME_LABEL})|(?P<code>{_CODE_LABEL}))"
LABELLED = re.compile(rf"{_LABEL}\s?:\s?")
LABEL_CELL = re.compile(rf"{_LABEL}\s?:?")
# A value printed under its column header: a share class's short name and code, never the
# `公司名称` column of a list of subsidiaries.
UNDER_HEADER = re.compile(
    r"(?:股票|证券|[abh]股)(?:简称|代码)|stock code|ticker(?: symbol)?|trading symbols?(?:\(s\))?"
)
# Company-form words, which a name may add to its alias (`四方科技` + `集团股份有限公司`).
FORMS = re.compile(
    r"股份有限公司|有限责任公司|有限公司|集团|控股|股份|公司"
    r"|\b(?:co|ltd|limited|inc|incorporated|corp|corporation|company|group|holdings?|plc|llc|lp|sa|nv|ag|se|the)\b"
)
REGISTRANT = re.compile(r"\(?\s?exact name of (?:the )?registrant")


def issuers_read(places: list[Place], doc: ExtractedDocument, glossary: GlossarySnapshot) -> Iterator[Seen]:
    for index, place in enumerate(places):
        for label in LABELLED.finditer(place.text):
            rest = place.text[label.end() :]
            following = LABELLED.search(rest)
            value = rest[: following.start()] if following else rest
            yield from _labelled(label, value, place, glossary)
        if REGISTRANT.search(place.text):
            before = REGISTRANT.split(place.text)[0].strip()
            source = before or (places[index - 1].text if index else "")
            code = _named(source, glossary)
            if code is not None:
                yield Seen(code, f"registrant {source}", place)
        title = ZH_TITLE.fullmatch(place.text) or EN_TITLE.fullmatch(place.text)
        if title and title.group("name").strip():
            code = _named(periods_strip(title.group("name")), glossary)
            if code is not None:
                yield Seen(code, f"title {place.text}", place)
        elif place.cover and len(place.text) <= 40:
            code = _named(place.text, glossary)
            if code is not None:
                yield Seen(code, f"cover {place.text}", place)
    for cell, right, below in cells_read(doc):
        label = LABEL_CELL.fullmatch(cell.text)
        if label is None:
            for inline in LABELLED.finditer(cell.text):
                following = LABELLED.search(cell.text, inline.end())
                value = cell.text[inline.end() : following.start() if following else None]
                yield from _labelled(inline, value, cell, glossary)
            continue
        values = [right]
        if UNDER_HEADER.fullmatch(label.group(0).rstrip(" :")):
            values.append(below)
        for value in values:
            if value is not None and not LABEL_CELL.fullmatch(value.text):
                yield from _labelled(label, value.text, cell, glossary)


def _labelled(label: re.Match[str], value: str, place: Place, glossary: GlossarySnapshot) -> Iterator[Seen]:
    value = value.strip()
    if not value:
        return
    if label.group("code"):
        token = re.match(r"[a-z0-9._-]+", value)
        code = _coded(token.group(0).strip("._-"), glossary) if token else None
        if token is not None and code is not None:
            yield Seen(code, f"{label.group('code')} {token.group(0)}", place)
        return
    # A Chinese name ends at the first space (`编制单位：… 单位：元`); an English one may hold spaces.
    name = value.split(" ")[0] if re.match(rf"[{_CJK}]", value) else re.split(r"\s{2,}|[;|]", value)[0]
    code = _named(name, glossary)
    if code is not None:
        yield Seen(code, f"{label.group('name')} {name}", place)


def _named(text: str, glossary: GlossarySnapshot) -> str | None:
    """The entity whose aliases cover all of `text` but company-form words, else None."""
    text = text.strip(" ()（）:：")
    matches = [m for m in glossary.match(text) if m.kind == "entity"]
    if len({m.code for m in matches}) != 1:
        return None
    _, positions = compact_view(text)
    blank = {index for m in matches for index in positions[m.start : m.end]}
    rest = "".join(" " if i in blank else ch for i, ch in enumerate(text))
    return matches[0].code if not re.sub(r"[\W_0-9]+", "", FORMS.sub(" ", rest)) else None


def named_in(text: str, glossary: GlossarySnapshot) -> str | None:
    """The one entity `text` names anywhere in it (a file name), else None."""
    codes = {m.code for m in glossary.match(text) if m.kind == "entity"}
    return codes.pop() if len(codes) == 1 else None


def _coded(token: str, glossary: GlossarySnapshot) -> str | None:
    """The entity a printed stock code names: an alias or a code equal to it, or a code that
    qualifies its digits with an exchange (`SH603339`, `0700.HK`)."""
    named = _named(token, glossary)
    if named is not None:
        return named
    printed = token.upper()
    if printed in glossary.entities:
        return printed
    if not printed.isdigit() or len(printed) < 4:
        return None
    qualified = re.compile(rf"(?:[A-Z]{{1,4}}[.:]?)?{printed}(?:[.:][A-Z]{{1,4}})?")
    codes = [code for code in glossary.entities if qualified.fullmatch(code)]
    return codes[0] if len(codes) == 1 else None
