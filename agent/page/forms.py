"""The analyst UI's forms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import ProhibitNullCharactersValidator

from core.language.normalize import text_normalize

MAX_QUESTION = 2000
SCOPE_SLOTS = ("entity", "metric", "period", "channel")


class TypedTextField(forms.CharField):
    """Text as typed, stripped. Unlike `CharField` it lets NUL characters through, as the ask page
    always has: the question goes to the gate and the glossary as it is, and a scope value the
    glossary does not know is refused there."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class AskForm(forms.Form):
    """A question, and the slots a narrowing button fixes (`scope_entity`, …)."""

    question = TypedTextField(error_messages={"required": "请输入问题。"})
    scope_entity = TypedTextField(required=False)
    scope_metric = TypedTextField(required=False)
    scope_period = TypedTextField(required=False)
    scope_channel = TypedTextField(required=False)

    def clean_question(self) -> str:
        question: str = self.cleaned_data["question"]
        # Blank once normalised (zero-width characters only, say) is no question.
        if not text_normalize(question):
            raise forms.ValidationError(self.fields["question"].error_messages["required"])
        if len(question) > MAX_QUESTION:
            raise forms.ValidationError("问题太长了（最多 2,000 字）。")
        return question

    @property
    def scope(self) -> dict[str, str]:
        """The narrowing slots that were given."""
        return {slot: value for slot in SCOPE_SLOTS if (value := self.cleaned_data.get(f"scope_{slot}"))}

    @property
    def question_as_typed(self) -> str:
        """The question to put back in the box when it is refused."""
        return str(self.data.get("question", "")).strip()
