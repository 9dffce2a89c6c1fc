"""Load: 500+ simulated candidates doing whole rounds against gunicorn with a real Celery worker, on loopback.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sevenbox_load REDIS_URL=redis://127.0.0.1:6379/12 \
        .venv/bin/python bench/load.py [--users 500] [--seconds 150]

The driver (this file run as a script) recreates a scratch PostgreSQL database, loads the question bank,
creates one account and session per candidate, starts gunicorn and a Celery worker (with beat), and runs a
bounded headless locust session with this same file as the locustfile. Each simulated candidate repeats a
whole round: start it, open it, autosave every 5 s for --round-seconds (a number and the scratch pad change
each time), submit, then poll the report every 2 s a few times (the replays run on the worker meanwhile).
At the end it prints requests per second, p50/p95/p99 per endpoint, the error count (target 0) and lost
saves (target 0): a save the server acknowledged whose revision and text are not in the database afterwards.
Figures go in bench/README.md.
"""

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUESTION = "kv-cache-tiering"
ASKED = ["kv_bytes_per_token", "kv_conv", "convs_in_hbm", "recompute_s", "breakeven_bw"]
CSRF_TOKEN = "c" * 32
AUTOSAVE_EVERY_S = 5.0
ROUND_SECONDS = "LOAD_ROUND_SECONDS"  # how long each simulated round autosaves before it is submitted
REPORT_POLLS = 3
SESSIONS_FILE = "LOAD_SESSIONS_FILE"
RESULTS_DIR = "LOAD_RESULTS_DIR"


# The locustfile: locust imports this module under its own name, so these classes exist only then.

if __name__ != "__main__":
    import gevent
    from locust import HttpUser, events, task
    from locust.exception import StopUser

    _sessions: list[str] = (
        json.loads(Path(os.environ[SESSIONS_FILE]).read_text()) if SESSIONS_FILE in os.environ else []
    )
    _acknowledged: dict[int, dict] = {}  # round id -> {"revision": n, "text": last acknowledged text}
    _next_candidate = iter(range(len(_sessions)))

    class Candidate(HttpUser):
        def on_start(self) -> None:
            try:
                self.session_key = _sessions[next(_next_candidate)]
            except StopIteration:
                raise StopUser() from None
            self.client.cookies.set("sessionid", self.session_key)
            self.client.cookies.set("csrftoken", CSRF_TOKEN)
            self.headers = {"X-CSRFToken": CSRF_TOKEN, "Referer": self.host + "/"}
            self.rounds = 0

        @task
        def whole_round(self) -> None:
            self.rounds += 1
            with self.client.post(
                f"/questions/{QUESTION}/rounds/start/",
                data={"mode": "practice"},
                headers=self.headers,
                allow_redirects=False,
                name="POST /questions/[slug]/rounds/start/",
                catch_response=True,
            ) as response:
                found = re.search(r"/rounds/(\d+)/$", response.headers.get("Location", ""))
                if response.status_code != 302 or not found:
                    response.failure(f"start: {response.status_code}")
                    return
                response.success()
            round_id = int(found.group(1))
            self.client.get(f"/rounds/{round_id}/", name="GET /rounds/[id]/")
            revision, acknowledged = 0, 0
            for index in range(int(float(os.environ.get(ROUND_SECONDS, "120")) / AUTOSAVE_EVERY_S)):
                gevent.sleep(AUTOSAVE_EVERY_S)
                text = f"{300 + index} KiB/tok"
                body = {
                    "revision": revision,
                    "numbers": {ASKED[index % len(ASKED)]: text},
                    "scratch": f"2 x 80 x 8 x 128 x 2 = ... try {index}",
                }
                with self.client.post(
                    f"/rounds/{round_id}/save/",
                    json=body,
                    headers=self.headers,
                    name="POST /rounds/[id]/save/",
                    catch_response=True,
                ) as response:
                    if response.status_code != 200:
                        response.failure(f"save: {response.status_code} {response.text[:120]}")
                        continue
                    revision = response.json()["revision"]
                    acknowledged += 1
                    _acknowledged[round_id] = {
                        "revision": revision,
                        "field": body["numbers"],
                        "count": acknowledged,
                    }
            self.client.post(
                f"/rounds/{round_id}/submit/",
                headers=self.headers,
                allow_redirects=False,
                name="POST /rounds/[id]/submit/",
            )
            for _ in range(REPORT_POLLS):
                self.client.get(f"/rounds/{round_id}/report/", name="GET /rounds/[id]/report/")
                gevent.sleep(2.0)

    @events.test_stop.add_listener
    def _write_acknowledged(environment, **_kwargs) -> None:
        Path(os.environ[RESULTS_DIR], "acknowledged.json").write_text(json.dumps(_acknowledged))


# The driver (bench/ is on the path only when this file runs as a script, not as locust's locustfile).


def prepare_database(database_url: str, users: int) -> list[str]:
    """A fresh scratch database with the bank loaded and one logged-in session per candidate."""
    from scratch_site import candidate_session, fresh_database

    fresh_database(database_url)
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from interview.services.accounts import user_sign_up
    from interview.services.questions import question_bank_load

    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), "the load session needs PostgreSQL"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # accounts only, never used
    call_command("migrate", "--noinput", verbosity=0)
    question_bank_load()
    keys = []
    for index in range(users):
        user = user_sign_up(
            username=f"load{index}", email=f"load{index}@example.com", password="load-pass-123456"
        )
        keys.append(candidate_session(user))
    return keys


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def lost_saves(acknowledged: dict[str, dict]) -> tuple[int, int]:
    """(acknowledged saves, lost): a round's last acknowledged revision and text must be in the database."""
    from designs.models import Work, WorkEvent

    checked = lost = 0
    works = {work.round_id: work for work in Work.objects.filter(round_id__in=[int(k) for k in acknowledged])}
    for key, seen in acknowledged.items():
        round_id = int(key)
        work = works.get(round_id)
        checked += seen["count"]
        ((field, text),) = seen["field"].items()
        event = WorkEvent.objects.filter(
            round_id=round_id, revision=seen["revision"], field=f"numbers.{field}"
        )
        kept = work is not None and work.revision >= seen["revision"] and work.numbers.get(field) == text
        if not (kept and event.filter(value=text).exists()):
            lost += 1
    return checked, lost


def print_figures(stats_csv: Path, seconds: float, users: int, checked: int, lost: int) -> None:
    rows = list(csv.DictReader(stats_csv.open()))
    print(
        f"\n{users} simulated candidates, {seconds:.0f} s, gunicorn as config/gunicorn.py, Celery worker -c 1"
    )
    columns = ("requests", "errors", "req/s", "p50 ms", "p95 ms", "p99 ms")
    print(f"{'endpoint':40}", " ".join(f"{column:>8}" for column in columns))
    for row in rows:
        name = row["Name"] if row["Name"] != "Aggregated" else "all"
        print(
            f"{name:40} {row['Request Count']:>8} {row['Failure Count']:>8} {float(row['Requests/s']):8.1f} "
            f"{row['50%']:>8} {row['95%']:>8} {row['99%']:>8}"
        )
    errors = sum(int(row["Failure Count"]) for row in rows if row["Name"] != "Aggregated")
    print(f"errors: {errors} (target 0)")
    print(f"saves acknowledged in rounds checked: {checked}, lost: {lost} (target 0)")


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=240, help="length of the locust session")
    parser.add_argument("--spawn-rate", type=float, default=10.0, help="candidates started per second")
    parser.add_argument("--round-seconds", type=int, default=120, help="autosaving time of each round")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sevenbox_load")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12")
    if not database_url.startswith("postgres"):
        raise SystemExit("set DATABASE_URL to a scratch PostgreSQL database")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DEBUG": "0",
        "SECRET_KEY": "load-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    os.environ.update(env)
    subprocess.run(["redis-cli", "-u", redis_url, "flushdb"], check=True, capture_output=True)
    keys = prepare_database(database_url, args.users)
    work = Path(tempfile.mkdtemp(prefix="sevenbox-load-"))
    (work / "sessions.json").write_text(json.dumps(keys))
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True
    )
    python = sys.executable
    gunicorn = [python, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application",
                "--bind", f"127.0.0.1:{args.port}", "--log-level", "warning"]  # fmt: skip
    worker = [python, "-m", "celery", "-A", "config", "worker", "--beat", "-c", "1", "-l", "warning",
              "-s", str(work / "beat-schedule")]  # fmt: skip
    server = start(gunicorn, env, work / "gunicorn.log")
    celery = start(worker, env, work / "celery.log")
    try:
        from scratch_site import wait_until_serving

        wait_until_serving(args.port)
        started = time.monotonic()
        subprocess.run(
            [python, "-m", "locust", "-f", __file__, "--headless", "--only-summary",
             "-u", str(args.users), "-r", str(args.spawn_rate), "-t", f"{args.seconds}s",
             "--stop-timeout", "15", "--host", f"http://127.0.0.1:{args.port}", "--csv", str(work / "load"),
             "--loglevel", "WARNING"],
            cwd=REPO,
            env={
                **env,
                SESSIONS_FILE: str(work / "sessions.json"),
                RESULTS_DIR: str(work),
                ROUND_SECONDS: str(args.round_seconds),
            },
            check=False,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    finally:
        for process in (server, celery):
            process.terminate()
        for process in (server, celery):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    acknowledged = json.loads((work / "acknowledged.json").read_text())
    checked, lost = lost_saves(acknowledged)
    print_figures(work / "load_stats.csv", elapsed, args.users, checked, lost)
    print(f"logs and CSV files: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
