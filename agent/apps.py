from django.apps import AppConfig


class AgentConfig(AppConfig):
    name = "agent"
    verbose_name = "问答 Agent"

    def ready(self) -> None:
        from . import checks  # noqa: F401
