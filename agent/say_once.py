"""Say it once: the answer panel's text keeps what no card, chart or table says.

The structured section the channel wrote lists every figure with its source, which the API and
the CLI need. The web panel shows the same figures in a card, a chart or a table, and the inputs
with their sources in one collapsible table; there the text keeps its headline (the first line)
and every line that says something the views do not. A line is dropped when each figure in it
is shown in the views, when it is a computed view's formula (the card shows it), or when it is a
heading (`数据：`, `Inputs:`) whose lines were all dropped. A line whose figures the views do not
all show is kept, so nothing said is lost.
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


def text_once(text: str, shown: set[str], formula_labels: Iterable[str] = ()) -> str:
    """`text` without the lines the views already say; its first line (the headline) always kept."""
    lines = text.split("\n")
    if len(lines) <= 1 or not shown:
        return text
    formula_heads = tuple(f"{label}{end}" for label in formula_labels for end in ("：", ": "))

    def covered(line: str) -> bool:
        figures = figures_in(line)
        if formula_heads and line.startswith(formula_heads):
            return True
        return bool(figures) and all(figure in shown for figure in figures)

    keep = [True] + [not covered(line) for line in lines[1:]]
    # a heading goes with its lines: dropped when every line under it, up to the next heading, is
    for i in range(len(lines) - 1, 0, -1):
        if lines[i].rstrip().endswith(_HEADING_ENDS) and keep[i]:
            under = []
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip().endswith(_HEADING_ENDS):
                    break
                under.append(keep[j])
            if under and not any(under):
                keep[i] = False
    return "\n".join(line for line, kept in zip(lines, keep, strict=True) if kept)
