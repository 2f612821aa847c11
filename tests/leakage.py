"""The RESTRICTED probes of the leakage suite, shared by every suite that checks a surface for them.

The demo data holds one RESTRICTED document (with its chunks and one fact) and one RESTRICTED FAQ
item. `SECRETS` are strings found only there; `QUESTIONS` and `SEARCHES` are what reaches them
for a cleared user. A surface leaks when an uncleared user's view of it shows a secret or names
a RESTRICTED row (`restricted_rows`); the same surface must show one to a cleared user, or the
probe is blind.
"""

from __future__ import annotations

from documents.models import Document
from facts.models import FactMetric
from faq.models import FAQItem
from retrieval.models import Chunk

SECRET_DOC = "东南亚扩张计划_内部.docx"
# Strings that exist only in RESTRICTED data: the document's name and text, its fact's value (as
# stored and as rendered) and the RESTRICTED FAQ item's answer.
SECRETS = (
    "东南亚扩张计划_内部",
    "12亿美元",
    "14.03",
    "越南一家区域连锁",
    "150家",
    "1402.6",
    "1,402.6",
    "尽职调查",
    "董事会将于下季度",
)
QUESTIONS = (
    "东南亚扩张有什么计划",
    "蓝鲸项目进展如何",
    "哪些文件提到了东南亚扩张",
    "2025年东南亚净利润是多少",
    "东南亚净利润为什么亏损",
    "越南收购的目标估值是多少",
)
SEARCHES = ("蓝鲸", "东南亚 扩张 收购", "越南 门店", "并购整合风险")


def secrets_in(text: str) -> list[str]:
    """The secrets `text` shows."""
    return [secret for secret in SECRETS if secret in text]


def restricted_rows() -> dict[str, set[int]]:
    """The primary keys of the RESTRICTED rows, by kind; every kind must have some."""
    rows = {
        "chunk_ids": set(Chunk.objects.filter(sensitivity="RESTRICTED").values_list("pk", flat=True)),
        "fact_ids": set(FactMetric.objects.filter(sensitivity="RESTRICTED").values_list("pk", flat=True)),
        "faq_ids": set(FAQItem.objects.filter(sensitivity="RESTRICTED").values_list("pk", flat=True)),
        "document_ids": set(Document.objects.filter(sensitivity="RESTRICTED").values_list("pk", flat=True)),
    }
    assert all(rows.values()), "the demo data lost its RESTRICTED rows; the suite would prove nothing"
    return rows
