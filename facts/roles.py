"""The two roles: analysts ask and search; curators keep the glossary, FAQ, documents and facts."""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission

ANALYST = "analyst"
CURATOR = "curator"
CURATED_APPS = ("facts", "documents", "faq", "agent", "retrieval")


def roles_ensure() -> tuple[Group, Group]:
    analyst, _ = Group.objects.get_or_create(name=ANALYST)
    curator, _ = Group.objects.get_or_create(name=CURATOR)
    curated = Permission.objects.filter(content_type__app_label__in=CURATED_APPS).exclude(
        codename="can_view_restricted"
    )
    curator.permissions.set(curated)
    return analyst, curator
