from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class DocumentsConfig(AppConfig):
    name = "documents"
    verbose_name = gettext_lazy("Documents")
