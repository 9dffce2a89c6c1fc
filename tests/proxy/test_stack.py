"""The deployment as shipped, run outside an engine (there is none here): the compose file's `migrate` command
on a fresh database, gunicorn started with the image's command and environment (Dockerfile ENV, .env.example,
compose's variables; only the database and Redis addresses point at this machine's servers), the image's
health-check command, and the project's nginx in front with a TLS proxy's X-Forwarded-Proto: https."""

import http.client
import json
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from bench.nginx_front import free_port, nginx_in_front
from bench.scratch_site import fresh_database
from tests.conftest import TEST_PASSWORD, USES_POSTGRES, USES_REDIS

pytestmark = [
    pytest.mark.nginx,
    pytest.mark.serial,  # gunicorn on the suite's Redis keys (its log-in lockouts), 1,100 connections at once
    pytest.mark.skipif(not (USES_POSTGRES and USES_REDIS), reason="needs DATABASE_URL and REDIS_URL"),
]

REPO = Path(__file__).resolve().parents[2]
DOCKER = REPO / "docker"
TLS_PROXY = "127.0.0.1"  # the TLS proxy in front of nginx, and nginx as gunicorn sees it
OTHER_CLIENT = "127.0.0.2"  # a visitor reaching nginx directly
SLOW_BODY_CLIENTS = 1_100


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(instruction, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", (DOCKER / "Dockerfile").read_text())
    pairs = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            instruction, _, arguments = line.strip().partition(" ")
            pairs.append((instruction.upper(), arguments.strip()))
    return pairs


def image_command() -> list[str]:
    return json.loads(next(arguments for name, arguments in dockerfile_instructions() if name == "CMD"))


def image_health_check() -> list[str]:
    arguments = next(arguments for name, arguments in dockerfile_instructions() if name == "HEALTHCHECK")
    return json.loads(arguments.split(" CMD ", 1)[1])


def image_env() -> dict[str, str]:
    env = {}
    for name, arguments in dockerfile_instructions():
        if name == "ENV":
            env.update(dict(shlex.split(pair)[0].split("=", 1) for pair in shlex.split(arguments)))
    return env


def env_example() -> dict[str, str]:
    lines = (DOCKER / ".env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def interpolated(value: str, variables: dict[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}, from the env file."""

    def one(match: re.Match) -> str:
        name, operator, rest = match.group(1), match.group(2), match.group(3)
        if name in variables and variables[name] != "":
            return variables[name]
        if operator == ":?":
            raise AssertionError(f"{name} is required: {rest}")
        return rest if operator == ":-" else ""

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def app_env(*, database_url: str, port: int) -> dict[str, str]:
    """What a web or worker container sees: the image's ENV, the env file, compose's environment; then the
    compose network's postgres and redis replaced by this machine's, nginx's address by loopback and the
    image's numba cache by the checkout's."""
    example = env_example()
    service = compose()["x-app"]
    env = {"PATH": f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}", "HOME": os.environ.get("HOME", "/tmp")}
    env.update(image_env())
    env.update(example)
    env.update({name: interpolated(str(value), example) for name, value in service["environment"].items()})
    assert env["DATABASE_URL"].startswith("postgres://sevenbox:change-me")  # the password came from the env
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=os.environ["REDIS_URL"],
        PORT=str(port),
        TRUSTED_PROXIES=TLS_PROXY,
        NUMBA_CACHE_DIR=str(REPO / "var" / "numba-cache"),  # the image's /app/var is not on this machine
    )
    return env


def run_health_check(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(image_health_check(), cwd=REPO, env=env, capture_output=True, text=True, timeout=15)


def request(port: int, method: str, path: str, *, source: str = TLS_PROXY, headers=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20, source_address=(source, 0))
    connection.request(method, path, body=body, headers={"Host": "sevenbox.example", **(headers or {})})
    response = connection.getresponse()
    content = response.read()
    connection.close()
    return response, content


def ask_token(port: int, *, client: str, password: str):
    body = json.dumps({"username": "alice", "password": password})
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": client, "Content-Type": "application/json"}
    response, content = request(port, "POST", "/api/token/", headers=headers, body=body)
    return response.status, json.loads(content)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    database_url = os.environ["DATABASE_URL"] + "_stack"  # a scratch database beside the test run's own
    fresh_database(database_url)
    web_port, nginx_port = free_port(), free_port()
    env = app_env(database_url=database_url, port=web_port)
    migrate = shlex.split(compose()["services"]["migrate"]["command"])
    done = subprocess.run(migrate, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    sign_up = f"from interview.services.accounts import user_sign_up as s; s(username='alice', email='a@example.com', password='{TEST_PASSWORD}')"  # noqa: E501
    subprocess.run([sys.executable, "manage.py", "shell", "-c", sign_up], cwd=REPO, env=env, check=True)
    log = tmp_path_factory.mktemp("stack") / "gunicorn.log"
    web = subprocess.Popen(image_command(), cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while run_health_check(env).returncode != 0:
            assert web.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.5)
        with nginx_in_front(port=nginx_port, upstream_ports=[web_port], trusted_proxy=f"{TLS_PROXY}/32"):
            yield {"env": env, "nginx": nginx_port, "compose_migrate": done}
    finally:
        web.terminate()
        web.wait(timeout=30)


def test_the_image_health_check_passes_on_gunicorn_as_the_image_starts_it(stack):
    assert stack["env"]["SECURE_SSL_REDIRECT"] == "1" and stack["env"]["ALLOWED_HOSTS"] == "sevenbox.example"
    checked = run_health_check(stack["env"])
    assert checked.returncode == 0, checked.stderr


def test_the_migrate_service_loaded_the_bank_and_the_web_service_runs_the_image_command(stack):
    services = compose()["services"]
    assert "Questions:" in stack["compose_migrate"].stdout
    assert "command" not in services["web"]  # no migrations in every web start
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_https_from_the_tls_proxy_is_served_with_hsts_and_a_direct_visitor_is_redirected(stack):
    # an API page: the site's pages need the static manifest the image's build step collects
    path = "/api/questions/"
    served, _ = request(stack["nginx"], "GET", path, headers={"X-Forwarded-Proto": "https"})
    assert served.status == 200
    assert "max-age=31536000" in served.getheader("Strict-Transport-Security", "")
    forged, _ = request(
        stack["nginx"], "GET", path, source=OTHER_CLIENT, headers={"X-Forwarded-Proto": "https"}
    )
    assert forged.status == 301 and forged.getheader("Location") == f"https://sevenbox.example{path}"


def test_two_clients_behind_the_proxy_are_locked_out_separately(stack):
    first, second = (f"203.0.113.{random.randrange(1, 250)}", f"198.51.100.{random.randrange(1, 250)}")
    for _ in range(int(stack["env"]["LOGIN_FAILURE_LIMIT"])):
        assert ask_token(stack["nginx"], client=first, password="wrong-password-123")[0] == 400
    status, body = ask_token(stack["nginx"], client=first, password=TEST_PASSWORD)
    assert status == 400 and "Too many failed log-ins" in body["detail"]
    status, body = ask_token(stack["nginx"], client=second, password=TEST_PASSWORD)
    assert status == 200 and len(body["token"]) == 40


def test_a_real_request_is_served_while_1100_clients_trickle_their_bodies(stack):
    port = stack["nginx"]
    head = (
        b"POST /api/token/ HTTP/1.1\r\nHost: sevenbox.example\r\nX-Forwarded-Proto: https\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
    )
    slow = []
    try:
        for _ in range(SLOW_BODY_CLIENTS):
            connection = socket.create_connection(("127.0.0.1", port), source_address=(OTHER_CLIENT, 0))
            connection.sendall(head)
            slow.append(connection)
        time.sleep(1.0)  # nginx has read every head and waits for the bodies
        for connection in slow:
            connection.sendall(b" ")  # still sending, well inside client_body_timeout
        for _ in range(5):
            started = time.perf_counter()
            status, body = ask_token(port, client="192.0.2.10", password=TEST_PASSWORD)
            assert status == 200 and "token" in body
            assert time.perf_counter() - started < 5.0
    finally:
        for connection in slow:
            connection.close()
