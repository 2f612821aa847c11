"""Serializer fields and base serializers that refuse what they are not given, instead of coercing it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.language.normalize import text_normalize


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers, lists and objects instead of turning them into text."""

    default_error_messages = {"not_text": "must be text."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text")
        if "\x00" in data:
            raise serializers.ValidationError("must not contain NUL characters.")
        return str(super().to_internal_value(data))


class QuestionTextField(StrictCharField):
    """Text that must say something: blank after normalisation (zero-width characters only, say) is refused."""

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if not text_normalize(value):
            raise serializers.ValidationError("must not be empty.")
        return value


class QuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Query parameters, where DRF would read `mode=` (blank) as "not given": here it is an error
    for every parameter that is not free text, as the OpenAPI schema says."""

    def to_internal_value(self, data: Any) -> Any:
        blank = [
            name
            for name, field in self.fields.items()
            if not isinstance(field, serializers.CharField) and hasattr(data, "get") and data.get(name) == ""
        ]
        if blank:
            raise serializers.ValidationError({name: ["must not be blank."] for name in blank})
        return super().to_internal_value(data)


class FactSourceSerializer(serializers.Serializer):  # type: ignore[type-arg]
    # A fact's lineage; it reads `FactRecord` and `FactMetric` alike.

    doc = serializers.CharField(source="source_doc")
    locator = serializers.CharField()
    document_id = serializers.IntegerField(allow_null=True)
