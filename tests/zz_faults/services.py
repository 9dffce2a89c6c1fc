"""Stop, start and restart the machine's PostgreSQL and Redis, waiting until each is really back."""

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connections

from tests.waiting import wait_for

PG_HOST, PG_PORT = "127.0.0.1", "5432"
REDIS_PORT = "6379"
REDIS_START = [
    "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", REDIS_PORT,
    "--save", "", "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile", "/var/log/redis/ci.log",
]  # fmt: skip


def _quiet(*command: str) -> bool:
    return subprocess.run(command, capture_output=True, timeout=30).returncode == 0


def postgres_is_up() -> bool:
    return _quiet("pg_isready", "-q", "-h", PG_HOST, "-p", PG_PORT)


def redis_is_up() -> bool:
    return _quiet("redis-cli", "-h", "127.0.0.1", "-p", REDIS_PORT, "ping")


def postgres_cluster() -> str:
    versions = sorted(path.name for path in Path("/etc/postgresql").iterdir())
    return versions[-1]


def postgres_restart() -> None:
    """Restart the cluster (every connection is cut) and wait until it accepts connections again."""
    try:
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", postgres_cluster(), "main", "restart"],
            check=True,
            capture_output=True,
            timeout=120,
        )
    finally:
        wait_for(postgres_is_up, timeout_s=60, what="PostgreSQL to accept connections")
        for connection in connections.all():
            connection.close()  # this process's connections died with the old server


def redis_start() -> None:
    if not redis_is_up():
        subprocess.run(REDIS_START, check=True, capture_output=True, timeout=30)
    wait_for(redis_is_up, timeout_s=30, what="Redis to answer PING")


@contextmanager
def redis_stopped() -> Iterator[None]:
    """Redis is down inside the block and always back up after it."""
    try:
        _quiet("redis-cli", "-h", "127.0.0.1", "-p", REDIS_PORT, "shutdown", "nosave")
        wait_for(lambda: not redis_is_up(), timeout_s=30, what="Redis to stop")
        yield
    finally:
        redis_start()
