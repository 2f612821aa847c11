"""Seed the units Chinese statements print per share and per person (`元/股`, `人`), so a label
such as `基本每股收益（元／股）` reads as its metric with its unit set aside; a unit an earlier import
created with its code for a name takes the printed names."""

from django.db import migrations

UNITS = {
    "CNY_PER_SHARE": ("元/股", "CNY per share"),
    "PERSONS": ("人", "persons"),
}


def seed(apps, schema_editor):
    Unit = apps.get_model("facts", "Unit")
    for code, (zh, en) in UNITS.items():
        unit, created = Unit.objects.get_or_create(code=code, defaults={"name_zh": zh, "name_en": en})
        if not created and unit.name_zh in ("", code):
            unit.name_zh, unit.name_en = zh, en
            unit.save(update_fields=["name_zh", "name_en"])


class Migration(migrations.Migration):
    dependencies = [("facts", "0008_unit_as_printed")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
