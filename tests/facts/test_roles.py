from __future__ import annotations

import importlib
from io import StringIO
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from facts.roles import CURATED_APPS

pytestmark = pytest.mark.django_db
ROLES_MIGRATION = ("facts", "0010_roles")


def curated_permissions() -> set[str]:
    every = Permission.objects.filter(content_type__app_label__in=CURATED_APPS)
    granted_per_user = {"facts.can_view_restricted", "agent.view_question_text"}  # never through a role
    return {f"{p.content_type.app_label}.{p.codename}" for p in every} - granted_per_user


def group_permissions(name: str) -> set[str]:
    return {f"{p.content_type.app_label}.{p.codename}" for p in Group.objects.get(name=name).permissions.all()}


def test_a_freshly_migrated_database_has_both_roles() -> None:
    # The test database is built by running every migration, with no demo loaded.
    assert get_user_model().objects.count() == 0
    assert group_permissions("analyst") == set()
    curator = group_permissions("curator")
    assert curator == curated_permissions()
    assert {"facts.change_metric", "documents.add_document", "faq.change_faqitem"} <= curator


def test_the_migration_makes_the_groups_and_permissions_it_needs() -> None:
    Group.objects.filter(name__in=("analyst", "curator")).delete()
    Permission.objects.filter(content_type__app_label__in=CURATED_APPS).delete()
    migration = importlib.import_module("facts.migrations.0010_roles")
    state_apps = MigrationExecutor(connection).loader.project_state(ROLES_MIGRATION).apps
    # The function only reads the editor's connection; SQLite opens no schema editor in a test's transaction.
    migration.roles_create(state_apps, SimpleNamespace(connection=connection))
    assert group_permissions("analyst") == set()
    assert "facts.change_metric" in group_permissions("curator")
    assert group_permissions("curator") == curated_permissions()
    assert Permission.objects.filter(codename="can_view_restricted", content_type__app_label="facts").exists()


def create_user(*args: str) -> str:
    out = StringIO()
    call_command("create_user", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def permissions_of(username: str) -> set[str]:
    return get_user_model().objects.get(username=username).get_all_permissions()


def test_an_analyst_can_log_in_and_has_no_permission() -> None:
    out = create_user("ana", "--role", "analyst", "--password", "a-long-passphrase-42")
    assert "user ana created: analyst" in out and "password:" not in out
    user = get_user_model().objects.get(username="ana")
    assert not user.is_staff and not user.is_superuser
    assert [g.name for g in user.groups.all()] == ["analyst"]
    assert permissions_of("ana") == set()
    assert Client().login(username="ana", password="a-long-passphrase-42")


def test_a_cleared_curator_is_staff_with_the_curator_permissions_and_the_clearance() -> None:
    out = create_user("cur", "--role", "curator", "--cleared")
    password = out.split("password: ")[1].split()[0]
    user = get_user_model().objects.get(username="cur")
    assert user.is_staff and not user.is_superuser
    assert permissions_of("cur") == curated_permissions() | {"facts.can_view_restricted"}
    client = Client()
    assert client.login(username="cur", password=password)
    assert client.get("/admin/").status_code == 200


def test_an_uncleared_curator_lacks_only_the_clearance() -> None:
    create_user("cur2", "--role", "curator", "--password", "a-long-passphrase-42")
    assert permissions_of("cur2") == curated_permissions()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("ana", "--role", "admin"), "unknown role 'admin'"),
        (("ana", "--role", "analyst", "--password", "123"), "^password: "),
        (("bad name!", "--role", "analyst"), "^username 'bad name!': "),
    ],
)
def test_bad_requests_are_command_errors_and_create_nobody(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        create_user(*args)
    assert get_user_model().objects.count() == 0


def test_an_existing_user_is_a_command_error_and_keeps_its_role() -> None:
    create_user("ana", "--role", "analyst")
    with pytest.raises(CommandError, match="user 'ana' already exists"):
        create_user("ana", "--role", "curator")
    assert not get_user_model().objects.get(username="ana").is_staff
