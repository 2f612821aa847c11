"""Same concept only, everywhere: every row label of the two real annual reports in
`../shared/bench/reports/` (read from there at test time, never copied into the repository),
read through the product's own path with the demo glossary and with the reports' own glossary.
No candidate is suggested, grouped or pending under a metric of another concept, and the review
queue offers no metric of another concept for its label.

"Another concept" is decided here by hand, independently of the product's rule: `CONCEPTS` is a
reader's table of the labels these two reports print that do name a metric of either glossary,
under that metric's name. Numbering (`一、`, `（一）`, `1.`), `加：` / `减：` / `其中：`, sign notes
(`（损失以"－"号填列）`) and unit brackets (`（元）`, `（元/股）`) are formatting; every other word is
content, so `加：营业外收入` is no `营业收入` and `负债合计` no `流动负债合计`. A label missing from the
table names no metric of these glossaries: any metric given or offered for it fails, and so does
any metric not listed for a label that is.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from core.glossary import GlossarySnapshot
from facts.concepts import metrics_of_concept
from facts.selectors import glossary_snapshot
from ingestion.context import document_context
from ingestion.extract import extract
from ingestion.ir import ExtractedDocument
from ingestion.tables import FactCandidate, document_facts

REPORTS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "reports"
DEMO = Path(__file__).resolve().parents[2] / "demo"
DOCUMENTS = ("sifang_2019_annual_report.pdf", "haixiang_2019_annual_report.html")
GLOSSARIES = {"demo": DEMO / "glossary.csv", "reports": REPORTS / "glossary.csv"}

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not (REPORTS / "gold.json").exists(), reason="the shared real reports are not checked out here"),
]

# Metric name (as either glossary names it) → the labels of the two reports that name its concept,
# as printed (compared without whitespace, full-width forms folded).
CONCEPTS: dict[str, tuple[str, ...]] = {
    "营业总收入": ("一、营业总收入",),
    "营业收入": ("营业收入", "一、营业收入", "其中：营业收入", "营业收入（元）", "营业收入合计"),
    "营业总成本": ("二、营业总成本",),
    "营业成本": ("其中：营业成本", "减：营业成本"),
    "税金及附加": ("税金及附加",),
    "销售费用": ("销售费用",),
    "管理费用": ("管理费用",),
    "研发费用": ("研发费用",),
    "财务费用": ("财务费用", "财务费用（收益以“－”号填列）"),
    "利息支出": ("利息支出",),
    "利息收入": ("利息收入", "减：利息收入"),
    "其他收益": ("加：其他收益",),
    "投资收益": ("投资收益（损失以“－”号填列）",),
    "对联营企业和合营企业的投资收益": ("其中：对联营企业和合营企业的投资收益",),
    "公允价值变动收益": ("公允价值变动收益（损失以“－”号填列）",),
    "信用减值损失": ("信用减值损失（损失以“-”号填列）",),
    "资产减值损失": ("资产减值损失（损失以“-”号填列）",),
    "资产处置收益": ("资产处置收益（损失以“－”号填列）",),
    "营业利润": ("二、营业利润（亏损以“－”号填列）", "三、营业利润（亏损以“－”号填列）"),
    "营业外收入": ("加：营业外收入",),
    "营业外支出": ("减：营业外支出",),
    "利润总额": ("三、利润总额（亏损总额以“－”号填列）", "四、利润总额（亏损总额以“－”号填列）"),
    "所得税费用": ("减：所得税费用",),
    "净利润": ("净利润", "四、净利润（净亏损以“－”号填列）", "五、净利润（净亏损以“－”号填列）"),
    "持续经营净利润": ("1.持续经营净利润（净亏损以“－”号填列）", "（一）持续经营净利润（净亏损以“－”号填列）"),
    "归属母公司所有者净利润": (
        "归属于上市公司股东的净利润",
        "归属于上市公司股东的净利润（元）",
        "1.归属于母公司所有者的净利润",
        "1.归属于母公司股东的净利润（净亏损以“-”号填列）",
        "加：本期归属于母公司所有者的净利润",  # the period's attributable profit, in the equity statement
    ),
    "综合收益总额": ("（一）综合收益总额", "六、综合收益总额", "七、综合收益总额"),
    "归属于母公司所有者的综合收益总额": ("归属于母公司所有者的综合收益总额", "（一）归属于母公司所有者的综合收益总额"),
    "基本每股收益": (
        "基本每股收益（元／股）",
        "基本每股收益（元/股）",
        "（一）基本每股收益",
        "（一）基本每股收益(元/股)",
    ),
    "稀释每股收益": (
        "稀释每股收益（元／股）",
        "稀释每股收益（元/股）",
        "（二）稀释每股收益",
        "（二）稀释每股收益(元/股)",
    ),
    "流动资产合计": ("流动资产合计",),
    "非流动资产合计": ("非流动资产合计",),
    "流动负债合计": ("流动负债合计",),
    "非流动负债合计": ("非流动负债合计",),
    "销售商品、提供劳务收到的现金": ("销售商品、提供劳务收到的现金",),
    "收到的税费返还": ("收到的税费返还",),
    "收到其他与经营活动有关的现金": ("收到其他与经营活动有关的现金",),
    "购买商品、接受劳务支付的现金": ("购买商品、接受劳务支付的现金",),
    "支付给职工以及为职工支付的现金": ("支付给职工以及为职工支付的现金", "支付给职工及为职工支付的现金"),
    "支付的各项税费": ("支付的各项税费",),
    "支付其他与经营活动有关的现金": ("支付其他与经营活动有关的现金",),
    "经营活动产生的现金流量净额": ("经营活动产生的现金流量净额", "经营活动产生的现金流量净额（元）"),
    "取得投资收益收到的现金": ("取得投资收益收到的现金",),
    "处置固定资产、无形资产和其他长期资产收回的现金净额": ("处置固定资产、无形资产和其他长期资产收回的现金净额",),
    "购建固定资产、无形资产和其他长期资产支付的现金": ("购建固定资产、无形资产和其他长期资产支付的现金",),
    "投资支付的现金": ("投资支付的现金",),
    "支付其他与投资活动有关的现金": ("支付其他与投资活动有关的现金",),
    "投资活动产生的现金流量净额": ("投资活动产生的现金流量净额",),
    "吸收投资收到的现金": ("吸收投资收到的现金",),
    "取得借款收到的现金": ("取得借款收到的现金",),
    "偿还债务支付的现金": ("偿还债务支付的现金",),
    "分配股利、利润或偿付利息支付的现金": ("分配股利、利润或偿付利息支付的现金",),
    "筹资活动产生的现金流量净额": ("筹资活动产生的现金流量净额",),
    "汇率变动对现金及现金等价物的影响": ("四、汇率变动对现金及现金等价物的影响",),
    "期初现金及现金等价物余额": ("加：期初现金及现金等价物余额",),
    "期末现金及现金等价物余额": ("六、期末现金及现金等价物余额",),
    "现金的期末余额": ("现金的期末余额",),
    "职工人数": ("在职员工的数量合计", "在职员工的数量合计（人）"),
    "研发人员": ("公司研发人员的数量", "研发人员数量（人）"),
    "研发人员比率": ("研发人员数量占公司总人数的比例（%）",),
    "硕士人数": ("硕士",),
    "硕士以上人数": ("硕士及以上",),
    "博士人数": ("博士",),
    "生产人员": ("生产人员",),
    "销售人员": ("销售人员",),
    "技术人员": ("技术人员",),
    "财务人员": ("财务人员",),
    "行政人员": ("行政人员",),
}


def _key(label: str) -> str:
    return "".join(unicodedata.normalize("NFKC", label).split())


ALLOWED: dict[str, set[str]] = {}
for _name, _labels in CONCEPTS.items():
    for _label in _labels:
        ALLOWED.setdefault(_key(_label), set()).add(_name)


@cache
def _extracted(name: str) -> ExtractedDocument:
    """Extraction does not depend on the glossary: once a session per report."""
    return extract(name, (REPORTS / name).read_bytes(), max_pages=1000)


def _candidates(glossary: GlossarySnapshot) -> list[FactCandidate]:
    """Every candidate of both reports, read as `document_ingest` reads them (its context too)."""
    found: list[FactCandidate] = []
    for name in DOCUMENTS:
        document = _extracted(name)
        context = document_context(document, glossary)
        issuer = context.issuer if context.issuer and not glossary.is_external(context.issuer) else None
        found += document_facts(
            document, glossary=glossary, sensitivity="INTERNAL", default_entity=issuer, report_period=context.period
        ).candidates
    return found


@pytest.fixture(params=sorted(GLOSSARIES))
def read(request: Any, db: Any) -> tuple[GlossarySnapshot, list[FactCandidate]]:
    call_command("import_glossary", str(GLOSSARIES[request.param]), stdout=StringIO())
    glossary = glossary_snapshot()
    return glossary, _candidates(glossary)


def _other_concept(label: str, metric_name: str) -> bool:
    return metric_name not in ALLOWED.get(_key(label), set())


def test_no_label_waits_or_is_given_a_metric_of_another_concept(
    read: tuple[GlossarySnapshot, list[FactCandidate]],
) -> None:
    """The metric a candidate carries (approved, or pending and grouped under it in the queue)."""
    glossary, candidates = read
    wrong = sorted(
        {
            (c.raw_label, glossary.metrics[c.metric].name, c.status)
            for c in candidates
            if c.metric and _other_concept(c.raw_label, glossary.metrics[c.metric].name)
        }
    )
    assert wrong == [], f"{len({w[0] for w in wrong})} labels under another concept: {wrong}"


def test_the_review_queue_offers_no_metric_of_another_concept(
    read: tuple[GlossarySnapshot, list[FactCandidate]],
) -> None:
    """The quick choices the queue shows beside a waiting label (`metrics_of_concept`)."""
    glossary, candidates = read
    wrong = sorted(
        {
            (c.raw_label, name)
            for c in candidates
            if c.suggested_alias
            for _, name in metrics_of_concept(c.suggested_alias, glossary)
            if _other_concept(c.raw_label, name)
        }
    )
    assert wrong == [], f"{len({w[0] for w in wrong})} labels offered another concept: {wrong[:40]}"


def test_a_label_that_only_joins_its_words_otherwise_still_gets_its_metric() -> None:
    """The rule does not buy its safety by suggesting nothing: `及` for `以及` is the same name."""
    call_command("import_glossary", str(GLOSSARIES["reports"]), stdout=StringIO())
    glossary = glossary_snapshot()
    variant = "支付给职工及为职工支付的现金"
    given = {glossary.metrics[c.metric].name for c in _candidates(glossary) if c.raw_label == variant and c.metric}
    assert given == {"支付给职工以及为职工支付的现金"}
