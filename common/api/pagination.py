"""Limit/offset pagination that rejects what the schema rejects, instead of quietly using defaults."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request


class StrictLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000

    def get_limit(self, request: Request) -> int | None:
        self._check(request, self.limit_query_param, minimum=1)
        return super().get_limit(request)

    def get_offset(self, request: Request) -> int:
        self._check(request, self.offset_query_param, minimum=0)
        return super().get_offset(request)

    @staticmethod
    def _check(request: Request, name: str, *, minimum: int) -> None:
        values = request.query_params.getlist(name)
        if not values:
            return
        if len(values) > 1:
            raise ValidationError({name: [f"give {name} once."]})
        text = values[0]
        if not text.isascii() or not text.isdigit() or int(text) < minimum:
            raise ValidationError({name: [f"must be a whole number, at least {minimum}."]})
