from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class AgentConfig(AppConfig):
    name = "agent"
    verbose_name = gettext_lazy("Questions & answers")

    def ready(self) -> None:
        from . import checks  # noqa: F401
