"""Autosave under gunicorn on loopback: throughput against a trivial view, p95 at 200 req/s, no save lost.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sevenbox_bench .venv/bin/python bench/autosave.py

Needs wrk (`make bench-tools`). Starts gunicorn on 127.0.0.1 with the project's settings (config/gunicorn.py)
against a scratch PostgreSQL database (dropped and recreated), creates candidates with timed rounds, then:
1. after a warm-up, closed loop with wrk (16 connections, one candidate each): requests/s of `GET /ping` (a
   trivial view) and of `POST /rounds/N/save/`, in alternating windows (ping, save, ping, save, ...) so that
   drift in the shared machine's speed falls on both; prints the medians and their ratio (target >= 0.5);
2. open loop at 200 requests/s of saves from Python threads: p50/p95/p99 latency (target p95 <= 50 ms);
3. checks every round's revision equals its acknowledged saves, with one event per save (no save lost or
   duplicated).
Everything stays on loopback and stops by itself.
"""

import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from scratch_site import candidate_session, fresh_database, wait_until_serving

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PORT = int(os.environ.get("BENCH_PORT", "8765"))
DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sevenbox_bench")
WRK_CONNECTIONS = 16
WRK_SCRIPT = Path(__file__).with_name("autosave_wrk.lua")
WARM_UP_SECONDS = 2.0
CLOSED_LOOP_WINDOWS = 5
CLOSED_LOOP_SECONDS = 3.0
OPEN_LOOP_RATE = 200
OPEN_LOOP_SECONDS = 10.0
CANDIDATES = 64


def prepare_database() -> list[tuple[str, int]]:
    """Fresh schema, one question, a timed round per candidate; returns (session key, round id) pairs."""
    os.environ.update(
        DATABASE_URL=DATABASE_URL, DEBUG="0", SECRET_KEY="bench-" + "x" * 40, ALLOWED_HOSTS="127.0.0.1"
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    fresh_database(DATABASE_URL)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from interview.models import Question
    from interview.services.accounts import user_sign_up
    from interview.services.questions import question_bank_load
    from interview.services.rounds import round_start

    call_command("migrate", "--noinput", verbosity=0)
    question_bank_load()
    question = Question.objects.get(slug="kv-cache-tiering")
    sessions = []
    for index in range(CANDIDATES):
        user = user_sign_up(
            username=f"bench{index}", email=f"bench{index}@example.com", password="bench-pass-123456"
        )
        round_ = round_start(candidate=user, question=question, mode="timed")
        sessions.append((candidate_session(user), round_.pk))
    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), "the benchmark needs PostgreSQL"
    return sessions


def start_gunicorn() -> subprocess.Popen:
    """The project's own server settings (config/gunicorn.py); BENCH_WORKERS / BENCH_THREADS try others."""
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
    """One browser tab: a session, a round, the revision its saves are based on, and a CSRF token."""

    def __init__(self, session_key: str, round_id: int) -> None:
        self.session_key = session_key
        self.round_id = round_id
        self.revision = 0
        self.acknowledged = 0
        self.unanswered = 0  # sent, landed, but the client stopped before reading the answer
        self.lock = threading.Lock()

    def headers(self) -> dict[str, str]:
        return {
            "Cookie": f"sessionid={self.session_key}; csrftoken={CSRF_TOKEN}",
            "X-CSRFToken": CSRF_TOKEN,
            "Content-Type": "application/json",
            "Host": "127.0.0.1",
        }


CSRF_TOKEN = "b" * 32


def save_once(connection: http.client.HTTPConnection, candidate: Candidate) -> tuple[int, float]:
    with candidate.lock:
        body = json.dumps({"revision": candidate.revision, "scratch": f"note {candidate.revision + 1}"})
        started = time.perf_counter()
        connection.request(
            "POST", f"/rounds/{candidate.round_id}/save/", body=body, headers=candidate.headers()
        )
        response = connection.getresponse()
        payload = response.read()
        elapsed = time.perf_counter() - started
        if response.status == 200:
            candidate.revision = json.loads(payload)["revision"]
            candidate.acknowledged += 1
        return response.status, elapsed


def wrk(url_path: str, seconds: float, script: Path | None = None) -> tuple[float, int, str]:
    """wrk's requests/s, its non-2xx answers and its output, for WRK_CONNECTIONS connections."""
    command = [
        "wrk",
        f"-t{WRK_CONNECTIONS}",
        f"-c{WRK_CONNECTIONS}",
        f"-d{seconds:g}s",
        "-H",
        "Host: 127.0.0.1",
    ]
    if script is not None:
        command += ["-s", str(script)]
    output = subprocess.run(
        [*command, f"http://127.0.0.1:{PORT}{url_path}"], capture_output=True, text=True, check=True
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, int(errors[1]) if errors else 0, output


def wrk_pings(seconds: float) -> tuple[float, int]:
    rate, errors, _ = wrk("/ping", seconds)
    return rate, errors


def wrk_saves(candidates: list["Candidate"], seconds: float, scratch: Path) -> tuple[float, int]:
    """Saves from the first WRK_CONNECTIONS candidates, each carrying its revision; what each acknowledged is
    brought back from wrk's report. wrk stops with one save per connection in flight and never reads its
    answer: such a save can still land, unanswered, and is counted as that."""
    mine = candidates[:WRK_CONNECTIONS]
    listed = ", ".join(f'{{"{c.session_key}", {c.round_id}, {c.revision}}}' for c in mine)
    prelude = f'CSRF_TOKEN = "{CSRF_TOKEN}"\nCANDIDATES = {{{listed}}}\n'
    scratch.write_text(prelude + WRK_SCRIPT.read_text())
    rate, errors, output = wrk("/", seconds, scratch)
    by_round = {c.round_id: c for c in mine}
    for round_id, acknowledged, revision in re.findall(r"^candidate (\d+) (\d+) (\d+)$", output, re.M):
        candidate = by_round[int(round_id)]
        candidate.acknowledged += int(acknowledged)
        candidate.revision = int(revision)
    time.sleep(0.5)  # the abandoned saves finish on the server
    for candidate in mine:
        stored = stored_revision(candidate.round_id)
        candidate.unanswered += stored - candidate.revision
        candidate.revision = stored
    return rate, errors


def stored_revision(round_id: int) -> int:
    from designs.models import Work

    return Work.objects.get(round_id=round_id).revision


def open_loop(candidates: list[Candidate]) -> tuple[list[float], int]:
    """Saves at OPEN_LOOP_RATE per second from a pool of threads; returns latencies and errors."""
    total = int(OPEN_LOOP_RATE * OPEN_LOOP_SECONDS)
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    next_index = [0]
    started = time.monotonic()

    def run() -> None:
        connection = Connection("127.0.0.1", PORT, timeout=10)
        while True:
            with lock:
                index = next_index[0]
                next_index[0] += 1
            if index >= total:
                return
            delay = started + index / OPEN_LOOP_RATE - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            status, elapsed = save_once(connection, candidates[index % len(candidates)])
            with lock:
                latencies.append(elapsed)
                errors[0] += status != 200

    threads = [threading.Thread(target=run) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def check_no_save_lost(candidates: list[Candidate]) -> tuple[int, int]:
    """Every acknowledged save is stored once: revision = acknowledged + unanswered; one event per save."""
    from designs.models import Work, WorkEvent

    lost = duplicated = 0
    for candidate in candidates:
        revision = Work.objects.get(round_id=candidate.round_id).revision
        events = WorkEvent.objects.filter(round_id=candidate.round_id).count()
        expected = candidate.acknowledged + candidate.unanswered
        lost += max(0, expected - revision)
        duplicated += max(0, revision - expected) + max(0, events - revision)
    return lost, duplicated


def main() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("bench/autosave.py drives the server with wrk: make bench-tools (Debian's wrk)")
    sessions = prepare_database()
    candidates = [Candidate(key, round_id) for key, round_id in sessions]
    server = start_gunicorn()
    scratch = Path(tempfile.mkdtemp(prefix="sevenbox-autosave-")) / "saves.lua"
    try:
        # Warm-up, not counted: first requests import views lazily and open database connections.
        wrk_pings(WARM_UP_SECONDS)
        wrk_saves(candidates, WARM_UP_SECONDS, scratch)
        ping_rates, save_rates, ping_errors, save_errors = [], [], 0, 0
        for _ in range(CLOSED_LOOP_WINDOWS):
            rate, errors = wrk_pings(CLOSED_LOOP_SECONDS)
            ping_rates.append(rate)
            ping_errors += errors
            rate, errors = wrk_saves(candidates, CLOSED_LOOP_SECONDS, scratch)
            save_rates.append(rate)
            save_errors += errors
        latencies, open_errors = open_loop(candidates)
    finally:
        server.terminate()
        server.wait(timeout=20)
    lost, duplicated = check_no_save_lost(candidates)
    ping_rate, save_rate = statistics.median(ping_rates), statistics.median(save_rates)
    windows = f"wrk, {WRK_CONNECTIONS} connections; median of {CLOSED_LOOP_WINDOWS} alternating"
    windows += f" {CLOSED_LOOP_SECONDS:.0f} s windows"
    print(f"trivial view (GET /ping):     {ping_rate:8.0f} req/s  errors {ping_errors}  ({windows})")
    print(f"    windows: {', '.join(f'{rate:.0f}' for rate in ping_rates)}")
    print(f"autosave (POST .../save/):     {save_rate:8.0f} req/s  errors {save_errors}")
    print(f"    windows: {', '.join(f'{rate:.0f}' for rate in save_rates)}")
    print(f"ratio autosave / trivial:      {save_rate / ping_rate:8.2f}   (target >= 0.5)")
    p50, p95, p99 = (percentile(latencies, p) * 1000 for p in (50, 95, 99))
    print(f"open loop {OPEN_LOOP_RATE} req/s for {OPEN_LOOP_SECONDS:.0f} s: p50 {p50:.1f} ms, ")
    print(f"    p95 {p95:.1f} ms (target <= 50 ms), p99 {p99:.1f} ms, errors {open_errors}")
    acknowledged = sum(c.acknowledged for c in candidates)
    unanswered = sum(c.unanswered for c in candidates)
    print(f"saves acknowledged {acknowledged} (+{unanswered} landed after wrk stopped reading), lost {lost},")
    print(f"    duplicated {duplicated} (target 0)")


if __name__ == "__main__":
    main()
