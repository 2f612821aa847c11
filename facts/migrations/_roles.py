"""The roles refreshed by a migration, once every curated app's models have their permissions
(a module the migration loader skips: its name starts with `_`)."""

from django.contrib.auth.management import create_permissions

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
