"""Reads of the trace."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import QueryLog


def query_log_list(*, cleared: bool) -> QuerySet[QueryLog]:
    """Traces a curator may read: a cleared analyst's question may name RESTRICTED matters, so
    its trace (and the terms it used) is shown only to cleared curators."""
    logs = QueryLog.objects.all()
    return logs if cleared else logs.exclude(asker_cleared=True)
