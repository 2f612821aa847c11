"""Seed `AS_PRINTED`: a metric in this unit stores the unit its table prints."""

from django.db import migrations


def seed(apps, schema_editor):
    Unit = apps.get_model("facts", "Unit")
    Unit.objects.get_or_create(code="AS_PRINTED", defaults={"name_zh": "按原表", "name_en": "as printed"})


class Migration(migrations.Migration):
    dependencies = [("facts", "0007_entity_reporting_conventions")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
