"""Settings shared by every environment. The environment is read once, here."""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

env = environ.Env(
    DJANGO_DEBUG=(bool, False),
    DJANGO_ALLOWED_HOSTS=(list, ["127.0.0.1", "localhost", "[::1]", "testserver"]),
    RAGSPINE_LLM_PROVIDER=(str, "mock"),
    RAGSPINE_LLM_MODEL=(str, ""),
    RAGSPINE_LLM_BASE_URL=(str, ""),
    RAGSPINE_EMBEDDER=(str, "none"),
    RAGSPINE_EMBED_BASE_URL=(str, ""),
    RAGSPINE_EMBED_MODEL=(str, ""),
    RAGSPINE_EMBED_PATH=(str, ""),
    RAGSPINE_EMBED_TIMEOUT=(float, 30.0),
    RAGSPINE_LOG_QUESTIONS=(bool, False),
    RAGSPINE_ASK_RATE=(str, "120/min"),
    RAGSPINE_API_RATE=(str, "600/min"),
    RAGSPINE_CORS_ORIGINS=(list, []),
)

DEBUG = env("DJANGO_DEBUG")
SECRET_KEY = env("DJANGO_SECRET_KEY", default="dev-only-insecure-key-change-me-in-production")
ALLOWED_HOSTS = env("DJANGO_ALLOWED_HOSTS")

INSTALLED_APPS = [
    "ragspine_site.apps.RagspineAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_htmx",
    "django_tasks_db",
    "documents",
    "facts",
    "agent",
    "faq",
    "retrieval",
    "demo",
    "protocols",
    "benchmarks",
]

MIDDLEWARE = [
    "common.middleware.RequestIdMiddleware",
    "common.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "common.middleware.ApiLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "common.middleware.ApiErrorMiddleware",
]
# Web pages on these origins (`https://chat.example.com`) may call the API and `/mcp` from the
# browser with a token: a browser-side chat client or MCP inspector. None by default.
RAGSPINE_CORS_ORIGINS = [origin.rstrip("/") for origin in env("RAGSPINE_CORS_ORIGINS")]

ROOT_URLCONF = "ragspine_site.urls"
WSGI_APPLICATION = "ragspine_site.wsgi.application"
ASGI_APPLICATION = "ragspine_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'ragspine.sqlite3'}"),
}
# Persistent connections: a new PostgreSQL connection per request costs more than the request.
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=60))
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        # A write transaction takes the write lock when it begins (IMMEDIATE), so that a second
        # writer waits for it (`timeout`) instead of failing at once when a read turns into a write.
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "zh-hans"
# The UI in the analyst's language: the `{% translate %}` strings are English, the
# catalogues in locale/ (compiled by `make`) give the Chinese and the English.
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# In development the page's CSS and script are served as they are on disk, not as the last
# `collectstatic` left them (`make run` collects them; a bare `runserver` did not).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "common.api.authentication.ClearanceTokenAuthentication",
        # `Authorization: Bearer <token>` as well: what OpenAI and MCP clients send, on every endpoint.
        "protocols.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "user": env("RAGSPINE_API_RATE"),
        "ask": env("RAGSPINE_ASK_RATE"),
        "anon": "60/min",
    },
    "DEFAULT_PAGINATION_CLASS": "common.api.pagination.StrictLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "common.api.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "RAGSpine API",
    "DESCRIPTION": "Answers about a company's numbers (from the fact table) and documents, with lineage.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "ENUM_NAME_OVERRIDES": {"RankOrderEnum": "core.engine.RANK_ORDERS"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.error_responses",
    ],
}

# Background work (document ingestion): Django's tasks framework on a database queue.
# Run the worker with `manage.py ingest_worker` (db_worker with crash recovery).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

RAGSPINE = {
    "LLM_PROVIDER": env("RAGSPINE_LLM_PROVIDER"),
    "LLM_MODEL": env("RAGSPINE_LLM_MODEL"),
    "LLM_BASE_URL": env("RAGSPINE_LLM_BASE_URL"),
    "LLM_TIMEOUT": env.float("RAGSPINE_LLM_TIMEOUT", default=30.0),
    "LLM_MAX_RETRIES": env.int("RAGSPINE_LLM_MAX_RETRIES", default=2),
    "ANTHROPIC_API_KEY": env("ANTHROPIC_API_KEY", default=""),
    "OPENAI_API_KEY": env("OPENAI_API_KEY", default=""),
    "EMBEDDER": env("RAGSPINE_EMBEDDER"),  # none | e5-small | openai | sentence-transformers
    "EMBED_BASE_URL": env("RAGSPINE_EMBED_BASE_URL"),  # e.g. http://tei:8080/v1
    "EMBED_MODEL": env("RAGSPINE_EMBED_MODEL"),
    "EMBED_API_KEY": env("RAGSPINE_EMBED_API_KEY", default=env("OPENAI_API_KEY", default="")),
    "EMBED_PATH": env("RAGSPINE_EMBED_PATH"),  # a local sentence-transformers model directory
    "EMBED_TIMEOUT": env("RAGSPINE_EMBED_TIMEOUT"),
    "LEXICAL_BACKEND": env("RAGSPINE_LEXICAL_BACKEND", default="inprocess"),  # inprocess | postgres
    "LLM_ROUTING": env.bool("RAGSPINE_LLM_ROUTING", default=False),  # ask the LLM when the rules are inconclusive
    "RERANK": env.bool("RAGSPINE_RERANK", default=False),  # LLM listwise rerank (needs a real provider)
    "INDEX_BACKGROUND_REBUILD": True,  # serve the previous BM25 index while a new one is built
    # FAQ matching is exact after normalisation; a Jaccard threshold (e.g. 0.8) turns on similarity.
    "FAQ_SIMILARITY": env.float("RAGSPINE_FAQ_SIMILARITY", default=0.0),
    # An ingest job whose worker died is queued again, at most this many attempts in all.
    "INGEST_MAX_ATTEMPTS": env.int("RAGSPINE_INGEST_MAX_ATTEMPTS", default=3),
    # A running job claimed on another host counts as abandoned after this long.
    "INGEST_STALE_SECONDS": env.int("RAGSPINE_INGEST_STALE_SECONDS", default=3600),
    "LOG_QUESTIONS": env("RAGSPINE_LOG_QUESTIONS"),
    "DEMO_DIR": BASE_DIR / "demo",
    "MAX_QUESTION_CHARS": 2000,
    # A document with more pages (or slides) is refused; the longest real annual reports run to
    # about a thousand pages. Pages are read one at a time, so memory does not grow with this.
    "MAX_PAGES": env.int("RAGSPINE_MAX_PAGES", default=1000),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
