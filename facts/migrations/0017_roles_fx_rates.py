"""Give the `curator` role the permissions of the models added since its roles were last refreshed
(the curated FX table), as a fresh install and an upgraded one both expect. It runs after every
curated app's latest migration, so their models' permissions exist when the role is set."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from facts.roles import CURATED_APPS, roles_ensure


def roles_refresh(apps, schema_editor):
    for label in CURATED_APPS:
        config = apps.get_app_config(label)
        config.models_module = True  # a historical app config has none; `create_permissions` tests it
        try:
            create_permissions(config, apps=apps, verbosity=0, using=schema_editor.connection.alias)
        finally:
            config.models_module = None
    roles_ensure(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0016_fxrate"),
        ("documents", "0007_ingest_job_outcome_and_warning_codes"),
        ("agent", "0005_glossary_gap_dismissal"),
        ("faq", "0001_initial"),
        ("retrieval", "0003_chunk_embedder"),
    ]

    operations = [migrations.RunPython(roles_refresh, migrations.RunPython.noop)]
