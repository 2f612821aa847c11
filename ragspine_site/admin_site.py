"""The admin site: Django's, with the pages a model admin adds beside its model (the facts' review
queue) listed in its app on the index, the app's page and the sidebar.

A model admin lists such a page by answering `index_entries(request)` with entries shaped like
the app list's own (`name`, `object_name`, `admin_url`, `view_only`); each goes first in its app.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class RagspineAdminSite(admin.AdminSite):
    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict[str, Any]]:
        app_list = super().get_app_list(request, app_label)
        apps = {app["app_label"]: app for app in app_list}
        for model, model_admin in self._registry.items():
            app = apps.get(model._meta.app_label)
            entries = getattr(model_admin, "index_entries", None)
            if app is not None and entries is not None:
                app["models"][:0] = entries(request)
        return app_list
