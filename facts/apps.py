from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = "事实与术语 Facts & glossary"

    def ready(self) -> None:
        from . import signals  # noqa: F401
