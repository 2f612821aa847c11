"""Django's admin app, on this site's `RagspineAdminSite` (the pages a model admin adds are listed)."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class RagspineAdminConfig(AdminConfig):
    default_site = "ragspine_site.admin_site.RagspineAdminSite"
