"""Create the `analyst` and `curator` groups, so a fresh install has its roles before any
`load_demo`. Permissions are made by `post_migrate`, after every migration, so this one makes
those of the curated apps first (`create_permissions` skips what exists)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from facts.roles import CURATED_APPS, ROLES, roles_ensure


def roles_create(apps, schema_editor):
    for label in CURATED_APPS:
        config = apps.get_app_config(label)
        # A historical app config has no models module, which `create_permissions` reads as
        # "no models"; it only tests the attribute.
        config.models_module = True
        try:
            create_permissions(config, apps=apps, verbosity=0, using=schema_editor.connection.alias)
        finally:
            config.models_module = None
    roles_ensure(apps=apps)


def roles_delete(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("facts", "0009_seed_statement_units"),
        ("documents", "0005_document_context"),
        ("faq", "0001_initial"),
        ("agent", "0004_conversation"),
        ("retrieval", "0003_chunk_embedder"),
    ]

    operations = [migrations.RunPython(roles_create, roles_delete)]
