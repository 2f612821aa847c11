from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy
from drf_spectacular.views import SpectacularAPIView

from agent.api import AskApi, AskStreamApi, HealthApi, ReadyApi
from agent.page import views
from documents.api import DocumentUploadApi, JobDetailApi
from facts.api import AliasDetailApi, AliasListApi, FactDisputeApi, FactListApi, MetricListApi
from faq.api import FaqDetailApi, FaqListApi
from protocols.chat import ChatCompletionApi, ModelDetailApi, ModelListApi
from protocols.mcp_http import McpApi
from retrieval.api import SearchApi

admin.site.site_header = gettext_lazy("RAGSpine administration")
admin.site.site_title = gettext_lazy("RAGSpine administration")
admin.site.index_title = gettext_lazy("What curators keep")

api = [
    path("ask", AskApi.as_view(), name="api-ask"),
    path("ask/stream", AskStreamApi.as_view(), name="api-ask-stream"),
    path("facts", FactListApi.as_view(), name="api-facts"),
    path("facts/<int:pk>/disputes", FactDisputeApi.as_view(), name="api-fact-disputes"),
    path("search", SearchApi.as_view(), name="api-search"),
    path("faq", FaqListApi.as_view(), name="api-faq"),
    path("faq/<int:pk>", FaqDetailApi.as_view(), name="api-faq-detail"),
    path("glossary/aliases", AliasListApi.as_view(), name="api-aliases"),
    path("glossary/aliases/<int:pk>", AliasDetailApi.as_view(), name="api-alias-detail"),
    path("glossary/metrics", MetricListApi.as_view(), name="api-metrics"),
    path("documents", DocumentUploadApi.as_view(), name="api-documents"),
    path("jobs/<uuid:job_id>", JobDetailApi.as_view(), name="api-job"),
    path("health", HealthApi.as_view(), name="api-health"),
    path("ready", ReadyApi.as_view(), name="api-ready"),
    path("schema", SpectacularAPIView.as_view(), name="api-schema"),
    # OpenAI-compatible: the SDK's paths under its base URL `…/v1`.
    path("chat/completions", ChatCompletionApi.as_view(), name="api-chat-completions"),
    path("models", ModelListApi.as_view(), name="api-models"),
    path("models/<str:model>", ModelDetailApi.as_view(), name="api-model"),
    # A base URL written with a trailing slash (`…/v1/`) is common in chat UIs' settings.
    path("chat/completions/", ChatCompletionApi.as_view(schema=None), name="api-chat-completions-slash"),
    path("models/", ModelListApi.as_view(schema=None), name="api-models-slash"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("ask", views.ask_view, name="ask"),
    path("new", views.conversation_new, name="conversation-new"),
    path("conversations/<str:conversation>/turns/<int:index>", views.turn_open, name="turn-open"),
    path("turns/<int:index>/feedback", views.feedback, name="feedback"),
    path("turns/<int:index>/facts.csv", views.facts_csv, name="facts-csv"),
    path("disputes", views.dispute, name="dispute"),
    path("reports", views.reports, name="reports"),
    path("documents/<int:document_id>/", views.document_view, name="document"),
    path("language/<str:code>", views.language_set, name="language"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("v1/", include(api)),
    path("mcp", McpApi.as_view(), name="mcp"),
]

handler500 = "common.middleware.server_error"
