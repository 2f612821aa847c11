"""The cue rules of a ranking and of what a ranking or a sum runs over: the highest and the lowest,
the top N, a place in the order (排名第二, 倒数第二, second highest), the order said as a direction
(从低到高, ascending), which member (哪个地区, which region), and the lists a ranking or a sum
runs across (各地区, by channel; weakly, 的地区).
"""

from __future__ import annotations

import re
from typing import Any

from core.model.operation import OP_RANK
from core.parse.cues.counts import EN_N, EN_ORDINAL, ZH_N, count_read
from core.parse.cues.fragments import EN_END, EN_START, Extras, fixed
from core.parse.cues.kinds import CUE_OVER, OVER_CHANNELS, OVER_ENTITIES, OVER_PERIODS

_ZH_ENTITY_DIMS = r"子公司|分公司|附属公司|事业部|业务单元|地区|区域|市场|板块|分部|公司"
_EN_ENTITY_DIMS = r"regions?|subsidiar(?:y|ies)|segments?|markets?|business units?|divisions?|entities|companies"
# "which" is 哪个 / 哪家 in Mandarin and 边个 / 边间 (邊個 / 邊間) in Cantonese.
_ZH_WHICH = r"哪一?个|哪一?家|哪一?间|边一?个|边一?间|边几间"
_ZH_LIST_PREFIX = rf"各个?|每一?个|(?<![部充十百])分|按|{_ZH_WHICH}|哪些|所有|全部"
_EN_LIST_PREFIX = r"each|every|by|per|which|across(?: all)?(?: the)?|all(?: the)?|among(?: the)?"
# A direction between the two ends of an order: 从低到高, 由大到小, from smallest to largest.
_ZH_FROM, _ZH_TO = r"(?:从|由|自)", r"(?:到|至|往|而)"
_ZH_LOW, _ZH_HIGH = r"(?:低|小|少)", r"(?:高|大|多)"
_EN_LOW, _EN_HIGH = r"(?:lowest|smallest|least|low)", r"(?:highest|largest|biggest|most|high)"


def _rank(order: str | None) -> Extras:
    def extras(m: re.Match[str]) -> dict[str, Any]:
        groups = m.groupdict()
        return {
            "order": order,
            "top": count_read(groups.get("top") or groups.get("top2")),
            "position": count_read(groups.get("pos")),
        }

    return extras


def _direction(order: str) -> Extras:
    """从低到高, ascending: the order of a ranking, said as a direction (`Cue.direction`)."""
    return fixed(order=order, direction=True)


def _ranked_from_bottom(m: re.Match[str]) -> dict[str, Any]:
    """倒数第二, second lowest, ranked last: counted from the bottom."""
    groups = m.groupdict()
    return {"order": "asc", "position": count_read(groups.get("pos") or groups.get("pos2"))}


RANK_RULES: list[tuple[str, str, Extras]] = [
    # -- rank -------------------------------------------------------------------------------------------
    (OP_RANK, rf"(?:最低|最小|最少|最差|最慢)(?:的(?P<top>{ZH_N})(?:个|家|名|位))?|更低|更少|更小", _rank("asc")),
    (
        OP_RANK,
        rf"(?:最高|最大|最多|最好|最快)(?:的(?P<top>{ZH_N})(?:个|家|名|位))?|更高|更多|更大",
        _rank("desc"),
    ),
    # the order said as a direction: 从低到高 / 由小到大 / 升序, ascending / smallest to largest
    (OP_RANK, rf"{_ZH_FROM}{_ZH_LOW}{_ZH_TO}{_ZH_HIGH}|升序", _direction("asc")),
    (OP_RANK, rf"{_ZH_FROM}{_ZH_HIGH}{_ZH_TO}{_ZH_LOW}|降序", _direction("desc")),
    (
        OP_RANK,
        EN_START + rf"(?:ascending|(?:from )?(?:the )?{_EN_LOW} to (?:the )?{_EN_HIGH})" + EN_END,
        _direction("asc"),
    ),
    (
        OP_RANK,
        EN_START + rf"(?:descending|(?:from )?(?:the )?{_EN_HIGH} to (?:the )?{_EN_LOW})" + EN_END,
        _direction("desc"),
    ),
    # a place in the order: 排名第二, 第二名, 第二高, 倒数第二 (a 第N that is no quarter or period)
    (
        OP_RANK,
        rf"(?:排名|排行|排在?|名列|位列|位居)第(?P<pos>{ZH_N})(?:名|位)?(?!个?季|个?月|年|天|日|周|期|半|{ZH_N})"
        rf"|第(?P<pos2>{ZH_N})(?:名|位)",
        lambda m: {"order": None, "position": count_read(m.group("pos") or m.group("pos2"))},
    ),
    (OP_RANK, rf"第(?P<pos>{ZH_N})(?:高|大|多)", _rank("desc")),
    (OP_RANK, rf"第(?P<pos>{ZH_N})(?:低|小|少)|倒数第(?P<pos2>{ZH_N})(?:名|位)?", _ranked_from_bottom),
    (
        OP_RANK,
        r"(?:排名|排行|排在?|位列|位居|名列)(?:在)?最后(?:一名|一位)?|最后一名|最后一位|末位|垫底",
        _rank("asc"),
    ),
    (OP_RANK, rf"倒数(?:前)?(?P<top>{ZH_N})?(?:名|位)?|后(?P<top2>{ZH_N})(?:名|位)", _rank("asc")),
    (
        OP_RANK,
        rf"排名|排序|排行|名列|(?<![目此之以提])前(?P<top>{ZH_N})(?:名|位|家|个|大)?(?!个?季|个?月|年|天|日|周|期|半|{ZH_N})",
        _rank(None),
    ),
    (OP_RANK, rf"(?:{_ZH_WHICH})(?:{_ZH_ENTITY_DIMS}|渠道)|哪一?家|边一?间", _rank(None)),
    (
        OP_RANK,
        EN_START
        + r"(?:lowest|smallest|(?<!at )least|worst|slowest|lower|bottom(?:[- ](?P<top>"
        + EN_N
        + r"))?)"
        + EN_END,
        _rank("asc"),
    ),
    (
        OP_RANK,
        EN_START + r"(?:highest|largest|biggest|most(?! recent| recently| likely| of)|best|fastest|higher"
        rf"|top(?:[- ](?P<top>{EN_N})| (?=(?:{_EN_ENTITY_DIMS}|channels?|perform))))" + EN_END,
        _rank("desc"),
    ),
    (
        OP_RANK,
        EN_START + rf"(?P<pos>{EN_ORDINAL}) (?:highest|largest|biggest|most|best|fastest)" + EN_END,
        _rank("desc"),
    ),
    (
        OP_RANK,
        EN_START + rf"(?:(?P<pos>{EN_ORDINAL}) (?:lowest|smallest|least|worst|slowest)"
        r"|(?:rank(?:ed|s)?|placed?|came|finish(?:ed)?) (?:in )?(?:the )?last(?: place)?|in last place)" + EN_END,
        _ranked_from_bottom,
    ),
    (
        OP_RANK,
        EN_START
        + rf"(?:rank(?:ed|s)?|placed?|came) (?:in )?(?:the )?(?:no\.? ?|number |#)?(?P<pos>{EN_ORDINAL}|[0-9]+)"
        r"(?: place)?" + EN_END,
        _rank(None),
    ),
    (
        OP_RANK,
        EN_START + rf"(?:rank(?:ing|ings|ed)?|which (?:{_EN_ENTITY_DIMS}|channels?))" + EN_END,
        _rank(None),
    ),
    # -- what a ranking or a sum runs over ------------------------------------------------------------
    (CUE_OVER, rf"(?:{_ZH_LIST_PREFIX})(?:{_ZH_ENTITY_DIMS})|哪一?家", fixed(over=OVER_ENTITIES)),
    (CUE_OVER, rf"(?:{_ZH_LIST_PREFIX})(?:销售)?渠道", fixed(over=OVER_CHANNELS)),
    (CUE_OVER, r"(?:哪|边)一?个?(?:财?年度?|季度?)", fixed(over=OVER_PERIODS)),
    (CUE_OVER, EN_START + r"which (?:fiscal )?(?:years?|quarters?|periods?)" + EN_END, fixed(over=OVER_PERIODS)),
    (CUE_OVER, rf"的(?:{_ZH_ENTITY_DIMS})", fixed(over=OVER_ENTITIES, weak=True)),
    (CUE_OVER, r"的(?:销售)?渠道", fixed(over=OVER_CHANNELS, weak=True)),
    (
        CUE_OVER,
        EN_START + rf"(?:{_EN_LIST_PREFIX}) (?:{_EN_ENTITY_DIMS})" + EN_END,
        fixed(over=OVER_ENTITIES),
    ),
    (CUE_OVER, EN_START + rf"(?:{_EN_LIST_PREFIX}) channels?" + EN_END, fixed(over=OVER_CHANNELS)),
    (CUE_OVER, EN_START + rf"(?:{_EN_ENTITY_DIMS})" + EN_END, fixed(over=OVER_ENTITIES, weak=True)),
    (CUE_OVER, EN_START + r"channels?" + EN_END, fixed(over=OVER_CHANNELS, weak=True)),
]
