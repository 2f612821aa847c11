"""The words a figure's term is made of, in English and Chinese, for an English question over
Chinese documents (`What was the return rate?` over `退货率上升至…`).

A term no metric holds has no glossary entry to carry its other names, so an English term is
rendered word by word from this table: general business vocabulary (what is measured, of what,
how), never a company's own names. A word the table does not hold leaves the term to English
passages only, and the answer says no passage states it rather than guess.
"""

from __future__ import annotations

import re


def _table(*lines: str) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for line in lines:
        for entry in line.split(";"):
            if entry.strip():
                english, chinese = entry.split("=")
                table[english.strip()] = tuple(chinese.split("|"))
    return table


# English word (or phrase) = its Chinese renderings, most usual first.
EN_ZH = _table(
    # what is measured
    "rate=率; ratio=比例|比率|率; share=占比|份额; proportion=占比|比例; percentage=占比|比例; margin=率|利润率",
    "price=价|价格; prices=价|价格; cost=成本|费用; costs=成本|费用; expense=费用; expenses=费用",
    "value=价值|金额; amount=金额|额; volume=量|规模; count=数|数量; number=数|数量; total=总额|总计",
    "growth=增长|增速; increase=增长|增加; decrease=下降|减少; decline=下降|下滑; change=变化|变动",
    "traffic=客流|流量; footfall=客流; visits=访问|到访; visitors=访客|旅客; penetration=渗透率",
    "turnover=流失|周转|营业额; churn=流失; attrition=流失; retention=留存; renewal=续费|续约",
    "repurchase=复购; repeat=复购|重复; conversion=转化; utilization=利用率|使用率; occupancy=入住率|出租率",
    "yield=收益率; return=退货|回报|收益; returns=退货|回报; refund=退款; default=违约; delinquency=逾期",
    "coverage=覆盖; exposure=敞口; hedge=对冲; hedging=对冲; hedged=对冲; leverage=杠杆",
    "satisfaction=满意度; complaint=投诉; complaints=投诉; efficiency=效率; productivity=生产率|效率",
    "headcount=人数|员工人数; salary=薪酬; wage=工资; wages=工资; bonus=奖金",
    "inventory=库存|存货; backlog=积压|订单; orders=订单; order=订单; ticket=客单价",
    "basket=客单价; spend=消费; spending=消费|支出; consumption=消费; demand=需求; supply=供应",
    "capacity=产能; output=产量; production=生产|产量; shipments=出货|出货量; deliveries=交付|交付量",
    "pipeline=储备; budget=预算; target=目标; guidance=指引; forecast=预测|预计",
    "valuation=估值; premium=溢价; discount=折扣|折价; subsidy=补贴; subsidies=补贴; tax=税",
    "interest=利息|利率; dividend=分红|股息; payout=派息|分红; debt=负债|债务; loan=贷款; loans=贷款",
    # of what or whom
    "employee=员工; employees=员工; staff=员工; customer=客户|顾客; customers=客户|顾客; client=客户",
    "member=会员; members=会员; membership=会员; user=用户; users=用户; subscriber=订阅|用户",
    "store=门店; stores=门店; shop=门店; outlet=门店; flagship=旗舰店; warehouse=仓|仓库; logistics=物流",
    "online=线上; offline=线下; e-commerce=电商; channel=渠道; dealer=经销商; dealers=经销商",
    "distributor=经销商; distributors=经销商; supplier=供应商; suppliers=供应商; vendor=供应商",
    "purchase=采购|购买; procurement=采购; purchasing=采购; raw=原; material=材料; materials=材料",
    "chip=芯片; chips=芯片; memory=存储; storage=存储|仓储; component=元器件; components=元器件",
    "product=产品; products=产品; category=品类; categories=品类; sku=sku; brand=品牌",
    "unit=单件|单位; per=单; average=均|平均; mean=平均; median=中位数",
    "market=市场; industry=行业; segment=分部|板块; region=地区|区域; regional=区域",
    "project=项目; deal=交易; acquisition=收购|并购; merger=并购; transaction=交易",
    "fx=汇率; currency=汇率|货币; exchange=汇率|兑换; dollar=美元; usd=美元",
    "same-store=同店; like-for-like=同店; comparable=可比; same store=同店",
    "east china=华东; south china=华南; north china=华北; west china=华西|西部; central china=华中",
    "first-tier=一线; tier-one=一线; cross-border=跨境; local=本地; overseas=海外; domestic=国内",
    "shelf=货架; density=密度; space=面积|空间; area=面积; floor=楼层|面积; rent=租金; lease=租约",
    "fulfillment=履约; delivery=配送|交付; shipping=运输|物流; freight=运费; on-time=准时",
)

# Words that only ask or point (`what was the … of our …`): never part of a term.
EN_FRAME = frozenset(
    " ".join(
        (
            "what which how much many is was were are be been did does do tell me please could can would you the a",
            "an our its their his her this that these those company company's group group's in for at during on by",
            "about around of to as with level figure number value current latest",
        )
    ).split()
)
_EN_WORD = re.compile(r"[a-z][a-z'\-]*")


def english_words(text: str) -> tuple[list[str], list[str]]:
    """The content words of an English term as written, and in the order of its Chinese words:
    `X of Y` and `X in Y` read as `Y X` (`price of memory chips` → memory chips price,
    `growth in East China` → East China growth)."""
    written = _content(text.lower())
    text = text.lower()
    for joint in (" of ", " in ", " at ", " for "):
        if joint in text:
            head, _, tail = text.partition(joint)
            text = f"{tail} {head}"
    return written, _content(text)


def _content(text: str) -> list[str]:
    words = [w.strip("'-") for w in _EN_WORD.findall(text)]
    return [w for w in words if w and w not in EN_FRAME]


def chinese_renderings(words: list[str]) -> list[tuple[str, ...]] | None:
    """Each English word (two-word phrases first) as its Chinese renderings, or None when a word
    has none: a term half rendered would match another term."""
    slots: list[tuple[str, ...]] = []
    i = 0
    while i < len(words):
        pair = " ".join(words[i : i + 2]) if i + 1 < len(words) else ""
        hyphenless = words[i].replace("-", " ")
        if pair in EN_ZH:
            slots.append(EN_ZH[pair])
            i += 2
            continue
        found = EN_ZH.get(words[i]) or EN_ZH.get(hyphenless) or EN_ZH.get(words[i].rstrip("s"))
        if found is None:
            return None
        slots.append(found)
        i += 1
    return slots or None
