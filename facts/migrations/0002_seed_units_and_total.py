"""Seed the known units and the TOTAL channel (the default of every fact), and enable pgvector."""

from django.db import migrations

UNITS = {
    "CNY_M": ("百万元", "CNY m"),
    "CNY": ("元", "CNY"),
    "USD_M": ("百万美元", "USD m"),
    "HKD_M": ("百万港元", "HKD m"),
    "PCT": ("%", "%"),
    "COUNT": ("", ""),
    "TEN_THOUSAND_PERSONS": ("万人", "10k persons"),
}


def seed(apps, schema_editor):
    Unit = apps.get_model("facts", "Unit")
    Channel = apps.get_model("facts", "Channel")
    for code, (zh, en) in UNITS.items():
        Unit.objects.get_or_create(code=code, defaults={"name_zh": zh, "name_en": en})
    Channel.objects.get_or_create(code="TOTAL", defaults={"name": "合计"})


def vector_extension(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS vector")


class Migration(migrations.Migration):
    dependencies = [("facts", "0001_initial")]

    operations = [
        migrations.RunPython(seed, migrations.RunPython.noop),
        migrations.RunPython(vector_extension, migrations.RunPython.noop),
    ]
