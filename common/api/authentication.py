"""API token authentication that reads the token's user and the user's RESTRICTED clearance in one
query (SPEC §9).

DRF's `TokenAuthentication` reads the token with its user, and `user_cleared` then reads the
clearance: two round trips on every API request. Here one query returns both. Nothing is cached
between requests: a deleted token, a deactivated user or a revoked clearance counts from the very
next request.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from common.access import clearance_remember, clearance_sql


class ClearanceTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        model = self.get_model()
        users = get_user_model()
        token_fields = list(model._meta.concrete_fields)
        user_fields = list(users._meta.concrete_fields)
        quote = connection.ops.quote_name
        columns = [f"t.{quote(f.column)}" for f in token_fields] + [f"u.{quote(f.column)}" for f in user_fields]
        granted, params = clearance_sql(f"u.{quote(users._meta.pk.column)}")
        user_key = quote(model._meta.get_field("user").column)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {', '.join(columns)}, {granted} FROM {quote(model._meta.db_table)} t "
                f"JOIN {quote(users._meta.db_table)} u ON u.{quote(users._meta.pk.column)} = t.{user_key} "
                f"WHERE t.{quote(model._meta.pk.column)} = %s",
                [*params, key],
            )
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        values = [_from_db(field, value) for field, value in zip([*token_fields, *user_fields], row[:-1], strict=True)]
        token = model.from_db(connection.alias, [f.attname for f in token_fields], values[: len(token_fields)])
        user = users.from_db(connection.alias, [f.attname for f in user_fields], values[len(token_fields) :])
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token.user = user
        clearance_remember(user, bool(row[-1]))
        return user, token


def _from_db(field: Any, value: Any) -> Any:
    """A raw column value as the ORM loads it: the backend's converters (SQLite's booleans and
    datetimes), then the field's own."""
    column = field.get_col(field.model._meta.db_table)
    for converter in [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]:
        value = converter(value, column, connection)
    return value
