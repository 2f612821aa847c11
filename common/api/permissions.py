"""Who may write through the API."""

from __future__ import annotations

from typing import Any

from rest_framework import permissions
from rest_framework.request import Request


class CuratorWrites(permissions.BasePermission):
    """Reads for every authenticated user; writes for staff curators with the model permission.

    The view names its model (`model = FAQItem`), whose add/change/delete permission a write needs.
    """

    def has_permission(self, request: Request, view: Any) -> bool:
        if not request.user or not request.user.is_authenticated:
            return False
        if request.method in permissions.SAFE_METHODS:
            return True
        codename = {"POST": "add", "PATCH": "change", "PUT": "change", "DELETE": "delete"}.get(request.method, "change")
        model = view.model
        return bool(
            request.user.is_staff
            and request.user.has_perm(f"{model._meta.app_label}.{codename}_{model._meta.model_name}")
        )
