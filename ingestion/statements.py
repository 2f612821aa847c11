"""Chinese statutory statements as the accounting standards lay them out.

Takes the texts around a table (its caption lines, lead and title) or one printed row label;
returns what a reader needs to know that the layout, not the words of one report, decides:

- `statement_of`: which statement a table is, and whose: `合并利润表` (or `CONSOLIDATED STATEMENTS
  OF OPERATIONS`) is the group's income statement, `母公司利润表` the parent company's alone (never
  the group's figures), and a statement
  of changes in equity (`所有者权益变动表`, `股东权益变动表`) lays equity components out as
  columns, so its cells are no metric × period facts;
- `label_as_printed`: a row label without what the layout adds to it: numbering (`一、`, `（一）`,
  `1.`, `（1）`, `①`), the operator words `加：` / `减：`, the 及 of `硕士及以上`, sign notes (`（损失以“－”号填列）`,
  `（净亏损以"-"号填列）`: the printed sign stands), note references (`附注七、1`, `(Notes 1 and 3)`),
  footnote marks after a label (`Inventories (1)`: no negative 1) and allowance clauses
  (`Accounts receivable, net of allowances of $733 and $765` is `Accounts receivable, net`);
- `headers_dated`: column headers printed relative to the report (`本期发生额`, `上年金额`,
  `期末余额`, `第一季度（1-3月份）`) rewritten as the periods they are in a report of a known
  period; an opening balance (`期初`, `年初`) names the start of the year, possibly restated, and
  is left unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.model.period import Period

CONSOLIDATED = "consolidated"
PARENT = "parent"
EQUITY_CHANGES = "equity_changes"

_STATEMENTS = r"资产负债表|利润表|损益表|现金流量表|(?:所有者|股东)权益变动表"
_STATEMENT = re.compile(rf"(?P<scope>合并|母公司)?\s*(?P<kind>{_STATEMENTS})")
_EQUITY = re.compile(r"(?:所有者|股东)权益变动表")


@dataclass(frozen=True)
class Statement:
    kind: str  # the statement's name as printed, without its scope (利润表, 资产负债表 …)
    scope: str  # CONSOLIDATED, PARENT, or "" when the title does not say


# US statements as Regulation S-X names them, in the title case or capitals a title is set in (a
# sentence that mentions `our consolidated statements of operations` titles no table).
_HOLDERS = r"(?:Stockholders|Shareholders|Shareowners|Share ?Owners)['’]?"
_EN_KINDS = (
    rf"Statements? of (?:Consolidated )?(?:Changes in )?(?:{_HOLDERS} )?(?:Equity|Deficit|Investment)(?: \(Deficit\))?"
    rf"|Statements? of (?:Consolidated )?(?:Comprehensive )?(?:Income|Earnings|Operations|Loss)"
    rf"(?: \((?:Loss|Deficit)\))?(?: and Comprehensive (?:Income|Loss|Earnings))?"
    r"|Statements? of (?:Consolidated )?Cash Flows?|Statements? of (?:Consolidated )?Financial (?:Position|Condition)"
    r"|Balance Sheets?|Income Statements?|Statements? of Retained Earnings"
)
_EN_STATEMENT = re.compile(
    rf"(?P<scope>Consolidated |Combined |Condensed Consolidated )?(?P<kind>{_EN_KINDS})", re.IGNORECASE
)
_EN_EQUITY = re.compile(r"(?:Equity|Deficit|Investment)(?: \(Deficit\))?$|Retained Earnings$", re.IGNORECASE)
_EN_PARENT = re.compile(r"parent company only|of (?:the )?registrant\b|\(parent company\)", re.IGNORECASE)
_PROSE_BEFORE = re.compile(r"(?:\b(?:the|our|in|see|to|and|these|its|their|of)\s*)$", re.IGNORECASE)


def statement_of(*texts: str) -> Statement | None:
    """The statement the last text that names one names (the nearest title above a table)."""
    found = None
    for text in texts:
        for m in _STATEMENT.finditer("".join(text.split())):
            scope = {"合并": CONSOLIDATED, "母公司": PARENT}.get(m.group("scope") or "", "")
            found = Statement(m.group("kind"), scope)
        found = _english_statement(" ".join(text.split())) or found
    return found


def _english_statement(text: str) -> Statement | None:
    """A US statement's title in `text` (`CONSOLIDATED STATEMENTS OF OPERATIONS`, `Consolidated
    Balance Sheets`): set in capitals or title case, not named inside a sentence."""
    found = None
    for m in _EN_STATEMENT.finditer(text):
        printed = text[m.start() : m.end()]
        if not (printed.isupper() or _title_cased(printed)) or _PROSE_BEFORE.search(text[: m.start()]):
            continue
        scope = PARENT if _EN_PARENT.search(text) else CONSOLIDATED if m.group("scope") else ""
        found = Statement(" ".join(m.group("kind").split()).title(), scope)
    return found


def _title_cased(text: str) -> bool:
    return all(word[0].isupper() for word in text.split() if word.isalpha() and len(word) > 3)


def is_equity_changes(statement: Statement | None) -> bool:
    return statement is not None and bool(_EQUITY.fullmatch(statement.kind) or _EN_EQUITY.search(statement.kind))


def is_cash_flows(statement: Statement | None) -> bool:
    return statement is not None and ("现金流量" in statement.kind or "cash flow" in statement.kind.lower())


_NUMBERING = re.compile(
    r"^\s*(?:[一二三四五六七八九十]+\s*[、.．]|[(（]\s*[一二三四五六七八九十0-9]+\s*[)）]\s*[、.．]?"
    r"|[0-9]{1,2}\s*[、.．)）](?![0-9])|[①-⑳⑴-⒇])\s*"
)
_OPERATOR = re.compile(r"^\s*(?:加|减)\s*[:：]\s*")
_SIGN_NOTE = re.compile(r"[(（][^()（）]*?以\s*[“”\"'‘’]?\s*[-－—–]\s*[“”\"'‘’]?\s*号?填列[^()（）]*[)）]")
_NOTE_REFERENCE = re.compile(r"[(（]?\s*附注\s*[一二三四五六七八九十]+\s*[、.．]?\s*[0-9()（）]*\s*[)）]?")


# `硕士及以上` is `硕士以上`: a count "and above" (or "and below") includes its bound either way.
_INCLUSIVE = re.compile(r"及(?=以上|以下)")


# `(Notes 1 and 3)`, `(Note 12)`, `(see Note 4)`; a footnote mark after a label: `(1)`, `(a)`, `*`.
_EN_NOTE = re.compile(
    r"\s*\(\s*(?:see\s+)?notes?\s+[0-9]{1,2}[a-z]?(?:\s*(?:,|and|&)\s*[0-9]{1,2}[a-z]?)*\s*\)", re.IGNORECASE
)
_FOOTNOTE_MARK = re.compile(r"(?<=[A-Za-z\)’'])\s*(?:\(\s*(?:[0-9]{1,2}|[a-h])\s*\)|[*†‡]+)(?=\s*$|\s*[,:])")
# `, net of allowances of $733 and $765`, `, less allowances for doubtful accounts $226 (2018, $248)`:
# how the item was measured, no part of its name; the item is its net amount.
_ALLOWANCE = re.compile(
    r"\s*,?\s*(?:net of|less)\s+(?:an?\s+|the\s+)?(?:allowances?|reserves?|provisions?)\b.*$", re.IGNORECASE
)


def label_as_printed(label: str) -> str:
    """The row label as the statement names the item (see the module docstring)."""
    text = _INCLUSIVE.sub("", _SIGN_NOTE.sub("", label))
    text = _NOTE_REFERENCE.sub("", text)
    text = _EN_NOTE.sub("", text)
    text = _FOOTNOTE_MARK.sub("", text)
    text = (
        _ALLOWANCE.sub(", net", text) if _ALLOWANCE.search(text) and not text.lower().startswith("allowance") else text
    )
    for _ in range(2):  # `一、加：…`
        text = _NUMBERING.sub("", text, count=1)
        text = _OPERATOR.sub("", text, count=1)
    return text.strip() or label


_CURRENT = r"本期|本年|本报告期|本年度|本期末|期末|年末|本年末|本报告期末"
_PRIOR = r"上期|上年|上年同期|上年度|上期末|上年末|上年年末"
_OPENING = r"期初|年初|本年年初|本期期初"
_AMOUNT = r"(?:发生额|金额|余额|数|累计数|累计|数额)?"
_RELATIVE = re.compile(rf"^(?:(?P<current>{_CURRENT})|(?P<prior>{_PRIOR})|(?P<opening>{_OPENING})){_AMOUNT}$")
_QUARTER = re.compile(r"^第(?P<n>[一二三四1-4])季度(?:[(（][^()（）]*[)）])?$")
_QUARTERS = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}


def header_dated(text: str, period: Period | None) -> str:
    """A column header printed relative to the report, as the period it is in a report of
    `period` (an annual report: `本期发生额` is its year, `上期` the year before); any other text,
    or any header when the report's period is not known, is returned as it is."""
    if period is None or period.period_type != "FY":
        return text
    year = int(period.period[:4])
    compact = "".join(text.split())
    relative = _RELATIVE.match(compact)
    if relative is not None:
        if relative.group("current"):
            return f"{year}年度"
        if relative.group("prior"):
            return f"{year - 1}年度"
        return "期初（不读）"  # an opening balance: possibly restated, never a year's figure
    quarter = _QUARTER.match(compact)
    if quarter is not None:
        return f"{year}年第{_QUARTERS[quarter.group('n')]}季度"
    return text
