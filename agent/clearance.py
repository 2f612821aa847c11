"""RESTRICTED rows in Django admin: curators without clearance never see them (SPEC §9).

The filter is applied to the admin's queryset, so lists, search, change pages, deletes and
actions all lose the rows together; nothing is hidden only in a template.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest

from .bootstrap import user_cleared

RESTRICTED = "RESTRICTED"


class ClearanceFilteredAdmin:
    """Mix into a `ModelAdmin` before it; name the lookups that mark a row as RESTRICTED."""

    restricted_lookups: tuple[str, ...] = ("sensitivity",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)  # type: ignore[misc]
        return queryset if user_cleared(request.user) else restricted_hidden(queryset, self.restricted_lookups)


def restricted_hidden(queryset: QuerySet[Any], lookups: tuple[str, ...]) -> QuerySet[Any]:
    for lookup in lookups:
        value: Any = True if lookup == "asker_cleared" else RESTRICTED
        queryset = queryset.exclude(**{lookup: value})
    return queryset
