"""What the HTTP benchmarks (autosave.py, load.py) share: a fresh scratch database, a logged-in session per
simulated candidate without going through the login form, and waiting for the server to answer."""

import http.client
import subprocess
import time


def fresh_database(database_url: str) -> None:
    """Drop and recreate the scratch PostgreSQL database the URL names (its server's `postgres` database
    is used to do it)."""
    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    subprocess.run(["psql", admin_url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=True)
    subprocess.run(["psql", admin_url, "-qc", f"CREATE DATABASE {name}"], check=True)


def candidate_session(user) -> str:
    """The key of a stored session logged in as `user`, as the login form would leave it."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def wait_until_serving(port: int, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/ping", headers={"Host": "127.0.0.1"})
            answered = connection.getresponse().status == 200
            connection.close()  # left open, it would hold one of gunicorn's threads
            if answered:
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit("gunicorn did not start")
