"""API token authentication that reads the token's user and the user's RESTRICTED clearance in one
query (SPEC §9).

DRF's `TokenAuthentication` reads the token with its user, and `user_cleared` then reads the
clearance: two round trips on every API request. Here one query returns both. Nothing is cached
between requests: a deleted token, a deactivated user or a revoked clearance counts from the very
next request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from common.access import clearance_remember, clearance_sql

_plans: dict[tuple[str, type], tuple[str, list[str], list[Any], list[Any]]] = {}


class ClearanceTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        model = self.get_model()
        sql, params, token_fields, user_fields = _plan(model)
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        values = [convert(value) for convert, value in zip([*token_fields, *user_fields], row[:-1], strict=True)]
        split = len(token_fields)
        token = model.from_db(connection.alias, [c.attname for c in token_fields], values[:split])
        user = get_user_model().from_db(connection.alias, [c.attname for c in user_fields], values[split:])
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token.user = user
        clearance_remember(user, bool(row[-1]))
        return user, token


class _Column:
    """A model field read by raw SQL, converted as the ORM converts it (the backend's converters,
    such as SQLite's booleans and datetimes, then the field's own)."""

    def __init__(self, field: Any):
        self.attname = field.attname
        column = field.get_col(field.model._meta.db_table)
        self._column = column
        self._converters: list[Callable[..., Any]] = [
            *connection.ops.get_db_converters(column),
            *column.get_db_converters(connection),
        ]

    def __call__(self, value: Any) -> Any:
        for converter in self._converters:
            value = converter(value, self._column, connection)
        return value


def _plan(model: type) -> tuple[str, list[str], list[_Column], list[_Column]]:
    """The query (built once per process and database vendor): the token's and its user's
    columns, and whether the user is cleared."""
    key = (connection.vendor, model)
    if key not in _plans:
        users = get_user_model()
        quote = connection.ops.quote_name
        token_fields = list(model._meta.concrete_fields)  # type: ignore[attr-defined]
        user_fields = list(users._meta.concrete_fields)
        columns = [f"t.{quote(f.column)}" for f in token_fields] + [f"u.{quote(f.column)}" for f in user_fields]
        user_pk = f"u.{quote(users._meta.pk.column)}"
        granted, params = clearance_sql(user_pk)
        user_key = quote(model._meta.get_field("user").column)  # type: ignore[attr-defined]
        sql = (
            f"SELECT {', '.join(columns)}, {granted} FROM {quote(model._meta.db_table)} t "  # type: ignore[attr-defined]
            f"JOIN {quote(users._meta.db_table)} u ON {user_pk} = t.{user_key} "
            f"WHERE t.{quote(model._meta.pk.column)} = %s"  # type: ignore[attr-defined]
        )
        _plans[key] = (sql, params, [_Column(f) for f in token_fields], [_Column(f) for f in user_fields])
    return _plans[key]
