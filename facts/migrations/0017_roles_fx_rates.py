"""Give the `curator` role the permissions of the models added since its roles were last refreshed
(the curated FX table), as a fresh install and an upgraded one both expect. It runs after every
curated app's latest migration, so their models' permissions exist when the role is set."""

from django.db import migrations

from facts.migrations._roles import roles_refresh


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0016_fxrate"),
        ("documents", "0007_ingest_job_outcome_and_warning_codes"),
        ("agent", "0005_glossary_gap_dismissal"),
        ("faq", "0001_initial"),
        ("retrieval", "0003_chunk_embedder"),
    ]

    operations = [migrations.RunPython(roles_refresh, migrations.RunPython.noop)]
