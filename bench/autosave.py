"""The autosave's capacity under gunicorn on this machine: the save rate the ORM path sustains with
p95 <= 50 ms, and what that means in concurrent candidates saving every 5 s, for one instance.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sevenbox_bench .venv/bin/python bench/autosave.py

Starts gunicorn on 127.0.0.1 with the project's settings (config/gunicorn.py) against a scratch PostgreSQL
database (dropped and recreated) and creates CANDIDATES candidates with a timed round each. Then it offers
saves open loop at rising rates (RATES, STEP_SECONDS each) from a pool of client
threads. Each save is the page's own request: POST /rounds/N/save/ with the revision it is based on, one
number and the scratch notes changed. A latency runs from the moment the save was due, so a client that
falls behind counts against the server, not in its favour. A rate is sustained when p95 <= 50 ms, no save
errs and the saves went out on time (at least 95 % of those due). Last, every round's revision must equal
its acknowledged saves, with one event per changed field: no save lost or duplicated. The load generator
shares the machine's cores with the server, so the figure is a floor. Everything stays on loopback.
"""

import http.client
import json
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from scratch_site import candidate_session, fresh_database, wait_until_serving

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PORT = int(os.environ.get("BENCH_PORT", "8765"))
DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sevenbox_bench")
CANDIDATES = 500
QUESTION = "kv-cache-tiering"
NUMBER = "kv_conv"
FIELDS_PER_SAVE = 2  # the number and the scratch notes
SAVE_INTERVAL_S = 5.0  # the page autosaves every 5 s
P95_TARGET_S = 0.050
WARM_UP_RATE, WARM_UP_SECONDS = 50, 3.0
RATES = (25, 50, 100, 150, 200, 300, 400, 500, 600, 800, 1_000, 1_200, 1_500, 2_000)  # saves/s, in turn
STEP_SECONDS = 8.0
CLIENT_THREADS = 64
ON_TIME_SHARE = 0.95
CSRF_TOKEN = "b" * 32


def prepare_database() -> list[tuple[str, int]]:
    """Fresh schema, the question bank, a timed round per candidate; returns (session key, round id) pairs."""
    os.environ.update(
        DATABASE_URL=DATABASE_URL, DEBUG="0", SECRET_KEY="bench-" + "x" * 40, ALLOWED_HOSTS="127.0.0.1"
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    fresh_database(DATABASE_URL)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from questions.models import Question
    from questions.services.question_bank import question_bank_load
    from rounds.services.rounds import round_start

    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), "the benchmark needs PostgreSQL"
    call_command("migrate", "--noinput", verbosity=0)
    question_bank_load()
    question = Question.objects.get(slug=QUESTION)
    sessions = []
    for index in range(CANDIDATES):
        user = get_user_model().objects.create_user(username=f"bench{index}", password=None)
        round_ = round_start(candidate=user, question=question, mode="timed")
        sessions.append((candidate_session(user), round_.pk))
    return sessions


def start_gunicorn():
    """The project's own server settings (config/gunicorn.py); BENCH_WORKERS / BENCH_THREADS try others."""
    import subprocess

    env = {**os.environ, "SECURE_SSL_REDIRECT": "0"}
    layout = [
        *(["--workers", os.environ["BENCH_WORKERS"]] if "BENCH_WORKERS" in os.environ else []),
        *(["--threads", os.environ["BENCH_THREADS"]] if "BENCH_THREADS" in os.environ else []),
    ]
    command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application",
               "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning", *layout]  # fmt: skip
    server = subprocess.Popen(command, cwd=REPO, env=env)
    try:
        wait_until_serving(PORT, timeout_s=30)
    except SystemExit:
        server.kill()
        raise
    return server


class Connection(http.client.HTTPConnection):
    """Keep-alive HTTP with Nagle off, as browsers do: http.client sends headers and body in two writes, which
    with Nagle and delayed ACKs would add ~40 ms to every POST and measure the client, not the server."""

    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Candidate:
    """One browser tab: a session, a round, the revision its saves are based on."""

    def __init__(self, session_key: str, round_id: int) -> None:
        self.round_id = round_id
        self.revision = 0
        self.acknowledged = 0
        self.lock = threading.Lock()
        self.headers = {
            "Cookie": f"sessionid={session_key}; csrftoken={CSRF_TOKEN}",
            "X-CSRFToken": CSRF_TOKEN,
            "Content-Type": "application/json",
            "Host": "127.0.0.1",
        }

    def save(self, connection: http.client.HTTPConnection) -> int:
        with self.lock:
            step = self.revision + 1
            body = {"revision": self.revision, "numbers": {NUMBER: f"{step} KiB"}, "scratch": f"note {step}"}
            connection.request("POST", f"/rounds/{self.round_id}/save/", json.dumps(body), self.headers)
            response = connection.getresponse()
            payload = response.read()
            if response.status == 200:
                self.revision = json.loads(payload)["revision"]
                self.acknowledged += 1
            return response.status


@dataclass(frozen=True)
class Step:
    rate: int
    latencies: list[float]
    errors: int
    on_time: float  # the share of due saves sent within the step

    def p(self, percent: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(round(percent / 100 * (len(ordered) - 1))))]

    @property
    def sustained(self) -> bool:
        return self.errors == 0 and self.on_time >= ON_TIME_SHARE and self.p(95) <= P95_TARGET_S


def offer(candidates: list[Candidate], rate: int, seconds: float) -> Step:
    """Saves due at `rate` per second for `seconds`, sent by a pool of threads; latency from when each was
    due."""
    total = int(rate * seconds)
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    next_index = [0]
    started = time.monotonic()
    stop_at = started + seconds + 2.0  # saves not sent by then are not on time

    def run() -> None:
        connection = Connection("127.0.0.1", PORT, timeout=10)
        while True:
            with lock:
                index = next_index[0]
                next_index[0] += 1
            due = started + index / rate
            if index >= total or time.monotonic() > stop_at:
                connection.close()
                return
            if (delay := due - time.monotonic()) > 0:
                time.sleep(delay)
            try:
                status = candidates[index % len(candidates)].save(connection)
            except OSError:
                status = 0
                connection.close()
            finished = time.monotonic()
            with lock:
                latencies.append(finished - due)
                errors[0] += status != 200

    threads = [threading.Thread(target=run) for _ in range(CLIENT_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Step(rate=rate, latencies=latencies, errors=errors[0], on_time=len(latencies) / total)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of the processes so far (gone processes count nothing)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def server_pids(server) -> tuple[list[int], list[int]]:
    """gunicorn's master and workers; the PostgreSQL backends serving the benchmark's database."""
    from django.db import connection

    workers = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = [row[0] for row in cursor.fetchall()]
    return [server.pid, *map(int, workers)], backends


def check_no_save_lost(candidates: list[Candidate]) -> tuple[int, int]:
    """Every acknowledged save is stored once: revision = acknowledged; FIELDS_PER_SAVE events per save."""
    from rounds.models import Work, WorkEvent

    lost = duplicated = 0
    for candidate in candidates:
        revision = Work.objects.get(round_id=candidate.round_id).revision
        events = WorkEvent.objects.filter(round_id=candidate.round_id).count()
        lost += max(0, candidate.acknowledged - revision)
        duplicated += max(0, revision - candidate.acknowledged) + max(0, events - FIELDS_PER_SAVE * revision)
    return lost, duplicated


def main() -> None:
    candidates = [Candidate(key, round_id) for key, round_id in prepare_database()]
    server = start_gunicorn()
    steps: list[Step] = []
    try:
        offer(candidates, WARM_UP_RATE, WARM_UP_SECONDS)  # not counted: first requests open connections
        web, database = server_pids(server)
        cpu_before = cpu_seconds(web), cpu_seconds(database)
        acknowledged_before = sum(c.acknowledged for c in candidates)
        print(f"open loop, {STEP_SECONDS:.0f} s a rate, {CLIENT_THREADS} client threads, {CANDIDATES} rounds")
        print("  offered   on time    p50 ms   p95 ms   p99 ms   errors")
        for rate in RATES:
            step = offer(candidates, rate, STEP_SECONDS)
            steps.append(step)
            print(f"  {rate:5d}/s   {step.on_time:6.0%}   {step.p(50) * 1000:7.1f}  {step.p(95) * 1000:7.1f}"
                  f"  {step.p(99) * 1000:7.1f}   {step.errors:6d}")  # fmt: skip
            if not step.sustained:
                break
        saves = sum(c.acknowledged for c in candidates) - acknowledged_before
        web_cpu = (cpu_seconds(web) - cpu_before[0]) / saves
        database_cpu = (cpu_seconds(database) - cpu_before[1]) / saves
    finally:
        server.terminate()
        server.wait(timeout=20)
    lost, duplicated = check_no_save_lost(candidates)
    sustained = max((step.rate for step in steps if step.sustained), default=0)
    concurrent = int(sustained * SAVE_INTERVAL_S)
    print(
        f"sustained: {sustained} saves/s with p95 <= {P95_TARGET_S * 1000:.0f} ms, on time and without errors"
    )
    print(f"  = {concurrent:,} concurrent candidates saving every {SAVE_INTERVAL_S:.0f} s on this instance")
    cores = os.cpu_count() or 1
    cpu = web_cpu + database_cpu
    print(f"server CPU per save: {cpu * 1000:.1f} ms (gunicorn {web_cpu * 1000:.1f}, PostgreSQL "
          f"{database_cpu * 1000:.1f}): {cores} idle cores carry ~{cores / cpu:.0f} saves/s")  # fmt: skip
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {cores} cores (other work shares them)")
    acknowledged = sum(c.acknowledged for c in candidates)
    print(f"saves acknowledged {acknowledged:,}, lost {lost}, duplicated {duplicated} (target 0)")


if __name__ == "__main__":
    main()
