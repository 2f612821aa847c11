"""RESTRICTED content reaches only cleared users.

`user_cleared` reads a user's clearance. `visible_to` is the one place the sensitivity rule is
applied to a queryset: every selector, admin and API path that loads sensitive rows goes through
it, so the rows are filtered in the query, never afterwards. `visible_to_sql` is the same rule
for the raw-SQL search paths. `sensitivity_strictest` (and `sensitivity_strictest_sql`) derive a
row's level from the levels of what it came from, such as a fact and its document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import Case, CharField, Model, Q, QuerySet, Value, When
from django.http import HttpRequest

from core.model.facts import RESTRICTED, SENSITIVITIES

SENSITIVITY = ("sensitivity",)


def user_cleared(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """RESTRICTED clearance (`facts.can_view_restricted`, directly or through a group).

    One indexed query instead of loading every permission the user has; remembered on the user
    object for the rest of the request.
    """
    if user is None or not user.is_authenticated or not getattr(user, "is_active", True):
        return False
    known = getattr(user, "_ragspine_cleared", None)
    if known is None:
        if getattr(user, "is_superuser", False):
            known = True
        else:
            known = _clearance_granted(user.pk)
        user._ragspine_cleared = known  # type: ignore[union-attr]
    return bool(known)


def _clearance_granted(user_id: Any) -> bool:
    """Whether the permission is granted to the user directly or through a group: one raw query
    (on every request, the ORM's compilation cost more than the query)."""
    granted, params = clearance_sql("%s")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {granted}", [*params, user_id, user_id])
        return bool(cursor.fetchone()[0])


def clearance_sql(user_id: str) -> tuple[str, list[str]]:
    """The clearance rule as an SQL boolean over `user_id` (a column, or `%s`), and the parameters
    that come before it; a `%s` for `user_id` is bound twice, after them. Superusers are the
    caller's to add (`user_cleared` does)."""
    users = get_user_model()
    permission, content_type = Permission._meta.db_table, ContentType._meta.db_table
    direct = users.user_permissions.through._meta.db_table  # type: ignore[attr-defined]
    membership = users.groups.through._meta.db_table  # type: ignore[attr-defined]
    grants = Group.permissions.through._meta.db_table
    return (
        f"EXISTS (SELECT 1 FROM {permission} p JOIN {content_type} ct ON ct.id = p.content_type_id "
        "WHERE p.codename = %s AND ct.app_label = %s AND ("
        f"EXISTS (SELECT 1 FROM {direct} d WHERE d.permission_id = p.id AND d.user_id = {user_id}) OR "
        f"EXISTS (SELECT 1 FROM {membership} m JOIN {grants} g ON g.group_id = m.group_id "
        f"WHERE g.permission_id = p.id AND m.user_id = {user_id})))",
        ["can_view_restricted", "facts"],
    )


def clearance_remember(user: AbstractBaseUser, granted: bool) -> None:
    """Record the clearance read for this request's `user` object (with the user, in one query, by
    the API's token authentication), so `user_cleared` does not read it again. The object lives
    for one request: nothing is kept past it, so a revoked clearance counts from the next one."""
    user._ragspine_cleared = bool(getattr(user, "is_superuser", False) or granted)  # type: ignore[attr-defined]


def visible_to[M: Model](queryset: QuerySet[M], *, cleared: bool, lookups: Sequence[str] = SENSITIVITY) -> QuerySet[M]:
    """The rows a caller may load: all of them when cleared; otherwise none that any of `lookups`
    (a sensitivity field, or one across a relation such as `document__sensitivity`) marks RESTRICTED."""
    if cleared:
        return queryset
    for lookup in lookups:
        queryset = queryset.exclude(**{lookup: RESTRICTED})
    return queryset


def visible_to_sql(*columns: str, cleared: bool) -> tuple[str, list[str]]:
    """`visible_to` for raw SQL: a condition to append to a `WHERE` clause, and its parameters."""
    if cleared:
        return "", []
    return "".join(f" AND {column} <> %s" for column in columns), [RESTRICTED] * len(columns)


def sensitivity_strictest(*lookups: str) -> Case:
    """The strictest of the levels at `lookups`, as a query expression: a row is as sensitive as
    the most sensitive thing it came from (`"sensitivity", "document__sensitivity"`: a fact, and
    its document if it has one). A lookup across a relation that holds no row adds nothing; a
    level outside `SENSITIVITIES` counts as RESTRICTED (fail closed, as `sensitivity_max` does).

    Derived in the query, never copied onto the row, so a document whose level is raised takes
    its facts along at once.
    """
    whens = []
    for rank, level in enumerate(SENSITIVITIES[:-1]):
        at_most = SENSITIVITIES[: rank + 1]
        condition = Q()
        for lookup in lookups:
            condition &= Q(**{f"{lookup}__isnull": True}) | Q(**{f"{lookup}__in": at_most})
        whens.append(When(condition, then=Value(level)))
    return Case(*whens, default=Value(SENSITIVITIES[-1]), output_field=CharField())


def sensitivity_strictest_sql(*columns: str) -> tuple[str, list[str]]:
    """`sensitivity_strictest` for raw SQL: an expression over `columns` (a column of an outer
    join may be NULL), and its parameters."""
    whens, params = [], []
    for rank, level in enumerate(SENSITIVITIES[:-1]):
        at_most = list(SENSITIVITIES[: rank + 1])
        marks = ", ".join(["%s"] * len(at_most))
        whens.append("WHEN " + " AND ".join(f"({c} IS NULL OR {c} IN ({marks}))" for c in columns) + " THEN %s")
        params += at_most * len(columns) + [level]
    return f"CASE {' '.join(whens)} ELSE %s END", [*params, SENSITIVITIES[-1]]


class ClearanceFilteredAdmin:
    """Mix into a `ModelAdmin` before it; name the lookups that mark a row as RESTRICTED.

    The filter is applied to the admin's queryset, so lists, search, change pages, deletes and
    actions all lose the rows together; nothing is hidden only in a template.
    """

    restricted_lookups: Sequence[str] = SENSITIVITY

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)  # type: ignore[misc]
        return visible_to(queryset, cleared=user_cleared(request.user), lookups=self.restricted_lookups)
