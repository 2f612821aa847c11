"""PostgreSQL only: a GIN full-text index over the stored tokens (the multi-host lexical backend)."""

from django.db import migrations


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # A stored tsvector: ranking reads it instead of re-parsing every matched chunk's tokens.
        schema_editor.execute(
            "ALTER TABLE retrieval_chunk ADD COLUMN IF NOT EXISTS tokens_tsv tsvector "
            "GENERATED ALWAYS AS (to_tsvector('simple', tokens)) STORED"
        )
        schema_editor.execute("CREATE INDEX IF NOT EXISTS chunk_tokens_fts ON retrieval_chunk USING gin (tokens_tsv)")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS chunk_tokens_fts")
        schema_editor.execute("ALTER TABLE retrieval_chunk DROP COLUMN IF EXISTS tokens_tsv")


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0001_initial"), ("facts", "0002_seed_units_and_total")]

    operations = [migrations.RunPython(create, drop)]
