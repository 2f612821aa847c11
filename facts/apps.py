from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = gettext_lazy("Facts & glossary")

    def ready(self) -> None:
        from . import signals  # noqa: F401
