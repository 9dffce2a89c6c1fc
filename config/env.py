"""Small helpers that read settings from the environment and fail loudly, naming the variable."""

import ipaddress
import os
from typing import Any
from urllib.parse import urlparse

import dj_database_url


class SettingError(Exception):
    """A setting from the environment has a bad value; the message names the variable."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingError(f"{name}: expected a boolean (true/false, 1/0, yes/no), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingError(f"{name}: expected a whole number, got {raw!r}") from None
    if value < minimum:
        raise SettingError(f"{name}: must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_origins(name: str, default: list[str]) -> list[str]:
    origins = env_list(name, default)
    for origin in origins:
        parsed = urlparse(origin)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise SettingError(f"{name}: {origin!r} is not an origin like https://sevenbox.example")
    return origins


def env_networks(name: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Addresses or networks (CIDR), comma-separated; a single address is its own /32 or /128."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise SettingError(f"{name}: {item!r} is not an address or a network like 10.0.0.0/24") from None
    return networks


# The embedded database serves a web server and a worker at once: WAL lets readers run beside a writer, and
# IMMEDIATE transactions take the write lock up front instead of failing when a reader tries to upgrade.
SQLITE_OPTIONS = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def database_config(name: str, sqlite_default_path: str) -> dict[str, Any]:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": sqlite_default_path,
            "OPTIONS": SQLITE_OPTIONS,
        }
    if not raw.startswith(("postgres://", "postgresql://", "sqlite://")):
        raise SettingError(f"{name}: expected postgres://user@host:port/db or sqlite:///path, got {raw!r}")
    try:
        config = dj_database_url.parse(raw, conn_max_age=60, conn_health_checks=True)
    except ValueError as error:
        raise SettingError(f"{name}: {error}") from None
    if config["ENGINE"].endswith("postgresql") and not config.get("NAME"):
        raise SettingError(f"{name}: the URL names no database, got {raw!r}")
    return dict(config)


def redis_url(name: str) -> str | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    parsed = urlparse(raw)
    if parsed.scheme not in ("redis", "rediss") or not parsed.hostname:
        raise SettingError(f"{name}: expected redis://host:port/db, got {raw!r}")
    try:
        parsed.port  # noqa: B018 - urlparse raises ValueError on a bad port only when it is read
    except ValueError:
        raise SettingError(f"{name}: the port in {raw!r} is not a number") from None
    return raw


def secret_key(name: str, *, debug: bool) -> str:
    raw = os.environ.get(name, "")
    if raw:
        if not debug and len(raw) < 32:
            raise SettingError(f"{name}: must be at least 32 characters in production")
        return raw
    if debug:
        return "dev-only-insecure-key-" + "x" * 40
    raise SettingError(f"{name}: is required when DEBUG is off (production refuses to start without it)")
