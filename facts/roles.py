"""The two roles: analysts ask and search; curators keep the glossary, FAQ, documents and facts.

This module is the one definition of them: the `0010_roles` migration, `create_user` and
`load_demo` all go through it.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.apps import apps as global_apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

ANALYST = "analyst"
CURATOR = "curator"
ROLES = (ANALYST, CURATOR)
CURATED_APPS = ("facts", "documents", "faq", "agent", "retrieval")
# RESTRICTED clearance is granted per user, never through a role.
RESTRICTED_APP, RESTRICTED_CODENAME = "facts", "can_view_restricted"
# So is a team lead's reading of the questions asked (`RAGSPINE_LOG_QUESTIONS`).
PER_USER = ((RESTRICTED_APP, RESTRICTED_CODENAME), ("agent", "view_question_text"))


class RoleError(Exception):
    """A user or role request that cannot be met; its message is for the person who asked."""


def roles_ensure(*, apps: Any = global_apps) -> tuple[Group, Group]:
    """Create or refresh the `analyst` and `curator` groups (`apps`: a migration's historical apps).

    Analysts have no model permission (asking needs a login only); curators have every permission
    of the curated apps except those granted per user (`PER_USER`: the clearance, a lead's)."""
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    analyst, _ = group_model.objects.get_or_create(name=ANALYST)
    curator, _ = group_model.objects.get_or_create(name=CURATOR)
    analyst.permissions.clear()
    curated = permission_model.objects.filter(content_type__app_label__in=CURATED_APPS)
    for app_label, codename in PER_USER:
        curated = curated.exclude(content_type__app_label=app_label, codename=codename)
    curator.permissions.set(curated)
    return analyst, curator


def restricted_permission() -> Permission:
    return Permission.objects.get(codename=RESTRICTED_CODENAME, content_type__app_label=RESTRICTED_APP)


def user_role_set(*, user: Any, role: str, cleared: bool) -> None:
    """Give `user` exactly `role` (its group, and staff for a curator) and the clearance or not."""
    if role not in ROLES:
        raise RoleError(f"unknown role '{role}' (one of: {', '.join(ROLES)})")
    analyst, curator = roles_ensure()
    user.is_staff = role == CURATOR
    user.save(update_fields=["is_staff"])
    groups = Group.objects.filter(name__in=ROLES)
    user.groups.remove(*groups)
    user.groups.add(curator if role == CURATOR else analyst)
    if cleared:
        user.user_permissions.add(restricted_permission())
    else:
        user.user_permissions.remove(restricted_permission())


def password_generate() -> str:
    return secrets.token_urlsafe(12)


@transaction.atomic
def user_create(*, username: str, role: str, password: str, cleared: bool = False) -> Any:
    """A new user with `role`; `RoleError` for a taken name, an unknown role or a weak password."""
    if role not in ROLES:
        raise RoleError(f"unknown role '{role}' (one of: {', '.join(ROLES)})")
    model = get_user_model()
    if model.objects.filter(username=username).exists():
        raise RoleError(f"user '{username}' already exists")
    user = model(username=username)
    try:
        user.full_clean(exclude=["password"])
    except ValidationError as error:
        raise RoleError(f"username '{username}': {' '.join(error.messages)}") from None
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise RoleError(f"password: {' '.join(error.messages)}") from None
    user.set_password(password)
    user.save()
    user_role_set(user=user, role=role, cleared=cleared)
    return user
