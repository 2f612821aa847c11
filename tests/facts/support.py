"""Helpers shared by the facts app's admin and API tests: the metric change page and its form."""

from __future__ import annotations

from typing import Any

from facts.models import Metric


def change_url(code: str) -> str:
    return f"/admin/facts/metric/{Metric.objects.get(code=code).pk}/change/"


def post_data(page: Any, **changes: str) -> dict[str, Any]:
    """What the change page's form would post, untouched but for `changes`."""
    form = page.context["adminform"].form
    data: dict[str, Any] = {name: form[name].value() or "" for name in form.fields}
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update({f"{formset.prefix}-{k}": v for k, v in formset.management_form.initial.items()})
        for item in formset.forms:
            data.update({item.add_prefix(name): item[name].value() or "" for name in item.fields})
    return {**data, **changes}
