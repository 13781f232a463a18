"""Every default channelkit uses, in one place.

Each part of the flow has its own section; add new defaults to the section of the part that
owns them, never as a literal in the code that uses them.
"""

from __future__ import annotations

# --- Shared: the interface contract (service-spec.md + decisions.md) ----------------------
API_VERSION_SEGMENT = "/v1"
ENV_BASE_URL = "CHANNELKIT_BASE_URL"
ENV_API_KEY = "CHANNELKIT_API_KEY"
ENV_LOG = "CHANNELKIT_LOG"
LOGGER_NAME = "channelkit"

PAGE_LIMIT_DEFAULT = 20
PAGE_LIMIT_MAX = 100
TITLE_MAX_CHARS = 200
BODY_MAX_CHARS = 50_000
TAGS_MAX_COUNT = 20
TAG_MAX_CHARS = 50
CHANNEL_NAME_MAX_CHARS = 100
IDEMPOTENCY_KEY_MAX_CHARS = 255
IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60
SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"

PRIORITIES = ("normal", "high", "urgent")
POST_STATUSES = ("draft", "scheduled", "published", "archived")
VISIBILITIES = ("organization", "team", "private")
SCOPES = ("posts:read", "posts:write", "channels:read", "channels:write", "analytics:read")
PLAN_LIMITS = {"starter": 60, "business": 300, "enterprise": 1000}
RATE_WINDOW_SECONDS = 60.0

# --- Service (channelkit serve) ------------------------------------------------------------
SERVICE_HOST = "127.0.0.1"
SERVICE_PORT = 8000
SERVICE_DB_PATH = "channelkit-service.sqlite"

# --- Client -------------------------------------------------------------------------------

# --- Sync and warehouse -------------------------------------------------------------------
WAREHOUSE_PATH = "warehouse.duckdb"

# --- Analysis, plots and reports ----------------------------------------------------------

# --- Publishing -----------------------------------------------------------------------------

# --- Demo -----------------------------------------------------------------------------------
DEMO_DIR = "channelkit-demo"
