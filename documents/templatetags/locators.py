"""`{% place locator language what %}`: a locator in words, the machine locator in its tooltip."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from documents.locators import locator_human

register = template.Library()


@register.simple_tag
def place(locator: str, language: str = "zh", what: str = "") -> str:
    return format_html(
        '<span class="place" title="{}">{}</span>', locator, locator_human(locator, language=language, what=what)
    )
