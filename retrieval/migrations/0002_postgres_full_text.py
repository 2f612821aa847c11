"""PostgreSQL only: a GIN full-text index over the stored tokens (the multi-host lexical backend)."""

from django.db import migrations


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS chunk_tokens_fts ON retrieval_chunk "
            "USING gin (to_tsvector('simple', tokens))"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS chunk_tokens_fts")


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0001_initial"), ("facts", "0002_seed_units_and_total")]

    operations = [migrations.RunPython(create, drop)]
