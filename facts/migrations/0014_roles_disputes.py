"""Give the `curator` role the permissions of the models added since its roles were made (the
analysts' disputes), as a fresh install and an upgraded one both expect."""

from django.db import migrations

from facts.migrations._roles import roles_refresh


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0013_factdispute"),
        ("documents", "0007_ingest_job_outcome_and_warning_codes"),
    ]

    operations = [migrations.RunPython(roles_refresh, migrations.RunPython.noop)]
