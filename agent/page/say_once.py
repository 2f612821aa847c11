"""Say it once: the answer panel's text keeps each part's headline, and of its details what no
card, chart or table says.

The structured section the channel wrote lists every figure with its source, which the API and
the CLI need. It is a run of parts: a headline (one line: a figure found, a value computed, a
comparison, what could not be computed), then its details: a formula line (`公式：`), a heading
(`数据：`, `排名（从高到低）：`) and its list lines (`· …`, `1. …`). The web panel shows the
details in a card, a chart or a table, and the inputs with their sources in one collapsible
table. There every headline is kept, once (two parts that say the same are one); a detail line
is dropped when each figure in it is shown in the views, when it is a computed view's formula
(the card shows it), or when it is a heading whose lines were all dropped. A detail whose
figures the views do not all show is kept, so nothing said is lost. Parts that state no figure
and name something the views mark missing (`later`) come after the parts that state one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A figure: a number with a thousands separator, a decimal point or a percent sign (a year,
# a slide number or a list index is not one).
_FIGURE = re.compile(r"(?<![A-Za-z0-9.,])[+\-−]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+)(?:%|(?![\d]))")
_LIST_INDEX = re.compile(r"^\s*\d+\.\s")
_HEADING_ENDS = ("：", ":")


def figures_in(text: str) -> list[str]:
    """The figures in `text`, signs normalised (`+8.5%` and `8.5%` are one figure)."""
    found = []
    for match in _FIGURE.finditer(_LIST_INDEX.sub("", text)):
        token = match.group(0)
        if "," in token or "." in token or token.endswith("%"):
            found.append(token.lstrip("+").replace("−", "-"))
    return found


def shown_figures(texts: Iterable[str]) -> set[str]:
    """Every figure in the strings the views show."""
    return {figure for text in texts if text for figure in figures_in(str(text))}


def _is_detail(line: str, formula_heads: tuple[str, ...]) -> bool:
    stripped = line.strip()
    return (
        stripped.startswith(("·", "•", "- "))
        or bool(_LIST_INDEX.match(line))
        or stripped.endswith(_HEADING_ENDS)
        or (bool(formula_heads) and line.startswith(formula_heads))
    )


def text_once(text: str, shown: set[str], formula_labels: Iterable[str] = (), later: Iterable[str] = ()) -> str:
    """`text` with each part's headline once and only the details the views do not say."""
    lines = text.split("\n")
    if len(lines) <= 1:
        return text
    formula_heads = tuple(f"{label}{end}" for label in formula_labels for end in ("：", ": "))
    parts: list[list[str]] = []
    for line in lines:
        if parts and _is_detail(line, formula_heads):
            parts[-1].append(line)
        else:
            parts.append([line])

    def covered(line: str) -> bool:
        if formula_heads and line.startswith(formula_heads):
            return bool(shown)
        figures = figures_in(line)
        return bool(figures) and all(figure in shown for figure in figures)

    kept: list[list[str]] = []
    said: set[str] = set()
    for headline, *details in parts:
        if headline.strip() and headline in said:
            continue  # two parts that say the same are one (two derivations that agree)
        said.add(headline)
        keep = [not covered(line) for line in details]
        # a heading goes with its lines: dropped when every line under it, up to the next heading, is
        for i in range(len(details) - 1, -1, -1):
            if details[i].rstrip().endswith(_HEADING_ENDS) and keep[i]:
                under = []
                for j in range(i + 1, len(details)):
                    if details[j].rstrip().endswith(_HEADING_ENDS):
                        break
                    under.append(keep[j])
                if not any(under):
                    keep[i] = False
        kept.append([headline, *(line for line, k in zip(details, keep, strict=True) if k)])
    marks = tuple(m for m in later if m)
    if marks:
        first = [p for p in kept if figures_in(p[0]) or not any(m in p[0] for m in marks)]
        kept = first + [p for p in kept if p not in first]
    return "\n".join(line for part in kept for line in part)
