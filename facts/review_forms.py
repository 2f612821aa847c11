"""The review queue's forms: the filters a curator narrows the queue by, and the fields of its
actions (pick facts, set a key, make a label an alias or a new metric, settle a disputed figure).
Each cleans what a curator typed into codes and periods, with the error said in the curator's
language."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from core.language.periods import period_parse
from core.model.period import Period

from .models import FactDispute, FactMetric, Metric
from .reasons import PARENT_STATEMENT, REASON_KINDS, reason_kind_q
from .selectors import glossary_snapshot, key_held
from .services.disputes import OUTCOMES, RESOLUTION_LIMIT

KEY_HELD, KEY_OPEN = "held", "open"
STATEMENTS = [
    ("consolidated", pgettext_lazy("statement", "consolidated")),
    ("parent", pgettext_lazy("statement", "parent")),
]
_UNKNOWN = {
    "metric": gettext_lazy("No metric in the glossary is called '%(text)s' (code, name or alias)."),
    "entity": gettext_lazy("No company in the glossary is called '%(text)s' (code, name or alias)."),
}


class QueueFilterForm(forms.Form):
    # The documents app imports facts, not the other way round: its model is reached through the FK.
    document = forms.ModelChoiceField(
        FactMetric._meta.get_field("document").related_model.objects.none(),  # type: ignore[union-attr]
        required=False,
        label=gettext_lazy("Document"),
    )
    statement = forms.ChoiceField(
        choices=[("", gettext_lazy("All")), *STATEMENTS],
        required=False,
        label=gettext_lazy("Statement"),
    )
    reason = forms.ChoiceField(
        choices=[("", gettext_lazy("All")), *REASON_KINDS.items()], required=False, label=gettext_lazy("Reason")
    )
    q = forms.CharField(
        required=False, label=gettext_lazy("Metric"), help_text=gettext_lazy("name, code, alias or label")
    )
    period = forms.CharField(
        required=False,
        max_length=64,
        label=gettext_lazy("Period"),
        widget=forms.TextInput(attrs={"placeholder": "FY2019"}),
    )
    key = forms.ChoiceField(
        choices=[
            ("", gettext_lazy("All")),
            (KEY_HELD, gettext_lazy("beside an approved figure")),
            (KEY_OPEN, gettext_lazy("no approved figure yet")),
        ],
        required=False,
        label=pgettext_lazy("review queue", "Key"),
    )

    def __init__(self, *args: Any, visible: QuerySet[FactMetric], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["document"]
        assert isinstance(field, forms.ModelChoiceField)
        # Every document with a fact this curator may see: one whose queue was just cleared stays
        # a valid choice (its queue is empty, not every document's).
        documents = FactMetric._meta.get_field("document").related_model
        field.queryset = documents.objects.filter(pk__in=visible.values("document_id")).order_by("name")  # type: ignore[union-attr]

    def clean_period(self) -> Period | None:
        return _period_read(self.cleaned_data["period"])

    def filtered(self, candidates: QuerySet[FactMetric], visible: QuerySet[FactMetric]) -> QuerySet[FactMetric]:
        """The candidates the filters keep; `visible`, the facts the curator may see, tell which
        keys already hold an approved figure."""
        if not self.is_valid():
            return candidates.none() if self.is_bound else candidates
        data = self.cleaned_data
        if data["document"] is not None:
            candidates = candidates.filter(document=data["document"])
        if data["statement"] == "parent":
            candidates = candidates.filter(review_note__contains=PARENT_STATEMENT)
        elif data["statement"] == "consolidated":
            candidates = candidates.exclude(review_note__contains=PARENT_STATEMENT)
        if data["reason"]:
            candidates = candidates.filter(reason_kind_q(data["reason"]))
        if text := data["q"].strip():
            named = Metric.objects.filter(
                Q(name__icontains=text) | Q(code__icontains=text) | Q(aliases__text__icontains=text)
            ).values("code")
            candidates = candidates.filter(Q(metric_id__in=named) | Q(suggested_alias__icontains=text))
        if (period := data["period"]) is not None:
            candidates = candidates.filter(period_type=period.period_type, period=period.period)
        if data["key"]:
            held = key_held(visible)
            candidates = candidates.filter(held) if data["key"] == KEY_HELD else candidates.exclude(held)
        return candidates


class FactsForm(forms.Form):
    """Candidates chosen on the page: a group's ticked rows, or every row the page shows."""

    facts = forms.TypedMultipleChoiceField(coerce=int, choices=[], label=gettext_lazy("Candidates"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["facts"]
        assert isinstance(field, forms.TypedMultipleChoiceField)
        field.choices = [(v, v) for v in self.data.getlist("facts")] if hasattr(self.data, "getlist") else []


class KeySetForm(FactsForm):
    """The metric, company and period to give the selected candidates, each as a curator writes it."""

    metric = forms.CharField(required=False, max_length=255, label=gettext_lazy("Metric"))
    entity = forms.CharField(required=False, max_length=255, label=gettext_lazy("Company"))
    period = forms.CharField(required=False, max_length=64, label=gettext_lazy("Period"))

    def clean_metric(self) -> Any:
        return _glossary_row("metric", self.cleaned_data["metric"])

    def clean_entity(self) -> Any:
        return _glossary_row("entity", self.cleaned_data["entity"])

    def clean_period(self) -> Period | None:
        return _period_read(self.cleaned_data["period"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.errors and not any(cleaned.get(k) for k in ("metric", "entity", "period")):
            raise ValidationError(gettext("Give a metric, a company or a period."))
        return cleaned


class LabelMetricForm(forms.Form):
    """A new metric made of a row label: its code, its name (the label unless given), its unit
    and how it adds up; the label becomes its first alias."""

    text = forms.CharField(max_length=255, label=gettext_lazy("Row label"))
    code = forms.CharField(max_length=64, label=gettext_lazy("Code"))
    name = forms.CharField(max_length=255, required=False, label=gettext_lazy("Name"))
    unit = forms.CharField(max_length=32, label=gettext_lazy("Unit"))
    aggregation = forms.ChoiceField(
        choices=[("", ""), *(Metric._meta.get_field("aggregation").choices or [])],
        required=False,
        label=gettext_lazy("Adds up as"),
    )

    def clean_code(self) -> str:
        return self.cleaned_data["code"].strip()

    def clean_name(self) -> str:
        return self.cleaned_data["name"].strip()

    def clean_unit(self) -> str:
        code = self.cleaned_data["unit"].strip()
        if code not in glossary_snapshot().units:
            raise ValidationError(gettext("No unit %(code)s in the glossary.") % {"code": code})
        return code


class LabelAliasForm(forms.Form):
    """The metric a row label names: one of the closest offered (`closest`, a code), else the
    metric typed (`metric`: a code, name or alias, against the page's one list of metrics)."""

    text = forms.CharField(max_length=255, label=gettext_lazy("Row label"))
    metric = forms.CharField(max_length=255, required=False, label=gettext_lazy("Metric"))
    closest = forms.CharField(max_length=64, required=False, label=gettext_lazy("Closest metric"))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        given = (cleaned.get("closest") or cleaned.get("metric") or "").strip()
        if not given:
            raise ValidationError({"metric": gettext("Choose or type a metric.")})
        code = glossary_snapshot().resolve("metric", given)
        if code is None:
            raise ValidationError({"metric": str(_UNKNOWN["metric"]) % {"text": given}})
        cleaned["metric"] = code
        return cleaned


class DisputeSettleForm(forms.Form):
    """What a curator does with a disputed figure: correct it (to the figure as its source
    prints it), confirm it or reject the fact, with a note the analyst reads."""

    fact = forms.IntegerField(widget=forms.HiddenInput)
    outcome = forms.ChoiceField(choices=[(outcome, outcome) for outcome in OUTCOMES])
    value = forms.DecimalField(required=False, label=gettext_lazy("Right figure, as the source prints it"))
    resolution = forms.CharField(
        required=False, max_length=RESOLUTION_LIMIT, label=gettext_lazy("Note for the analyst")
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        correcting = cleaned.get("outcome") == FactDispute.Status.CORRECTED
        if correcting and cleaned.get("value") is None and "value" not in self.errors:
            self.add_error("value", gettext_lazy("Give the right figure to correct it."))
        return cleaned


def _period_read(text: str) -> Period | None:
    text = text.strip()
    if not text:
        return None
    period = period_parse(text, date.today())
    if period is None:
        raise ValidationError(gettext("'%(text)s' is not one period; write FY2019, 2019H1 or 2019Q3.") % {"text": text})
    return period


def _glossary_row(kind: str, text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    code = glossary_snapshot().resolve(kind, text)
    if code is None:
        raise ValidationError(str(_UNKNOWN[kind]) % {"text": text})
    model = FactMetric._meta.get_field(kind).related_model
    return model.objects.get(code=code)  # type: ignore[union-attr]
