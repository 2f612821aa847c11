"""Deterministic synthetic company data at scale: a glossary of N entities with full Chinese
company names, short names and English names, M metrics, and long-format facts.

Every name is unique by construction (built from the entity's index), so a lookup by full name
has exactly one right answer, which `expected_value` recomputes.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from decimal import Decimal, localcontext
from pathlib import Path

PROVINCES = [
    ("浙江", "Zhejiang"),
    ("江苏", "Jiangsu"),
    ("广东", "Guangdong"),
    ("四川", "Sichuan"),
    ("湖北", "Hubei"),
    ("湖南", "Hunan"),
    ("福建", "Fujian"),
    ("安徽", "Anhui"),
    ("河南", "Henan"),
    ("河北", "Hebei"),
    ("山东", "Shandong"),
    ("辽宁", "Liaoning"),
    ("吉林", "Jilin"),
    ("陕西", "Shaanxi"),
    ("云南", "Yunnan"),
    ("贵州", "Guizhou"),
    ("江西", "Jiangxi"),
    ("广西", "Guangxi"),
    ("甘肃", "Gansu"),
    ("宁夏", "Ningxia"),
]
WORDS = [
    ("华信", "Huaxin"),
    ("远景", "Yuanjing"),
    ("恒通", "Hengtong"),
    ("博雅", "Boya"),
    ("天成", "Tiancheng"),
    ("嘉禾", "Jiahe"),
    ("瑞丰", "Ruifeng"),
    ("明德", "Mingde"),
    ("安泰", "Antai"),
    ("长青", "Changqing"),
    ("宏图", "Hongtu"),
    ("金桥", "Jinqiao"),
    ("星河", "Xinghe"),
    ("海纳", "Haina"),
    ("同创", "Tongchuang"),
    ("新元", "Xinyuan"),
    ("永盛", "Yongsheng"),
    ("凯达", "Kaida"),
    ("泰和", "Taihe"),
    ("万方", "Wanfang"),
    ("九洲", "Jiuzhou"),
    ("光明", "Guangming"),
    ("中联", "Zhonglian"),
    ("东升", "Dongsheng"),
    ("西岭", "Xiling"),
    ("南山", "Nanshan"),
    ("北湖", "Beihu"),
    ("聚源", "Juyuan"),
    ("鸿运", "Hongyun"),
    ("盛世", "Shengshi"),
]
INDUSTRIES = [
    ("智能科技", "Smart Tech"),
    ("实业", "Industrial"),
    ("控股", "Holdings"),
    ("物流", "Logistics"),
    ("电子", "Electronics"),
]
METRIC_STEMS = [
    ("营业收入", "revenue"),
    ("毛利", "gross profit"),
    ("毛利率", "gross margin"),
    ("营业利润", "operating profit"),
    ("净利润", "net profit"),
    ("资本开支", "capex"),
    ("经营现金流", "operating cash flow"),
    ("存货周转天数", "inventory days"),
    ("应收账款", "receivables"),
    ("研发费用", "r&d expense"),
]
METRIC_QUALIFIERS = [
    ("", ""),
    ("归母", "attributable "),
    ("经调整", "adjusted "),
    ("境内", "domestic "),
    ("境外", "overseas "),
    ("同口径", "like-for-like "),
    ("上市主体", "listed "),
    ("合并", "consolidated "),
    ("分部", "segment "),
    ("核心", "core "),
]


def entity(i: int) -> dict[str, str]:
    p = PROVINCES[i % len(PROVINCES)]
    w1 = WORDS[(i // len(PROVINCES)) % len(WORDS)]
    w2 = WORDS[(i // (len(PROVINCES) * len(WORDS))) % len(WORDS)]
    ind = INDUSTRIES[(i // (len(PROVINCES) * len(WORDS) ** 2)) % len(INDUSTRIES)]
    short = f"{p[0]}{w1[0]}{w2[0]}{ind[0]}"
    return {
        "code": f"CO{i:05d}",
        "full": f"{short}股份有限公司",
        "short": short,
        "english": f"{p[1]} {w1[1]}{w2[1].lower()} {ind[1]} Co",
    }


def metric(j: int) -> dict[str, str]:
    stem = METRIC_STEMS[j % len(METRIC_STEMS)]
    qualifier = METRIC_QUALIFIERS[(j // len(METRIC_STEMS)) % len(METRIC_QUALIFIERS)]
    return {"code": f"M{j:03d}", "name": f"{qualifier[0]}{stem[0]}", "english": f"{qualifier[1]}{stem[1]}".strip()}


FORMULA_STEMS = [
    ("盈利率", "profitability"),
    ("费用率", "expense intensity"),
    ("周转率", "turnover"),
    ("覆盖率", "coverage"),
    ("转化率", "conversion"),
]
FORMULA_QUALIFIERS = [("核心", "core "), ("经调整", "adjusted "), ("境内", "domestic "), ("境外", "overseas ")]


def formula_metric(k: int, *, over: int) -> dict[str, str]:
    """The k-th formula metric over the first `over` stored metrics (`M000`…): most are ratios
    `Ma / Mb` in `PCT`, every fifth a spread `(Ma - Mb) / Mc`, and every seventh uses the
    previous formula metric, so formulas over formulas are exercised too."""
    stem = FORMULA_STEMS[k % len(FORMULA_STEMS)]
    qualifier = FORMULA_QUALIFIERS[(k // len(FORMULA_STEMS)) % len(FORMULA_QUALIFIERS)]
    a, b, c = (k * 3) % over, (k * 3 + 17) % over, (k * 3 + 29) % over
    if k % 7 == 6:
        formula = f"F{k - 1:02d} + M{a:03d} / M{b:03d}"
    elif k % 5 == 4:
        formula = f"(M{a:03d} - M{b:03d}) / M{c:03d}"
    else:
        formula = f"M{a:03d} / M{b:03d}"
    return {
        "code": f"F{k:02d}",
        "name": f"{qualifier[0]}{stem[0]}",
        "english": f"{qualifier[1]}{stem[1]}",
        "formula": formula,
    }


def formula_expected(k: int, i: int, year: int, *, over: int) -> Decimal:
    """Formula metric k's value (a fraction) for entity i, recomputed from `expected_value` in
    the shapes `formula_metric` writes, at the engine's 34 significant digits."""
    a, b, c = (k * 3) % over, (k * 3 + 17) % over, (k * 3 + 29) % over
    with localcontext() as ctx:
        ctx.prec = 34
        if k % 7 == 6:
            return formula_expected(k - 1, i, year, over=over) + expected_value(i, a, year) / expected_value(i, b, year)
        if k % 5 == 4:
            return (expected_value(i, a, year) - expected_value(i, b, year)) / expected_value(i, c, year)
        return expected_value(i, a, year) / expected_value(i, b, year)


CHANNELS = [("C_ONLINE", "线上"), ("C_STORE", "门店"), ("C_DEALER", "经销"), ("C_OTHER", "其他渠道")]


def glossary_csv(
    path: Path, *, entities: int, metrics: int, formulas: int = 0, formulas_over: int = 0, channels: bool = False
) -> int:
    """Write an import_glossary CSV; return the number of alias rows. With `formulas`, that
    many formula metrics over the first `formulas_over` stored metrics (`formula_metric`); with
    `channels`, the four channels of `CHANNELS` besides the total."""
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["kind", "code", "name", "alias", "unit", "entity_kind", "parent", "formula"])
        out.writerow(["entity", "HOME", "样本集团", "样本集团", "", "home", "", ""])
        for i in range(entities):
            e = entity(i)
            for alias in (e["full"], e["short"], e["english"]):
                out.writerow(["entity", e["code"], e["full"], alias, "", "subsidiary", "HOME", ""])
                rows += 1
        for j in range(metrics):
            m = metric(j)
            for alias in (m["name"], m["english"]):
                out.writerow(["metric", m["code"], m["name"], alias, "CNY_M", "", "", ""])
                rows += 1
        for k in range(formulas):
            f = formula_metric(k, over=formulas_over or metrics)
            for alias in (f["name"], f["english"]):
                out.writerow(["metric", f["code"], f["name"], alias, "PCT", "", "", f["formula"]])
                rows += 1
        out.writerow(["channel", "TOTAL", "合计", "合计", "", "", "", ""])
        for code, name in CHANNELS if channels else ():
            out.writerow(["channel", code, name, name, "", "", "", ""])
    return rows


def channel_value(i: int, j: int, year: int, c: int) -> Decimal:
    """Entity i's metric j in channel c: four figures that add up to `expected_value` exactly."""
    whole = expected_value(i, j, year)
    if c < len(CHANNELS) - 1:
        return Decimal((i * 31 + j * 17 + year + c * 7) % 1000) + Decimal(c) / 10
    return whole - sum((channel_value(i, j, year, k) for k in range(len(CHANNELS) - 1)), Decimal(0))


def why_csv(path: Path, *, entities: int, metrics: list[int], years: list[int]) -> int:
    """For each metric of `metrics`: every entity's four channel figures and the home group's
    total and channel figures (the sums over the entities), in the `facts_csv` format with a
    channel column. What a why over the group's subsidiaries and channels reads."""
    count = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["entity", "metric", "period", "channel", "value", "unit"])
        for j in metrics:
            for year in years:
                sums = [Decimal(0)] * len(CHANNELS)
                for i in range(entities):
                    for c, (code, _) in enumerate(CHANNELS):
                        value = channel_value(i, j, year, c)
                        sums[c] += value
                        out.writerow([f"CO{i:05d}", f"M{j:03d}", f"FY{year}", code, str(value), "CNY_M"])
                        count += 1
                for c, (code, _) in enumerate(CHANNELS):
                    out.writerow(["HOME", f"M{j:03d}", f"FY{year}", code, str(sums[c]), "CNY_M"])
                out.writerow(["HOME", f"M{j:03d}", f"FY{year}", "TOTAL", str(sum(sums, Decimal(0))), "CNY_M"])
                count += len(CHANNELS) + 1
    return count


def expected_value(i: int, j: int, year: int) -> Decimal:
    whole = (i * 7919 + j * 104729 + year * 31) % 1_000_000
    return Decimal(f"{whole}.{(i + j + year) % 10}")


def fact_rows(*, entities: int, metrics: int, years: list[int]) -> Iterator[list[str]]:
    for i in range(entities):
        code = f"CO{i:05d}"
        for j in range(metrics):
            for year in years:
                yield [code, f"M{j:03d}", f"FY{year}", str(expected_value(i, j, year)), "CNY_M"]


def facts_csv(path: Path, *, entities: int, metrics: int, years: list[int]) -> int:
    count = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["entity", "metric", "period", "value", "unit"])
        for row in fact_rows(entities=entities, metrics=metrics, years=years):
            out.writerow(row)
            count += 1
    return count


def expected_quarter_value(i: int, j: int, year: int, quarter: int) -> Decimal:
    """Entity i's metric j in a quarter: `expected_value` with the quarter folded into the key, so
    every quarter's figure differs from its year's and its neighbours'."""
    return expected_value(i, j, year * 10 + quarter)


def quarter_rows(*, entities: int, metrics: int, quarters: list[tuple[int, int]]) -> Iterator[list[str]]:
    for i in range(entities):
        code = f"CO{i:05d}"
        for j in range(metrics):
            for year, quarter in quarters:
                value = expected_quarter_value(i, j, year, quarter)
                yield [code, f"M{j:03d}", f"{year}Q{quarter}", str(value), "CNY_M"]


def quarters_csv(path: Path, *, entities: int, metrics: int, quarters: list[tuple[int, int]]) -> int:
    """Quarterly facts of the first `entities` entities, in the `facts_csv` format."""
    count = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["entity", "metric", "period", "value", "unit"])
        for row in quarter_rows(entities=entities, metrics=metrics, quarters=quarters):
            out.writerow(row)
            count += 1
    return count
