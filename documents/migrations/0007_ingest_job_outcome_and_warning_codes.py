# A done job keeps its outcome, and a document's warnings carry their kind's code: the
# warnings stored as lines before are given the code of the words ingestion wrote then.

import re

from django.db import migrations, models

# The words ingestion wrote for each kind when warnings were lines, frozen here.
_TABLE_WARNING = re.compile(r"^(?P<place>[^:：]+): no facts read \((?P<text>.+)\)$")
_UNDECODABLE = re.compile(r"^(\d+) lines of text could not be decoded \(fonts without a Unicode mapping\)$")
_CODES = {
    "a statement of changes in equity: its columns are equity components, not periods": "table.equity_changes",
    "no row or column of periods (years, dates or fiscal years) was found": "table.no_period_axis",
    "a schedule of amounts due by year (`Thereafter`): its years are due dates": "table.due_schedule",
    "its columns are quarters, halves or year-to-date, which a year alone does not name": "table.sub_annual",
    "no column header names a period": "table.no_period_column",
    "no value cell under a period column": "table.no_value_cell",
    "the PDF is encrypted with an empty user password (permissions only); read as usual": "pdf.empty_password",
}


def _coded(line):
    table = _TABLE_WARNING.match(line)
    if table:
        text = table.group("text")
        return {"code": _CODES.get(text, ""), "text": f"no facts read ({text})", "place": table.group("place"), "count": 0}
    undecodable = _UNDECODABLE.match(line)
    if undecodable:
        return {"code": "pdf.undecodable_lines", "text": line, "place": "", "count": int(undecodable.group(1))}
    return {"code": _CODES.get(line, ""), "text": line, "place": "", "count": 0}


def _line(warning):
    return f"{warning['place']}: {warning['text']}" if warning.get("place") else warning.get("text", "")


def warnings_coded(apps, schema_editor):
    Document = apps.get_model("documents", "Document")
    for document in Document.objects.exclude(warnings=[]).only("pk", "warnings"):
        if any(isinstance(w, str) for w in document.warnings):
            document.warnings = [_coded(w) if isinstance(w, str) else w for w in document.warnings]
            document.save(update_fields=["warnings"])


def warnings_as_lines(apps, schema_editor):
    Document = apps.get_model("documents", "Document")
    for document in Document.objects.exclude(warnings=[]).only("pk", "warnings"):
        document.warnings = [w if isinstance(w, str) else _line(w) for w in document.warnings]
        document.save(update_fields=["warnings"])


class Migration(migrations.Migration):

    dependencies = [
        ('documents', '0006_document_context_set'),
    ]

    operations = [
        migrations.AddField(
            model_name='ingestjob',
            name='outcome',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(warnings_coded, warnings_as_lines),
    ]
