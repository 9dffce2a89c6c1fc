"""Sevenbox settings: one module, driven by environment variables (see README and docker/.env.example)."""

import os
import sys
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from config import env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

# Under pytest the development defaults apply (a throwaway key, no HTTPS redirect).
# Production never imports pytest.
TESTING = "pytest" in sys.modules

try:
    DEBUG = env.env_bool("DEBUG", False)
    SECRET_KEY = env.secret_key("SECRET_KEY", debug=DEBUG or TESTING)
    ALLOWED_HOSTS = env.env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
    CSRF_TRUSTED_ORIGINS = env.env_origins("CSRF_TRUSTED_ORIGINS", [])
    DATABASES = {"default": env.database_config("DATABASE_URL", str(VAR_DIR / "sevenbox.sqlite3"))}
    REDIS_URL = env.redis_url("REDIS_URL")
    SECURE_SSL_REDIRECT = env.env_bool("SECURE_SSL_REDIRECT", not (DEBUG or TESTING))
    SMTP_HOST = os.environ.get("SMTP_HOST", "localhost")
    SMTP_PORT = env.env_int("SMTP_PORT", 25, minimum=1)
    LOGIN_FAILURE_LIMIT = env.env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
    LOGIN_ACCOUNT_FAILURE_LIMIT = env.env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 20, minimum=1)
    LOGIN_ADDRESS_FAILURE_LIMIT = env.env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 30, minimum=1)
    # The reverse proxies in front of gunicorn (nginx, a TLS proxy): only their X-Forwarded-For is believed.
    TRUSTED_PROXIES = env.env_networks("TRUSTED_PROXIES")
    REPLAY_SEEDS = env.env_int("REPLAY_SEEDS", 5, minimum=1)  # runs of each scenario and side, one per seed
except env.SettingError as error:
    raise ImproperlyConfigured(f"Bad setting {error}") from None

VAR_DIR.mkdir(exist_ok=True)  # the embedded database, broker folders and collected static files live here
(VAR_DIR / "staticfiles").mkdir(exist_ok=True)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # full-text search of the catalogue on PostgreSQL
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "questions",
    "rounds",
    "interview",
    "drills",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.api_slash.ApiTrailingSlashMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.db_errors.DatabaseUnavailableMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.form_text.UnstorableTextMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "interview.context_processors.roles",
            ],
        },
    },
]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

MAILERS = {
    "default": (
        {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
        if DEBUG
        else {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            # The worker sends mail (interview/tasks.py); a server that accepts and never answers is given up.
            "OPTIONS": {"host": SMTP_HOST, "port": SMTP_PORT, "timeout": 10},
        }
    )
}
DEFAULT_FROM_EMAIL = "Sevenbox <no-reply@sevenbox.local>"

# Redis is broker and cache when REDIS_URL is set; otherwise an embedded broker (kombu's filesystem
# transport) that needs no server, with a real worker process reading the same folders.
CELERY_BROKER_URL = REDIS_URL or "filesystem://"
CELERY_RESULT_BACKEND = REDIS_URL or f"file://{VAR_DIR / 'celery' / 'results'}"
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = (
    {"visibility_timeout": 3600}
    if REDIS_URL
    else {
        "data_folder_in": str(VAR_DIR / "celery" / "queue"),
        "data_folder_out": str(VAR_DIR / "celery" / "queue"),
        "processed_folder": str(VAR_DIR / "celery" / "processed"),
        "control_folder": str(VAR_DIR / "celery" / "control"),
        "store_processed": False,
        # kombu polls the folder once a second by default: up to a second before a submit's replays start.
        "polling_interval": 0.1,
    }
)
if not REDIS_URL:
    # The filesystem transport and result backend need their folders before any producer or worker starts.
    for folder in ("queue", "processed", "control", "results"):
        (VAR_DIR / "celery" / folder).mkdir(parents=True, exist_ok=True)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
BROKER_NAME = "redis" if REDIS_URL else "embedded"
# Replays go to Celery's default queue; the periodic sweeps, mail and the health ping to a queue of their own,
# which compose serves with a worker of its own (the one with beat), so they never wait behind a backlog of
# replays (a killed run was requeued after 218 s, not 75 s, while the sweep queued behind 16 minutes of runs).
REPLAY_QUEUE_NAME = "celery"
UPKEEP_QUEUE = "upkeep"
CELERY_TASK_ROUTES = {
    name: {"queue": UPKEEP_QUEUE}
    for name in (
        "grading.sweep_replays",
        "interview.complete_reviews",
        "interview.send_mail",
        "interview.send_invitation_mail",
        "sevenbox.ping",
    )
}

CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # a Redis that hangs must not hang the pages that count in the cache (log-in, discussion)
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "interview.api.authentication.PasswordBoundTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "config.json_body.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.service_errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Sevenbox API",
    "DESCRIPTION": "Questions, grading, timed rounds, replays and discussion.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Every 4xx answer of every operation is the one `Error` component (config/service_errors.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.service_errors.document_error_responses",
    ],
    # A fix's category is one enum wherever it appears (a saved fix, a ranked fix, a planted flaw).
    # A line's verdict too (a report's line and a drill's depth line share it; other "verdict" fields differ).
    "ENUM_NAME_OVERRIDES": {
        "FixCategoryEnum": "grading.core.vocabulary.FIX_CATEGORIES",
        "LineVerdictEnum": "grading.core.verdicts.VERDICTS",
    },
}

# A strict policy the pages satisfy: no inline script, no inline style element, nothing from another origin.
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# The container's health check asks gunicorn directly over plain HTTP (config/healthcheck.py).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^ping$"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
if not (DEBUG or TESTING):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 31536000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO" if not TESTING else "WARNING"},
}

# Periodic tasks (the worker runs with --beat): re-send replay runs the broker never got, requeue lost ones,
# and fold finished replays into review rounds' reports.
CELERY_BEAT_SCHEDULE = {
    "sweep-replays": {"task": "grading.sweep_replays", "schedule": 15.0},
    "complete-reviews": {"task": "interview.complete_reviews", "schedule": 15.0},
}
