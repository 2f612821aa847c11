"""A report of a company no glossary of the tests holds, printed as mainland annual reports
print their issuer: a title line, labelled fields in a line and in a table, a currency caption."""

from __future__ import annotations

from typing import Any

from tests.ingestion.builders import docx_bytes, docx_table


def newcomer_report(short: str = "远岫精工") -> bytes:
    def build(document: Any) -> None:
        document.add_heading(f"{short}股份有限公司 2024年年度报告", level=0)
        document.add_paragraph(f"公司代码：688321 公司简称：{short}")
        docx_table(document, [["公司的中文名称", f"{short}股份有限公司"], ["公司的中文简称", short]])
        document.add_heading("主营业务", level=1)
        document.add_paragraph(f"{short}的主营业务是精密轴承的研发、制造与销售，产品用于风电与机床。")
        document.add_heading("主要会计数据", level=1)
        document.add_paragraph("单位：元 币种：人民币")
        docx_table(document, [["主要会计数据", "2024年", "2023年"], ["营业收入", "1,250,000.00", "1,100,000.00"]])
        document.add_paragraph("本报告所列金额均以人民币列示；币种：人民币。")

    return docx_bytes(build)
