"""`manage.py check` warns when the LLM configuration is incomplete."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Warning, register

from agent.providers import config_problems


@register()
def llm_configuration(app_configs: Any, **kwargs: Any) -> list[Warning]:
    return [Warning(problem, id="ragspine.W001") for problem in config_problems(settings.RAGSPINE)]
