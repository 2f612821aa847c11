from django.apps import AppConfig


class ProtocolsConfig(AppConfig):
    name = "protocols"
    verbose_name = "协议接入 (OpenAI, MCP)"
