import os
import subprocess
import sys
from pathlib import Path

import pytest

from config import env

REPO = Path(__file__).resolve().parents[2]


def start_django(**variables: str) -> subprocess.CompletedProcess:
    """Import the settings in a fresh process, the way `manage.py` or gunicorn would."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS"}
    }
    clean.update(variables)
    clean["DJANGO_SETTINGS_MODULE"] = "config.settings"
    code = "import django; django.setup(); from django.conf import settings; print(settings.BROKER_NAME)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=clean, capture_output=True, text=True, timeout=60
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = start_django(DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr and "refuses to start" in result.stderr


def test_debug_mode_starts_with_the_embedded_defaults():
    result = start_django(DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "embedded"


def test_a_redis_url_makes_redis_the_broker():
    result = start_django(DEBUG="1", REDIS_URL="redis://127.0.0.1:6379/9")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "redis"


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({"DEBUG": "maybe"}, "DEBUG"),
        ({"DEBUG": "1", "DATABASE_URL": "mysql://nope"}, "DATABASE_URL"),
        ({"DEBUG": "1", "REDIS_URL": "http://127.0.0.1:6379"}, "REDIS_URL"),
        ({"DEBUG": "1", "CSRF_TRUSTED_ORIGINS": "sevenbox.example"}, "CSRF_TRUSTED_ORIGINS"),
        ({"DEBUG": "0", "SECRET_KEY": "short"}, "SECRET_KEY"),
        ({"DEBUG": "1", "REPLAY_SEEDS": "0"}, "REPLAY_SEEDS"),
    ],
)
def test_a_bad_value_stops_start_up_with_a_message_naming_the_variable(variables, named):
    result = start_django(**variables)
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert f"Bad setting {named}:" in last_line


def test_env_bool_reads_the_usual_spellings(monkeypatch):
    for raw, expected in [("1", True), ("true", True), ("Yes", True), ("0", False), ("off", False)]:
        monkeypatch.setenv("FLAG", raw)
        assert env.env_bool("FLAG", not expected) is expected
    monkeypatch.delenv("FLAG")
    assert env.env_bool("FLAG", True) is True


def test_env_int_rejects_words_and_negative_numbers(monkeypatch):
    monkeypatch.setenv("LIMIT", "ten")
    with pytest.raises(env.SettingError, match="LIMIT: expected a whole number"):
        env.env_int("LIMIT", 5)
    monkeypatch.setenv("LIMIT", "-1")
    with pytest.raises(env.SettingError, match="LIMIT: must be at least 1"):
        env.env_int("LIMIT", 5, minimum=1)


def test_database_url_defaults_to_sqlite_and_parses_postgres(monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert env.database_config("DATABASE_URL", "/tmp/x.sqlite3")["ENGINE"] == "django.db.backends.sqlite3"
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sevenbox")
    config = env.database_config("DATABASE_URL", "/tmp/x.sqlite3")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert config["NAME"] == "sevenbox"


def test_redis_url_rejects_a_bad_port(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:port/0")
    with pytest.raises(env.SettingError, match="REDIS_URL"):
        env.redis_url("REDIS_URL")


def test_argon2_is_the_password_hasher_in_the_settings_module():
    from config import settings as settings_module

    assert settings_module.PASSWORD_HASHERS[0].endswith("Argon2PasswordHasher")
