"""Load: 500+ simulated candidates doing whole rounds through nginx to gunicorn and Celery, on loopback.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sevenbox_load REDIS_URL=redis://127.0.0.1:6379/12 \
        .venv/bin/python bench/load.py [--users 500] [--seconds 240] [--instances 1 2]

The driver (this file run as a script) runs one session per entry of --instances (default: one gunicorn
instance, then two), each from scratch: it recreates a scratch PostgreSQL database, loads the question bank,
creates one account and session per candidate, starts the gunicorn instances, two Celery workers (the first
with beat) and Debian's nginx with docker/nginx/ balancing the instances, and runs a bounded headless locust
session against nginx with this same file as the locustfile. Each simulated candidate repeats a
whole round: start it, open it, autosave every 5 s for --round-seconds (a number and the scratch pad change
each time), submit, then poll the report every 2 s a few times (the replays run on the worker meanwhile).
At the end it prints requests per second, p50/p95/p99 per endpoint, the error count (target 0) and lost
saves (target 0): a save the server acknowledged whose revision and text are not in the database afterwards;
saves applied twice (target 0); how many requests each instance served and whether each, asked directly,
knows the candidates' sessions; and the replay runs once the workers are done (target: all done, each claimed
by a worker once). With two sessions it prints the second's throughput against the first's. Figures go in
bench/README.md.
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
ASKED = ["kv_conv", "reload_dram_s", "convs_in_hbm", "recompute_s", "breakeven_bw"]
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
    _sent: dict[int, int] = {}  # round id -> saves sent, answered or not
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
            revision, acknowledged, sent = 0, 0, 0
            for index in range(int(float(os.environ.get(ROUND_SECONDS, "120")) / AUTOSAVE_EVERY_S)):
                gevent.sleep(AUTOSAVE_EVERY_S)
                text = f"{300 + index} KiB/tok"
                body = {
                    "revision": revision,
                    "numbers": {ASKED[index % len(ASKED)]: text},
                    "scratch": f"2 x 80 x 8 x 128 x 2 = ... try {index}",
                }
                sent += 1
                _sent[round_id] = sent
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
        Path(os.environ[RESULTS_DIR], "sent.json").write_text(json.dumps(_sent))


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
    from questions.services.question_bank import question_bank_load

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


def duplicated_saves(sent: dict[str, int]) -> int:
    """Saves applied twice: a (round, revision, field) written more than once, or a round whose revision went
    past the number of saves sent to it."""
    from django.db.models import Count

    from rounds.models import Work, WorkEvent

    twice = (
        WorkEvent.objects.values("round_id", "revision", "field")
        .annotate(rows=Count("id"))
        .filter(rows__gt=1)
    ).count()
    revisions = dict(
        Work.objects.filter(round_id__in=[int(k) for k in sent]).values_list("round_id", "revision")
    )
    return twice + sum(1 for key, count in sent.items() if revisions.get(int(key), 0) > count)


def sessions_answered(port: int, keys: list[str]) -> int:
    """How many of the sessions one instance, asked directly (not through nginx), answers as logged in."""
    import http.client

    answered = 0
    for key in keys:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/rounds/", headers={"Host": "127.0.0.1", "Cookie": f"sessionid={key}"})
        response = connection.getresponse()
        answered += response.status == 200 and b"My rounds" in response.read()
        connection.close()
    return answered


def replays_settled(timeout_s: float) -> dict[str, int]:
    """Wait for the workers to finish what was queued, then count runs by outcome and by claims."""
    from django.db.models import Count, Q

    from rounds.models import ACTIVE_STATUSES, ReplayRun, ReplayStatus

    deadline = time.monotonic() + timeout_s
    while ReplayRun.objects.filter(status__in=ACTIVE_STATUSES).exists() and time.monotonic() < deadline:
        time.sleep(2)
    return ReplayRun.objects.aggregate(
        runs=Count("id"),
        done=Count("id", filter=Q(status=ReplayStatus.DONE)),
        failed=Count("id", filter=Q(status=ReplayStatus.FAILED)),
        left_active=Count("id", filter=Q(status__in=ACTIVE_STATUSES)),
        claimed_once=Count("id", filter=Q(attempts=1)),
        claimed_more=Count("id", filter=Q(attempts__gt=1)),
    )


def access_log_lines(path: Path) -> int:
    return sum(1 for _ in path.open()) if path.exists() else 0


def load_phase(*, instances: int, args, env: dict[str, str], database_url: str, redis_url: str) -> dict:
    """One whole load session: fresh database, `instances` gunicorns and two Celery workers behind nginx."""
    from nginx_front import free_port, gunicorn_start, nginx_in_front
    from scratch_site import wait_until_serving

    if "django" in sys.modules:
        from django.db import connections

        connections.close_all()  # the database is dropped and made again
    subprocess.run(["redis-cli", "-u", redis_url, "flushdb"], check=True, capture_output=True)
    keys = prepare_database(database_url, args.users)
    work = Path(tempfile.mkdtemp(prefix=f"sevenbox-load-{instances}x-"))
    (work / "sessions.json").write_text(json.dumps(keys))
    python = sys.executable
    ports = [free_port() for _ in range(instances)]
    servers = [
        gunicorn_start(
            port=port, env=env, log=work / f"gunicorn-{port}.log", access_log=work / f"access-{port}.log"
        )
        for port in ports
    ]
    # Two workers on the one broker, both taking replays; the first also takes the upkeep queue and runs beat
    # (two beats would send each sweep twice).
    workers = [
        start(
            [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-n",
                f"w{index}@%h",
                "-c",
                "1",
                "-l",
                "warning",
                *extra,
            ],
            env,
            work / f"celery-{index}.log",
        )  # fmt: skip
        for index, extra in (
            (1, ["-Q", "celery,upkeep", "--beat", "-s", str(work / "beat-schedule")]),
            (2, ["-Q", "celery"]),
        )
    ]
    front = free_port()
    try:
        for port in ports:
            wait_until_serving(port)
        with nginx_in_front(port=front, upstream_ports=ports):
            wait_until_serving(front)
            started = time.monotonic()
            subprocess.run(
                [python, "-m", "locust", "-f", __file__, "--headless", "--only-summary",
                 "-u", str(args.users), "-r", str(args.spawn_rate), "-t", f"{args.seconds}s",
                 "--stop-timeout", "15", "--host", f"http://127.0.0.1:{front}", "--csv", str(work / "load"),
                 "--loglevel", "WARNING"],
                cwd=REPO,
                env={**env, SESSIONS_FILE: str(work / "sessions.json"), RESULTS_DIR: str(work),
                     ROUND_SECONDS: str(args.round_seconds)},
                check=False,
            )  # fmt: skip
            elapsed = time.monotonic() - started
        served = {port: access_log_lines(work / f"access-{port}.log") for port in ports}
        sample = keys[:50]
        sessions = {port: sessions_answered(port, sample) for port in ports}
        replays = replays_settled(timeout_s=300)
    finally:
        for process in (*servers, *workers):
            process.terminate()
        for process in (*servers, *workers):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    acknowledged = json.loads((work / "acknowledged.json").read_text())
    checked, lost = lost_saves(acknowledged)
    return {
        "instances": instances,
        "elapsed": elapsed,
        "rows": list(csv.DictReader((work / "load_stats.csv").open())),
        "checked": checked,
        "lost": lost,
        "duplicated": duplicated_saves(json.loads((work / "sent.json").read_text())),
        "sessions": sessions,
        "sample": len(sample),
        "served": served,
        "replays": replays,
        "work": work,
    }


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def lost_saves(acknowledged: dict[str, dict]) -> tuple[int, int]:
    """(acknowledged saves, lost): a round's last acknowledged revision and text must be in the database."""
    from rounds.models import Work, WorkEvent

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


def print_phase(phase: dict, users: int) -> None:
    instances = phase["instances"]
    print(
        f"\n{users} simulated candidates, {phase['elapsed']:.0f} s, through nginx to {instances} gunicorn "
        f"instance{'s' if instances > 1 else ''} (config/gunicorn.py each), two Celery workers -c 1"
    )
    columns = ("requests", "errors", "req/s", "p50 ms", "p95 ms", "p99 ms")
    print(f"{'endpoint':40}", " ".join(f"{column:>8}" for column in columns))
    for row in phase["rows"]:
        name = row["Name"] if row["Name"] != "Aggregated" else "all"
        print(
            f"{name:40} {row['Request Count']:>8} {row['Failure Count']:>8} {float(row['Requests/s']):8.1f} "
            f"{row['50%']:>8} {row['95%']:>8} {row['99%']:>8}"
        )
    errors = sum(int(row["Failure Count"]) for row in phase["rows"] if row["Name"] != "Aggregated")
    print(f"errors: {errors} (target 0)")
    print(f"saves acknowledged in rounds checked: {phase['checked']}, lost: {phase['lost']} (target 0)")
    print(f"saves applied twice: {phase['duplicated']} (target 0)")
    served = ", ".join(f"{count} requests on :{port}" for port, count in phase["served"].items())
    print(f"served: {served}")
    sessions = ", ".join(f":{port} {count}" for port, count in phase["sessions"].items())
    print(f"sessions answered as logged in, of {phase['sample']} asked on each instance directly: {sessions}")
    replays = phase["replays"]
    print(
        f"replay runs: {replays['runs']}, done {replays['done']}, failed {replays['failed']}, "
        f"still queued or running {replays['left_active']}; claimed once {replays['claimed_once']}, "
        f"more than once {replays['claimed_more']} (target: all done, each claimed once)"
    )
    print(f"logs and CSV files: {phase['work']}")


def total_rate(phase: dict) -> float:
    return next(float(row["Requests/s"]) for row in phase["rows"] if row["Name"] == "Aggregated")


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=240, help="length of the locust session")
    parser.add_argument("--spawn-rate", type=float, default=10.0, help="candidates started per second")
    parser.add_argument("--round-seconds", type=int, default=120, help="autosaving time of each round")
    parser.add_argument(
        "--instances",
        type=int,
        nargs="+",
        default=[1, 2],
        help="gunicorn instances behind nginx, one session each, in this order (default: 1 then 2)",
    )
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sevenbox_load")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12")
    if not database_url.startswith("postgres"):
        raise SystemExit("set DATABASE_URL to a scratch PostgreSQL database")
    from nginx_front import production_env

    env = production_env(DATABASE_URL=database_url, REDIS_URL=redis_url, SECRET_KEY="load-" + "x" * 40)
    os.environ.update(env)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True
    )
    phases = [
        load_phase(instances=count, args=args, env=env, database_url=database_url, redis_url=redis_url)
        for count in args.instances
    ]
    for phase in phases:
        print_phase(phase, args.users)
    if len(phases) > 1:
        base = total_rate(phases[0])
        ratios = ", ".join(
            f"{phase['instances']} instances {total_rate(phase) / base:.2f}" for phase in phases[1:]
        )
        print(f"\nthroughput against {phases[0]['instances']} instance(s), same run: {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
