"""Curator admin for the FX table: the curated rates a currency asked is converted with (SPEC
§5a), each with its pair, type, period, date and source. A period is typed as the fact table's
are written (`FY2025`, `2025H1`, `2025Q4`); saving goes through `fx_rate_save`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from .models import FxRate
from .periods import period_absolute
from .services import fx_rate_save


class FxRateForm(forms.ModelForm):  # type: ignore[type-arg]
    """One period field for the period's type and label; currencies read in capitals."""

    period = forms.CharField(
        label=gettext_lazy("period"),
        max_length=64,
        help_text=gettext_lazy("FY2025, 2025H1 or 2025Q4: the period the rate applies to."),
    )

    class Meta:
        model = FxRate
        fields = ["base_currency", "quote_currency", "rate", "rate_type", "period", "as_of", "source"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["period"] = self.instance.period_label

    def clean_base_currency(self) -> str:
        return str(self.cleaned_data["base_currency"]).strip().upper()

    def clean_quote_currency(self) -> str:
        return str(self.cleaned_data["quote_currency"]).strip().upper()

    def clean_period(self) -> str:
        text = self.cleaned_data["period"]
        period = period_absolute(text)
        if period is None:
            raise ValidationError(f"'{text}' is not one period; write FY2025, 2025H1 or 2025Q4.")
        # The type is not a field of its own here, so the instance takes it before the model's checks.
        self.instance.period_type = period.period_type
        return period.period


@admin.register(FxRate)
class FxRateAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = FxRateForm
    list_display = ["base_currency", "quote_currency", "rate_type", "period_shown", "rate", "as_of", "source"]
    list_filter = ["rate_type", "period_type", "base_currency", "quote_currency"]
    search_fields = ["base_currency", "quote_currency", "period", "source"]
    readonly_fields = ["updated_at"]

    @admin.display(description=gettext_lazy("period"), ordering="period")
    def period_shown(self, obj: FxRate) -> str:
        return obj.period_label

    def save_model(self, request: HttpRequest, obj: FxRate, form: forms.ModelForm, change: bool) -> None:  # type: ignore[type-arg]
        fx_rate_save(fx_rate=obj)
