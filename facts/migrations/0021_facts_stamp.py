"""The facts' write stamp (`FactsStamp`): the database changes its token on every write of a fact
and on every change of a document's level, so a process can keep what it derived from the facts
until they change, whoever changed them.

SQLite fires a trigger per row; its writes are serial, so the one-row upsert costs no waiting.
PostgreSQL fires once per statement for the facts, and once per row whose level changed for the
documents; the stamp's row is then held until the writer commits. A truncated stamp table has no
token: readers keep nothing until the next write sets one."""

from django.db import migrations, models

FACTS, DOCUMENTS, STAMP = "facts_factmetric", "documents_document", "facts_factsstamp"

SQLITE_BUMP = (
    f"INSERT INTO {STAMP} (id, token) VALUES (1, lower(hex(randomblob(16)))) "
    "ON CONFLICT (id) DO UPDATE SET token = excluded.token"
)
SQLITE = [
    *(
        f"CREATE TRIGGER facts_stamp_{event.lower()} AFTER {event} ON {FACTS} BEGIN {SQLITE_BUMP}; END"
        for event in ("INSERT", "UPDATE", "DELETE")
    ),
    f"CREATE TRIGGER facts_stamp_document_level AFTER UPDATE OF sensitivity ON {DOCUMENTS} "
    f"WHEN OLD.sensitivity IS NOT NEW.sensitivity BEGIN {SQLITE_BUMP}; END",
]
SQLITE_DROP = [
    *(f"DROP TRIGGER IF EXISTS facts_stamp_{event}" for event in ("insert", "update", "delete")),
    "DROP TRIGGER IF EXISTS facts_stamp_document_level",
]

POSTGRES = [
    "CREATE FUNCTION facts_stamp_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"INSERT INTO {STAMP} (id, token) VALUES (1, md5(random()::text || clock_timestamp()::text)) "
    "ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token; RETURN NULL; END $$",
    f"CREATE TRIGGER facts_stamp AFTER INSERT OR UPDATE OR DELETE ON {FACTS} "
    "FOR EACH STATEMENT EXECUTE FUNCTION facts_stamp_bump()",
    f"CREATE TRIGGER facts_stamp_document_level AFTER UPDATE OF sensitivity ON {DOCUMENTS} FOR EACH ROW "
    "WHEN (OLD.sensitivity IS DISTINCT FROM NEW.sensitivity) EXECUTE FUNCTION facts_stamp_bump()",
]
POSTGRES_DROP = [
    f"DROP TRIGGER IF EXISTS facts_stamp ON {FACTS}",
    f"DROP TRIGGER IF EXISTS facts_stamp_document_level ON {DOCUMENTS}",
    "DROP FUNCTION IF EXISTS facts_stamp_bump()",
]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor) -> None:
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("facts", "0020_roles_per_user_grants"), ("documents", "0009_document_issuer_proposed")]

    operations = [
        migrations.CreateModel(
            name="FactsStamp",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.CharField(max_length=32)),
            ],
            options={"default_permissions": ()},
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE, "postgresql": POSTGRES}), _run({"sqlite": SQLITE_DROP, "postgresql": POSTGRES_DROP})
        ),
    ]
