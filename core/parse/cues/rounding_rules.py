"""The cue rules of the rounding asked for: a place after the point, counted (两位小数, 小数点后两位,
2 decimal places) or ordinal (小数点后第一位, the first decimal place); an integer (四舍五入到整数,
取整, to the nearest whole number); a step (精确到0.01); each may open with 四舍五入.
"""

from __future__ import annotations

import re
from typing import Any

from core.parse.cues.counts import EN_N, EN_ORDINAL, ZH_N, count_read
from core.parse.cues.fragments import EN_END, EN_START, Extras
from core.parse.cues.kinds import CUE_DECIMALS

_ZH_ROUND = r"四舍五入|舍入"


def _decimals(m: re.Match[str]) -> dict[str, Any]:
    """`保留两位小数` → 2; `取整` / `to the nearest whole number` → 0."""
    groups = m.groupdict()
    if groups.get("frac"):  # 精确到0.01: as many places as the unit has
        return {"decimals": len(groups["frac"].split(".")[1])}
    n = groups.get("n") or groups.get("n2")
    return {"decimals": count_read(n) if n else 0}


ROUNDING_RULES: list[tuple[str, str, Extras]] = [
    # -- rounding ---------------------------------------------------------------------------------------
    # a place after the point, counted (两位小数, 小数点后两位) or ordinal (小数点后第一位); an
    # integer (四舍五入到整数, 保留整数, 取整); a step (精确到0.01); each may open with 四舍五入
    (
        CUE_DECIMALS,
        rf"(?:{_ZH_ROUND}(?:后|并|,)?)?"
        rf"(?:(?:(?:保留|精确|取|{_ZH_ROUND})(?:到|至)?(?:小数点后)?|(?:到|至)?小数点后)第?(?P<n>{ZH_N}|零)位(?:小数|数字)?"
        rf"|(?P<n2>{ZH_N})位小数|(?:保留|精确|{_ZH_ROUND})(?:到|至)?(?P<frac>0?\.0*1)(?![0-9])"
        rf"|(?:保留|精确|取|{_ZH_ROUND})(?:到|至|为|成)?(?:整数位?|个位)|取整)",
        _decimals,
    ),
    (
        CUE_DECIMALS,
        EN_START + rf"(?:(?:to |at )?(?P<n>{EN_N}) ?(?:decimal places?|decimals?|dp|d\.p\.)"
        rf"|(?:(?:rounded |round )?to |at )?the (?P<n2>{EN_ORDINAL}) decimal(?: place)?"
        r"|(?:rounded |round )?to (?:the nearest )?(?:integer|whole number|(?P<frac>0?\.0*1)(?![0-9])))" + EN_END,
        _decimals,
    ),
]
