"""A ranking's lines: the leader or the place asked about, the rows in rank order, the subjects missing.

Takes the engine's `Ranking` and the glossary; returns text. The rows are the engine's, in its
order and with its ties; nothing here compares or computes a figure.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.engine import Ranking
from core.engine.build import subject_names
from core.glossary import GlossarySnapshot
from core.model.facts import SubTask
from core.routes.computed.render import computed_lines, input_lines
from core.routes.lookup.render import fact_line
from core.routes.render import is_en, unit_suffix


def _names(tasks: Sequence[SubTask], glossary: GlossarySnapshot, language: str) -> list[str]:
    """What tells the ranked subjects apart: entity, channel and/or period."""
    return subject_names(tasks, glossary.display, language)


def _ranked_over(tasks: Sequence[SubTask], glossary: GlossarySnapshot, language: str) -> str:
    """What every ranked subject shares: `FY2025 营业收入`, `ACME中国内地 FY2025 营业收入`."""
    first = tasks[0]
    parts = []
    if len({t.entity for t in tasks}) == 1:
        parts.append(glossary.display("entity", first.entity, language))
    if len({t.period for t in tasks}) == 1:
        parts.append(first.period.label)
    metric = glossary.display("metric", first.metric, language)
    if len({t.channel for t in tasks}) == 1 and first.channel != "TOTAL":
        name = glossary.display("channel", first.channel, language)
        metric += f" ({name})" if is_en(language) else f"（{name}）"
    return " ".join([*parts, metric])


def _row_figure(display: str, unit: str, glossary: GlossarySnapshot, language: str) -> str:
    return display if display.endswith("%") else display + unit_suffix(glossary, unit, language)


MISSING_NAMED = 10  # keys without a figure named one by one; the rest are counted


def _coverage(ranking: Ranking) -> tuple[int, int]:
    """How many items have the figure, and how many were asked (with or without it)."""
    count = ranking.count or len({(f.entity, f.period, f.channel) for f in ranking.inputs})
    return count, count + len(ranking.missing) + len(ranking.not_meaningful)


def ranking_lines(
    ranking: Ranking, glossary: GlossarySnapshot, language: str, *, position: int | None = None
) -> list[str]:
    """The headline (the leader, or the place `position` asked about: 排名第二), then one line per
    row in rank order (ties marked), then the subjects without the figure (listed as missing,
    never dropped), the order rule and the inputs.

    When some items have no figure, the answer first says how many have it and ranks among
    those only (`在有数据的 2 项中…`); a top N beyond them says how many there are."""
    en = is_en(language)
    subjects = [r.subject for r in ranking.rows] + list(ranking.missing) + list(ranking.not_meaningful)
    # a key cut by a top N still says what the ranked subjects differ in (one row is no list)
    metric = ranking.rows[0].subject.metric if ranking.rows else None
    cut = (SubTask(metric, f.entity, f.period, f.channel) for f in ranking.inputs) if metric else iter(())
    listed = set(subjects)
    outside = next((key for key in cut if key not in listed), None)
    field = [*subjects, outside] if outside is not None else subjects
    names = dict(zip(field, _names(field, glossary, language), strict=True))
    over = _ranked_over(field, glossary, language) if field else ""
    if not ranking.ranked:
        return _lone_lines(ranking, names, over, glossary, language)
    desc = ranking.order == "desc"
    count, total = _coverage(ranking)
    partial = total > count
    lines = []
    if partial:
        lines.append(
            f"{over}: {count:,} of {total:,} items have the figure."
            if en
            else f"{over}：{total:,} 项中有 {count:,} 项有该数据。"
        )
    among = (f" among the {count:,} items with the figure" if en else f"在有数据的 {count:,} 项中，") if partial else ""
    if position is not None and position > 1:
        lines.append(_place_line(ranking, position, names, over, glossary, language, among=among))
    elif leaders := [r for r in ranking.rows if r.rank == 1]:
        figure = _row_figure(leaders[0].display, leaders[0].unit, glossary, language)
        tied = len(leaders) > 1
        who = ", ".join(names[r.subject] for r in leaders) if en else "、".join(names[r.subject] for r in leaders)
        if en:
            lead = ("Tied " if tied else "") + ("highest" if desc else "lowest")
            lines.append(f"{lead[0].upper()}{lead[1:]} {over}{among}: {who} ({figure}).")
        else:
            lines.append(f"{among}{over}{'并列' if tied else ''}{'最高' if desc else '最低'}的是 {who}（{figure}）。")
    top = ranking.top
    if en:
        short = f"; only {count:,} items have the figure" if top and top > count else ""
        lines.append(f"Ranking ({'highest' if desc else 'lowest'} first{f', top {top}' if top else ''}{short}):")
    else:
        short = f"；有数据的只有 {count:,} 项" if top and top > count else ""
        lines.append(f"排名（{'从高到低' if desc else '从低到高'}{f'，前 {top} 名' if top else ''}{short}）：")
    for row in ranking.rows:
        mark = (" (tied)" if en else "（并列）") if row.tied else ""
        lines.append(f"{row.rank}. {names[row.subject]} {_row_figure(row.display, row.unit, glossary, language)}{mark}")
    lines += _unranked_lines(ranking, names, language, ranked=True)
    way = ("highest first" if desc else "lowest first") if en else ("从高到低" if desc else "从低到高")
    lines.append(
        f"Formula: {over}, {way} ({count:,} ranked)" if en else f"公式：按 {over} {way}排序（{count:,} 项参与排名）"
    )
    shown_inputs = [f for row in ranking.rows for f in row.inputs]
    return [*lines, *input_lines(shown_inputs, glossary, language)]


def _lone_lines(
    ranking: Ranking, names: dict[SubTask, str], over: str, glossary: GlossarySnapshot, language: str
) -> list[str]:
    """A field with one figure has no order: how many items have the figure, that figure as a
    plain value with its source (or its formula and inputs), and the items without it."""
    en = is_en(language)
    _, total = _coverage(ranking)
    if total < 2:
        lines = [f"{over}: there is only 1 item, so there is no ranking." if en else f"{over}：只有 1 项，无法排名。"]
    elif en:
        lines = [f"{over}: only 1 of {total:,} items has the figure, so there is no ranking."]
    else:
        lines = [f"{over}：{total:,} 项中只有 1 项有该数据，无法排名。"]
    if ranking.computed:
        lines += computed_lines(ranking.computed[0], glossary, language)
    else:
        lines += [fact_line(f, glossary, language) for row in ranking.rows for f in row.inputs]
    return lines + _unranked_lines(ranking, names, language, ranked=False)


def _unranked_lines(ranking: Ranking, names: dict[SubTask, str], language: str, *, ranked: bool) -> list[str]:
    """The items without the figure (named, the rest past `MISSING_NAMED` counted) and those
    whose figure is undefined: listed, never dropped."""
    en = is_en(language)
    sep = ", " if en else "、"
    lines = []
    if ranking.missing:
        shown = sep.join(names[t] for t in ranking.missing[:MISSING_NAMED])
        more = len(ranking.missing) - MISSING_NAMED
        if more > 0:
            shown += f" and {more:,} more" if en else f" 等 {len(ranking.missing):,} 项"
        note = ("; not ranked" if en else "，未参与排名") if ranked else ""
        lines.append(f"Not found: {shown} (no figure{note})" if en else f"未找到：{shown}（无该数据{note}）")
    if ranking.not_meaningful:
        shown = sep.join(names[t] for t in ranking.not_meaningful)
        note = ("; not ranked" if en else "，未参与排名") if ranked else ""
        lines.append(f"Not meaningful: {shown} (a zero divisor{note})" if en else f"无意义：{shown}（分母为 0{note}）")
    return lines


def _place_line(
    ranking: Ranking,
    position: int,
    names: dict[SubTask, str],
    over: str,
    glossary: GlossarySnapshot,
    language: str,
    *,
    among: str = "",
) -> str:
    """`FY2025 营业收入从高到低排第 2 的是 ACME香港（…）。`: the row in that place in the order, with
    every row tied with it; or that the ranking has no such place. `among` qualifies the place
    when only some items have the figure (`在有数据的 2 项中，`)."""
    en = is_en(language)
    desc = ranking.order == "desc"
    if position > len(ranking.rows):
        count = ranking.count or len(ranking.rows)
        if position > count:
            if en:
                return f"{over}: only {count:,} ranked, so there is no No. {position:,}."
            return f"{over}只有 {count:,} 项参与排名，没有第 {position:,} 名。"
        if en:
            return f"{over}: No. {position:,} is not among the rows listed."
        return f"{over}第 {position:,} 名不在所列的排名之内。"
    rank = ranking.rows[position - 1].rank
    placed = [r for r in ranking.rows if r.rank == rank]
    figure = _row_figure(placed[0].display, placed[0].unit, glossary, language)
    tied = len(placed) > 1
    if en:
        who = ", ".join(names[r.subject] for r in placed)
        way = "highest first" if desc else "lowest first"
        tie = f", tied at No. {rank}" if tied else ""
        return f"No. {position:,} {over} ({way}{',' if among else ''}{among}): {who} ({figure}{tie})."
    who = "、".join(names[r.subject] for r in placed)
    way = "从高到低" if desc else "从低到高"
    tie = f"（并列第 {rank} 名）" if tied else ""
    return f"{among}{over}{way}排第 {position:,} 的是 {who}（{figure}）{tie}。"
