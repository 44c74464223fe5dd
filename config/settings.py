"""Settings, driven by the environment.

Two modes, chosen by what is configured:

* ``DATABASE_URL`` / ``REDIS_URL`` set: PostgreSQL, the Redis channel layer and cache,
  and a real Celery broker. This is production and the test suite.
* neither set (the embedded default, for ``make run`` on a bare machine): SQLite with
  immediate transactions (so concurrent writers serialise instead of failing half way),
  the in-memory channel layer, a local-memory cache and Celery tasks run eagerly.

``BACKENDS_SUMMARY`` is the one line printed at start-up saying which is in use.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = _env_bool("DEBUG", False)

# Production refuses to start without a real secret; debug/dev gets a fixed,
# clearly-labelled insecure key so `make run` needs no configuration.
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (set DEBUG=1 for local development)."
        )
    SECRET_KEY = "insecure-dev-key-do-not-use-in-production"

ALLOWED_HOSTS = _env_list(
    "ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = _env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # First: its admin templates (the link to the live dashboard) override the admin's own.
    "backoffice",
    # Before auth: its post_migrate receiver gives each role the permissions just created.
    "staff",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "channels",
    "core",
    "ledger",
    "wallet",
    "poker",
    "tournaments",
    "handhistory",
    "fraud",
    "audit",
    # Staff's second factor: time-based one-time codes (TOTP apps).
    "django_otp",
    "django_otp.plugins.otp_totp",
    # Their one-time recovery codes (static tokens), issued at enrolment.
    "django_otp.plugins.otp_static",
]

MIDDLEWARE = [
    "core.middleware.RequestIdMiddleware",
    "core.middleware.ApiJsonErrorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): whether this session passed a second factor.
    "django_otp.middleware.OTPMiddleware",
    # With STAFF_2FA_REQUIRED, staff reach the admin and /staff/ only with that factor.
    "backoffice.otp.StaffOtpMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
# The model of the tables hands are dealt at, named here (the roof) so the hand store below
# the game names no model above it, as ``AUTH_USER_MODEL`` does for users. Hands read its
# ``name``, ``max_seats`` and ``currency``.
HANDHISTORY_TABLE_MODEL = "poker.Table"
ASGI_APPLICATION = "config.asgi.application"

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
                "wallet.context_processors.restriction",
            ],
        },
    },
]

# --- Backends -------------------------------------------------------------------

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
EMBEDDED_DB_PATH = Path(os.environ.get("EMBEDDED_DB_PATH", BASE_DIR / "var" / "db.sqlite3"))

#: PostgreSQL connections per process at most (0: no pool, a connection per request).
DB_POOL_MAX_SIZE = int(os.environ.get("DB_POOL_MAX_SIZE", "10"))
#: Connections each process keeps open while idle, once it has served.
DB_POOL_MIN_SIZE = int(os.environ.get("DB_POOL_MIN_SIZE", "2"))
DB_POOL_TIMEOUT = float(os.environ.get("DB_POOL_TIMEOUT", "5"))

if DATABASE_URL:
    # No persistent connections: under ASGI each request runs in a thread of its own,
    # so a connection kept per thread (conn_max_age) is one more idle connection per
    # concurrent request, without bound (a burst of 25 requests left 72 behind).
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    # A health check is a round trip to PostgreSQL at every checkout from the pool (every
    # request and every table command): on the WebSocket path it was an eighth of the
    # server's samples. Off by default: a connection the server dropped (a PostgreSQL
    # restart) fails the one request that draws it, and the pool discards it; the client's
    # retry with the same key finds a live one. DB_HEALTH_CHECKS=1 turns the checks on.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = os.environ.get("DB_HEALTH_CHECKS", "0") == "1"
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Django turns psycopg's prepared statements off (threshold None), which also
        # makes the ``prepare=True`` of the ledger's hot path a silent no-op. Django's own
        # cursors bind client-side and never prepare, so this enables preparation only
        # where a hot path asks for it, and plans those statements once (generic plans:
        # the posting statement works on arrays whose sizes the planner should not
        # re-plan for at every call). Set DB_PREPARED_STATEMENTS=0 behind a
        # transaction-pooling proxy that cannot carry prepared statements.
        options = DATABASES["default"].setdefault("OPTIONS", {})
        if os.environ.get("DB_PREPARED_STATEMENTS", "1") != "0":
            options.setdefault("prepare_threshold", 5)
            options.setdefault("options", "-c plan_cache_mode=force_generic_plan")
        # Instead, each process borrows from a pool of at most DB_POOL_MAX_SIZE
        # connections, returned at the end of each request (or task): the bound a
        # deployment sizes PostgreSQL's max_connections by (README, Production). The
        # pool's connections live on, so their prepared statements stay planned. A request
        # that finds them all busy for DB_POOL_TIMEOUT seconds is a 503 database_busy.
        if DB_POOL_MAX_SIZE:
            options["pool"] = {
                "min_size": min(DB_POOL_MIN_SIZE, DB_POOL_MAX_SIZE),
                "max_size": DB_POOL_MAX_SIZE,
                "timeout": DB_POOL_TIMEOUT,
            }
        DATABASES["default"]["TEST"] = {"NAME": os.environ.get("TEST_DATABASE_NAME") or None}
else:
    EMBEDDED_DB_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(EMBEDDED_DB_PATH),
            "OPTIONS": {
                # BEGIN IMMEDIATE takes the write lock up front, so two writers queue on
                # busy_timeout instead of one failing with "database is locked" mid-way.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;PRAGMA foreign_keys=ON;"
                ),
            },
        }
    }

# Parallel test workers share one Redis but each has its own database (and so the
# same table ids): the worker name keeps their groups and cache keys apart.
CHANNEL_PREFIX = os.environ.get("CHANNEL_PREFIX", "asgi") + os.environ.get(
    "PYTEST_XDIST_WORKER", ""
)
if REDIS_URL:
    # Pub/sub: a group send is one PUBLISH, delivered at most once to the connections
    # subscribed at that moment. A frame lost that way (a reconnecting subscriber) is a
    # version gap, which the client closes with ``resync`` (docs/protocol.md).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_PREFIX},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CHANNEL_PREFIX,
        }
    }
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
    CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL)
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True

# A deployment (or a test run) can keep its tasks on its own queue of a shared broker.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}


def _describe_backends() -> str:
    db = DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        database = f"SQLite (embedded, {db['NAME']})"
    else:
        database = (
            f"PostgreSQL ({db.get('HOST') or 'socket'}:{db.get('PORT') or 5432}/{db['NAME']})"
        )
    if REDIS_URL:
        layer = "Redis channel layer + Redis cache"
        celery = "Celery on Redis broker (worker + beat)"
    else:
        layer = "in-memory channel layer + local-memory cache"
        celery = "Celery eager (tasks run in-process)"
    return f"Backends: database={database}; channels={layer}; tasks={celery}"


BACKENDS_SUMMARY = _describe_backends()

# --- Auth ---------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/admin/login/"

# Staff sign in with a password and a one-time code (TOTP) before any admin or /staff/
# page: on by default in production (DEBUG off), off under DEBUG (`make run`). Staff REST
# endpoints authenticate by token and are not covered (see README, "Staff").
STAFF_2FA_REQUIRED = _env_bool("STAFF_2FA_REQUIRED", not DEBUG)
#: The issuer shown next to the account in the staff member's authenticator app.
OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Poker room staff")
# The admin lists devices without their secrets or recovery codes: codes are shown once,
# on the page that makes them (backoffice.otp_views).
OTP_ADMIN_HIDE_SENSITIVE_DATA = True

# --- REST ---------------------------------------------------------------------------

_RENDERERS = ["rest_framework.renderers.JSONRenderer"]
if DEBUG:
    _RENDERERS.append("rest_framework.renderers.BrowsableAPIRenderer")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # DRF's, refusing staff tokens while STAFF_2FA_REQUIRED is on.
        "core.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": _RENDERERS,
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.exceptions.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.Pagination",
    "PAGE_SIZE": 50,
}

# Failed logins allowed (API token and web login) per account from any address, and per
# address for any account, within the window; then 429 until the window moves on
# (core/throttling.py). An address is REMOTE_ADDR (set NUM_PROXIES in REST_FRAMEWORK
# behind a proxy so DRF reads X-Forwarded-For).
LOGIN_THROTTLE_WINDOW_S = int(os.environ.get("LOGIN_THROTTLE_WINDOW_S", "300"))
LOGIN_THROTTLE_ACCOUNT_ATTEMPTS = int(os.environ.get("LOGIN_THROTTLE_ACCOUNT_ATTEMPTS", "10"))
LOGIN_THROTTLE_ADDRESS_ATTEMPTS = int(os.environ.get("LOGIN_THROTTLE_ADDRESS_ATTEMPTS", "40"))

SPECTACULAR_SETTINGS = {
    "TITLE": "Poker room API",
    "DESCRIPTION": (
        "Event-sourced poker backend with a double-entry wallet. All amounts are integer "
        "minor units. Errors are always {code, message, extra}."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.openapi.add_common_errors",  # 400/401/429 that many operations share
    ],
    # Serve Swagger UI's assets ourselves: the docs work with no internet access.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # Several models have a "status": each choice set gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "CaseStatusEnum": "fraud.models.Case.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "TournamentKindEnum": "tournaments.models.Tournament.Kind",
    },
    # ``<id:...>`` in a path (core.converters): the ids a row can have, nothing else routes.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "format": "int64", "minimum": 1, "maximum": 2**63 - 1}
    },
}

# --- i18n / static ------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Security: HTTPS and the Content-Security-Policy -------------------------------
# Production (DEBUG off) defaults to HTTPS only; each switch can be turned off from the
# environment (README, Production). The test and bench commands serve plain http, so
# scripts/with_services.py turns the redirect off for them.

if not DEBUG:
    SESSION_COOKIE_SECURE = _env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = _env_bool("SECURE_COOKIES", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_SSL_REDIRECT = _env_bool("SECURE_SSL_REDIRECT", True)
    # A load balancer probes /healthz over plain http inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    # Browsers remember HSTS (sent on https responses only) for this long: one year.
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = _env_bool("SECURE_HSTS_PRELOAD", True)

# Behind a proxy that terminates TLS, Django sees http; the proxy's header says what the
# client used, e.g. SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto: https". Only set it when
# the proxy overwrites that header on every request (a client could forge it otherwise).
_proxy_ssl_header = os.environ.get("SECURE_PROXY_SSL_HEADER", "")
if _proxy_ssl_header:
    _header, _, _value = _proxy_ssl_header.partition(":")
    if not _value.strip():
        raise ImproperlyConfigured(
            'SECURE_PROXY_SSL_HEADER must look like "X-Forwarded-Proto: https".'
        )
    SECURE_PROXY_SSL_HEADER = (
        "HTTP_" + _header.strip().upper().replace("-", "_"),
        _value.strip(),
    )

# Every page, in every mode: scripts and styles only from our own files (no inline
# script can run, so injected markup cannot execute), our own origin for XHR and the
# WebSocket ('self' covers ws:/wss: of the same host), and no framing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- var/: runtime files (the embedded database, beat's schedule, collected static) -----
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))

# --- Hand-history export files ---------------------------------------------------------
# Export jobs store their files through Django's storage API under the alias "exports": the
# local disk (EXPORTS_ROOT) by default; with EXPORTS_S3_BUCKET set, an S3 bucket through
# django-storages (`pip install "pokerroom[s3]"`; credentials and region come from boto3's
# usual AWS_* environment variables or instance role). Files are private: the API streams
# them to their requester only.
EXPORTS_ROOT = Path(os.environ.get("EXPORTS_ROOT", VAR_DIR / "exports"))
_exports_storage: dict[str, object] = {
    "BACKEND": "django.core.files.storage.FileSystemStorage",
    "OPTIONS": {"location": str(EXPORTS_ROOT)},
}
if os.environ.get("EXPORTS_S3_BUCKET"):
    _exports_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["EXPORTS_S3_BUCKET"],
            "location": os.environ.get("EXPORTS_S3_PREFIX", "exports"),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "exports": _exports_storage,
}
#: Staff who saw every card of a table (its live staff view, or any hand of it) may not sit
#: at it for this many hours after (poker.full_view).
STAFF_FULL_VIEW_SEAT_BLOCK_HOURS = int(os.environ.get("STAFF_FULL_VIEW_SEAT_BLOCK_HOURS", "24"))
#: A hand is shown with every card once this many hands of its table have ended, itself
#: included (1: as soon as it ends; 2: once the next one has ended too). At least 1.
STAFF_FULL_VIEW_DELAY_HANDS = max(1, int(os.environ.get("STAFF_FULL_VIEW_DELAY_HANDS", "1")))
#: How long an export file is kept after it is written; then the hourly sweep deletes it.
EXPORT_TTL_HOURS = int(os.environ.get("EXPORT_TTL_HOURS", str(7 * 24)))
#: Queued or running export jobs allowed per user at once (429 too_many_exports beyond).
EXPORT_MAX_ACTIVE_JOBS = int(os.environ.get("EXPORT_MAX_ACTIVE_JOBS", "3"))
#: Hands read per round trip; progress is saved and cancellation checked once per chunk.
EXPORT_CHUNK_SIZE = int(os.environ.get("EXPORT_CHUNK_SIZE", "500"))
#: The Celery queue of export jobs. Long exports can take a worker for minutes: give them a
#: queue (and workers) of their own so the shot-clock sweeper is never stuck behind one.
EXPORT_QUEUE = os.environ.get("EXPORT_QUEUE", CELERY_TASK_DEFAULT_QUEUE)
CELERY_BEAT_SCHEDULE["handhistory-expire-exports"] = {
    "task": "handhistory.expire_exports",
    "schedule": 3600.0,
}
#: How often beat derives the finished hands' missing products (handhistory.derived: the
#: stored export texts, ...), off the table path.
HANDHISTORY_DERIVE_SECONDS = float(os.environ.get("HANDHISTORY_DERIVE_SECONDS", "10"))
CELERY_BEAT_SCHEDULE["handhistory-derive-backlog"] = {
    "task": "handhistory.derive_backlog",
    "schedule": HANDHISTORY_DERIVE_SECONDS,
}

# --- Fraud: the collusion analysis counts new hands and rescores the pairs this often.
FRAUD_ANALYSE_SECONDS = float(os.environ.get("FRAUD_ANALYSE_SECONDS", "300"))
#: Hands per chunk: the unit of work one worker takes (the chunks of a run are a chord).
FRAUD_CHUNK_HANDS = int(os.environ.get("FRAUD_CHUNK_HANDS", "10000"))
CELERY_BEAT_SCHEDULE["fraud-analyse"] = {"task": "fraud.analyse", "schedule": FRAUD_ANALYSE_SECONDS}

# --- Periodic tasks: /healthz is 503 when the sweeper (due every second) has not run for
# this long, counted from the process's start at the earliest (README, Production).
PERIODIC_MAX_AGE_S = float(os.environ.get("PERIODIC_MAX_AGE_S", "30"))

# --- Logging: one JSON object per line, each with the request id --------------------

LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
# Python's warnings go through the same handler (core.logging.configure).
LOGGING_CONFIG = "core.logging.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # On the one handler every line passes (ours, Django's, uvicorn's, Celery's: see
    # config/celery.py): secrets are masked, and the periodic tasks' routine lines demoted.
    "filters": {
        "request_id": {"()": "core.logging.RequestIdFilter"},
        "redact": {"()": "core.logging.RedactFilter"},
        "quiet_periodic": {"()": "core.logging.QuietPeriodicFilter", "level": LOG_LEVEL},
    },
    "formatters": {"json": {"()": "core.logging.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["request_id", "quiet_periodic", "redact"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's defaults give "django" a plain-text console handler when DEBUG is on
        # (`make run`): naming the logger here drops it, so its lines are JSON only.
        "django": {"level": "INFO", "propagate": True},
        "django.server": {"propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "django.request": {"level": "ERROR", "propagate": True},
        # Celery's pool (billiard) detaches this logger from the root (a worker killed by
        # a signal is logged here): without a handler its lines were bare text.
        "multiprocessing": {"handlers": ["console"], "propagate": False},
    },
}

# --- Poker: the shot clock sweeper and housekeeping ----------------------------------
#: How long a finished hand's result (final board, winners) stays on the table before the
#: next hand is dealt, in milliseconds. The server enforces it: the next hand is started by
#: the sweeper below (or by any later command on the table) once due. 0 deals the next
#: hand in the command that finished the last one (what the test suite runs with).
POKER_HAND_PAUSE_MS = int(os.environ.get("POKER_HAND_PAUSE_MS", "3000"))
#: Added to that pause per street of a board run out with everyone all-in (no decision
#: left), which the pages deal out one street at a time at this pace.
POKER_RUNOUT_STREET_MS = int(os.environ.get("POKER_RUNOUT_STREET_MS", "1500"))
CELERY_BEAT_SCHEDULE["poker-sweep-timeouts"] = {"task": "poker.sweep_timeouts", "schedule": 1.0}
CELERY_BEAT_SCHEDULE["poker-prune-update-log"] = {
    "task": "poker.prune_update_log",
    "schedule": 600.0,
}
CELERY_BEAT_SCHEDULE["poker-prune-presence"] = {"task": "poker.prune_presence", "schedule": 3600.0}
# Tournaments due whose start never ran or was cut short (a sit-and-go starts after the
# filling registration's commit, a scheduled one here); the moves a crash left unmade.
CELERY_BEAT_SCHEDULE["tournaments-start-due"] = {"task": "tournaments.start_due", "schedule": 30.0}
CELERY_BEAT_SCHEDULE["tournaments-resume"] = {"task": "tournaments.resume", "schedule": 30.0}

# --- Wallet / ledger ----------------------------------------------------------------

WALLET_CURRENCIES = _env_list("WALLET_CURRENCIES", ["CHIPS", "EUR", "USD"])
WALLET_SIGNUP_CHIPS = int(os.environ.get("WALLET_SIGNUP_CHIPS", "100000"))
# The sandbox gateway confirms every deposit at once, with no payment behind it: anyone
# may mint money in any enabled currency. So it is an explicit opt-in (on by default only
# in debug mode, for `make run`), and production mode refuses to start with it while a
# real currency is enabled -- unless WALLET_SANDBOX_ALLOW_REAL_CURRENCIES=1 declares the
# deployment a test rig (the test suite does; see scripts/with_services.py).
WALLET_SANDBOX = _env_bool("WALLET_SANDBOX", DEBUG)
_REAL_CURRENCIES = [c for c in WALLET_CURRENCIES if c != "CHIPS"]
if (
    WALLET_SANDBOX
    and not DEBUG
    and _REAL_CURRENCIES
    and not _env_bool("WALLET_SANDBOX_ALLOW_REAL_CURRENCIES", False)
):
    raise ImproperlyConfigured(
        "WALLET_SANDBOX=1 confirms deposits without any payment, and production mode "
        f"(DEBUG=0) refuses it while real currencies are enabled ({', '.join(_REAL_CURRENCIES)})."
        " Configure a real payment gateway instead, or enable play money only "
        "(WALLET_CURRENCIES=CHIPS)."
    )
WALLET_GATEWAYS: dict[str, dict[str, object]] = {
    # A webhook-confirming gateway; disabled (404) until its secret is configured.
    "test": {
        "class": "wallet.gateways.HmacWebhookGateway",
        "secret": os.environ.get("WALLET_TEST_GATEWAY_SECRET", ""),
    },
}
if WALLET_SANDBOX:
    WALLET_GATEWAYS["sandbox"] = {"class": "wallet.gateways.SandboxGateway"}
WALLET_DEFAULT_GATEWAY = os.environ.get(
    "WALLET_DEFAULT_GATEWAY", "sandbox" if WALLET_SANDBOX else ""
)
if WALLET_DEFAULT_GATEWAY == "sandbox":
    _WALLET_SUMMARY = "sandbox gateway (deposits confirmed without payment: not for real money)"
elif WALLET_DEFAULT_GATEWAY:
    _WALLET_SUMMARY = f"{WALLET_DEFAULT_GATEWAY} gateway"
else:
    _WALLET_SUMMARY = "no payment gateway (deposits refused until one is configured)"
BACKENDS_SUMMARY = f"{BACKENDS_SUMMARY}; wallet={_WALLET_SUMMARY}"
# Deposit maxima (minor units): per deposit, and per player and currency over any 24 hours.
# All deposits of a gateway and currency share one clearing account; these bound what one
# player can move through it (the arithmetic is in docs/ledger.md).
WALLET_DEPOSIT_MAX = int(os.environ.get("WALLET_DEPOSIT_MAX", "1000000"))
WALLET_DEPOSIT_DAILY_MAX = int(os.environ.get("WALLET_DEPOSIT_DAILY_MAX", "5000000"))
# Responsible gaming: a player's own deposit limit takes effect at once when lowered, only
# this many hours later when raised or removed.
WALLET_LIMIT_RAISE_DELAY_HOURS = int(os.environ.get("WALLET_LIMIT_RAISE_DELAY_HOURS", "24"))
WALLET_WEBHOOK_TOLERANCE_S = int(os.environ.get("WALLET_WEBHOOK_TOLERANCE_S", "300"))
WALLET_WITHDRAWAL_MIN = int(os.environ.get("WALLET_WITHDRAWAL_MIN", "100"))
WALLET_WITHDRAWAL_DAILY_MAX = int(os.environ.get("WALLET_WITHDRAWAL_DAILY_MAX", "1000000"))
WALLET_SANDBOX_AUTO_APPROVE_WITHDRAWALS = _env_bool(
    "WALLET_SANDBOX_AUTO_APPROVE_WITHDRAWALS", False
)
# Four eyes: a withdrawal above its currency's amount here (minor units) takes two staff
# approvals by different people: "EUR:100000,USD:100000". A real currency left out takes
# two approvals whatever the amount (the rule fails closed).
WALLET_WITHDRAWAL_FOUR_EYES_ABOVE = {
    currency.strip(): int(amount)
    for currency, _, amount in (
        item.partition(":")
        for item in _env_list(
            "WALLET_WITHDRAWAL_FOUR_EYES_ABOVE",
            [f"{c}:100000" for c in WALLET_CURRENCIES if c != "CHIPS"],
        )
    )
}

# --- Audit runs (audit app): each check on its own schedule, every run an AuditRun row; a
# failure is logged at ERROR and mailed to staff (active staff with an address, and ADMINS).
AUDIT_SCHEDULE_SECONDS = {
    "ledger": 3600.0,
    "event_store": 300.0,  # incremental: the events since the last passed run's watermark
    "event_store_full": 86400.0,
    "replay_settlement": 3600.0,
    "table_stakes": 300.0,
    "tournament_accounts": 3600.0,
}
for _check, _seconds in AUDIT_SCHEDULE_SECONDS.items():
    CELERY_BEAT_SCHEDULE[f"audit-{_check.replace('_', '-')}"] = {
        "task": "audit.run",
        "schedule": _seconds,
        "args": (_check,),
    }

# --- Mail (audit alerts): printed on the console unless a real backend is configured.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", False)
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", "pokerroom@localhost")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", SERVER_EMAIL)
EMAIL_SUBJECT_PREFIX = os.environ.get("EMAIL_SUBJECT_PREFIX", "[pokerroom] ")
#: Who is told of failed audits besides active staff with an address: "a@x.org,b@y.org".
ADMINS = [(email, email) for email in _env_list("ADMINS", [])]
# "Reload play money": the player's CHIPS cash is topped back up to this amount, at most
# once per period (wallet/reload.py).
WALLET_RELOAD_CHIPS = int(os.environ.get("WALLET_RELOAD_CHIPS", str(WALLET_SIGNUP_CHIPS)))
WALLET_RELOAD_PERIOD_HOURS = int(os.environ.get("WALLET_RELOAD_PERIOD_HOURS", "24"))
# A withdrawal above this amount (minor units, any currency) needs a verified identity.
WALLET_KYC_WITHDRAWAL_THRESHOLD = int(os.environ.get("WALLET_KYC_WITHDRAWAL_THRESHOLD", "100000"))
# The table page reminds a seated player of their session (time, net) this often.
SESSION_REMINDER_MINUTES = int(os.environ.get("SESSION_REMINDER_MINUTES", "60"))
