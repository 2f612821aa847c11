"""A report's issuer added to the glossary from the document's page: the form prefilled from what
the report says of itself (`Document.issuer_proposed`), one click, then the document read again in
the background with the new company as its issuer."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from core.model.facts import CODE_RE, ENTITY_EXTERNAL, ENTITY_HOME, ENTITY_PEER, ENTITY_SUBSIDIARY
from facts.models import Entity
from facts.services.entities import EntityDraft, entity_create
from ingestion.context import IssuerProposal

from .jobs import reread_job_create
from .models import Document
from .services import ContextChoice

KINDS = [
    (
        ENTITY_PEER,
        gettext_lazy(
            "Another company you analyse (a listed peer, a customer, a supplier): asked about "
            "like your own, never refused."
        ),
    ),
    (
        ENTITY_SUBSIDIARY,
        gettext_lazy("Part of your group (a subsidiary, a region, a business unit): set its parent below."),
    ),
    (ENTITY_HOME, gettext_lazy("Your own company: a question that names no company is about it. One only.")),
    (
        ENTITY_EXTERNAL,
        gettext_lazy(
            "A competitor, or out of scope: questions that name it are refused, and its report's "
            "figures are never approved under it."
        ),
    ),
]


class CompanyForm(forms.Form):
    """The new entity, prefilled from the report."""

    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=64,
        help_text=gettext_lazy("Capital letters, digits and _ (SH603339, AAPL): how the API and CSV files name it."),
    )
    name = forms.CharField(label=gettext_lazy("Name"), max_length=255, help_text=gettext_lazy("As answers show it."))
    aliases = forms.CharField(
        label=gettext_lazy("Other names"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("One per line: the full name, a short name, an English name, a stock code."),
    )
    kind = forms.ChoiceField(label=pgettext_lazy("entity kind", "Kind"), choices=KINDS, widget=forms.RadioSelect)
    parent = forms.ChoiceField(label=gettext_lazy("Parent"), required=False)
    year_end_month = forms.TypedChoiceField(
        label=gettext_lazy("Year-end month"),
        choices=[("", "—"), *((str(m), str(m)) for m in range(1, 13))],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=gettext_lazy("The month its fiscal year ends in (12 for a calendar year)."),
    )
    currency = forms.CharField(
        label=gettext_lazy("Reporting currency"),
        max_length=3,
        required=False,
        help_text=gettext_lazy("ISO 4217 (CNY, USD, HKD): what a bare $ or 元 in its tables means."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        parents = [("", "—"), *Entity.objects.order_by("code").values_list("code", "name")]
        self.fields["parent"].choices = parents  # type: ignore[attr-defined]

    def clean_code(self) -> str:
        code = self.cleaned_data["code"].strip().upper()
        if not CODE_RE.match(code):
            raise ValidationError(gettext("Use capital letters, digits and _, starting with a letter or digit."))
        return code

    def clean_currency(self) -> str:
        currency = self.cleaned_data["currency"].strip().upper()
        if currency and not re.fullmatch(r"[A-Z]{3}", currency):
            raise ValidationError(gettext("Three capital letters, as in ISO 4217."))
        return currency

    def draft(self) -> EntityDraft:
        data = self.cleaned_data
        return EntityDraft(
            code=data["code"],
            name=data["name"].strip(),
            kind=data["kind"],
            aliases=tuple(line.strip() for line in data["aliases"].splitlines() if line.strip()),
            parent=data["parent"] or "",
            year_end_month=data["year_end_month"],
            currency=data["currency"],
        )


def company_initial(proposal: IssuerProposal) -> dict[str, Any]:
    """The form as the report fills it."""
    aliases = [proposal.full_name, proposal.short_name, proposal.stock_code]  # a code asked by its digits too
    return {
        "code": proposal.code,
        "name": proposal.short_name or proposal.full_name,
        "aliases": "\n".join(dict.fromkeys(a for a in aliases if a)),
        "kind": ENTITY_PEER,
        "year_end_month": proposal.year_end_month,
        "currency": proposal.currency,
    }


def company_create_view(request: HttpRequest, document: Document, context: dict[str, Any]) -> HttpResponse:
    """The form; on save the entity is created and the document queued to be read again with it."""
    if document.issuer or not document.issuer_proposed:
        messages.info(request, gettext("%(document)s has its company already.") % {"document": document.name})
        return redirect("admin:documents_document_change", document.pk)
    proposal = IssuerProposal.from_dict(document.issuer_proposed)
    form = CompanyForm(request.POST or None, initial=company_initial(proposal))
    if request.method == "POST" and form.is_valid():
        try:
            entity = entity_create(draft=form.draft())
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            by = request.user.get_username()
            reread_job_create(
                document=document, context=ContextChoice(issuer=entity.code, by=by), created_by=request.user
            )
            messages.success(
                request,
                gettext(
                    "%(name)s (%(code)s) is in the glossary; %(document)s is being read again with it as its issuer."
                )
                % {"name": entity.name, "code": entity.code, "document": document.name},
            )
            return redirect("admin:documents_document_change", document.pk)
    title = gettext("Add this report's company to the glossary")
    return TemplateResponse(
        request,
        "admin/documents/document/company.html",
        {**context, "title": title, "form": form, "document": document, "proposal": proposal},
    )
