"""API token authentication that reads the token, its user and the user's RESTRICTED clearance in
one query.

DRF's `TokenAuthentication` reads the token with its user, and `user_cleared` then reads the
clearance: two round trips on every API request. Here the clearance comes with the token, in the
same query. Nothing is cached between requests: a deleted token, a deactivated user or a revoked
clearance counts from the very next request.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from common.access import clearance_remember, clearance_sql


class ClearanceTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        model = self.get_model()
        quote = connection.ops.quote_name
        # The token table is the query's base table: its own name is its alias.
        owner = f"{quote(model._meta.db_table)}.{quote(model._meta.get_field('user').column)}"
        granted, params = clearance_sql(owner)
        cleared = RawSQL(granted, params, output_field=BooleanField())
        try:
            token = model.objects.select_related("user").annotate(ragspine_cleared=cleared).get(key=key)
        except model.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        clearance_remember(token.user, bool(token.ragspine_cleared))
        return token.user, token
