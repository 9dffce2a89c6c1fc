"""One submission's replays as `make run` runs them: the time from submit to every replay done.

The embedded default (an SQLite database, here a scratch one in a temporary folder; kombu's filesystem broker
in the tree's var/celery, as `make run` has it) and the one Celery worker `make run` starts
(`config.devrun.worker_command`: two processes, one seed thread each on two cores, the fair queue's two runs
of a candidate at a time). Per repeat, two practice rounds on the question, each started, left until the
worker has simulated its reference's replays (sent when the round starts), then submitted with the
candidate's numbers (CANDIDATE_NUMBERS: a fleet a little larger than the reference's, so the candidate's side
is simulated); the second round's kept results are deleted first (cold: the submit simulates both sides).
Timed: from the submit's call to the last run's `finished_at`, after one untimed submission in which both
worker processes load the compiled loop (as a running `make run` worker has).

Run: `.venv/bin/python bench/replay_submit.py [--slug rag-at-10k-qps] [--repeats 3]` (bench/replay.py runs
it). Not beside `make run` on the same tree: both workers would read the same broker folders.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

CANDIDATE_NUMBERS = {"rag-at-10k-qps": {"llm_nodes": "64"}}  # the reference sizes 60 nodes
WAIT_S = 600.0


def wait(predicate, what: str, timeout_s: float = WAIT_S, interval_s: float = 0.05):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval_s)
    raise SystemExit(f"timed out waiting for {what}")


def one_submission(user, question, numbers: dict[str, str], *, cold: bool) -> tuple[float, list[str]]:
    """Start a round, wait for its kept reference results, submit; seconds from submit to all runs done."""
    from rounds.models import FINISHED_STATUSES, ReplayResult, ReplayRun, ReplayStatus, Work
    from rounds.services.rounds import round_start, round_submit

    scenarios = len(question.current_version.spec.get("scenarios") or [])
    ReplayResult.objects.all().delete()
    round_ = round_start(candidate=user, question=question, mode="practice")
    wait(lambda: ReplayResult.objects.count() == scenarios, "the reference's replays to be kept")
    if cold:
        ReplayResult.objects.all().delete()
    Work.objects.filter(round=round_).update(numbers=numbers)
    runs = ReplayRun.objects.filter(round=round_)
    started = time.time()
    round_submit(round_id=round_.pk)
    wait(
        lambda: runs.count() == 2 * scenarios and not runs.exclude(status__in=FINISHED_STATUSES).exists(),
        "the submission's replays to finish",
    )
    if runs.exclude(status=ReplayStatus.DONE).exists():
        raise SystemExit(f"a replay did not finish: {list(runs.values_list('status', 'error'))}")
    finished = max(run.finished_at for run in runs).timestamp()
    spans = [
        f"{run.side} {run.scenario} {run.finished_at.timestamp() - started:.1f}"
        for run in runs.order_by("finished_at")
    ]
    return finished - started, spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slug", default="rag-at-10k-qps")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="sevenbox-replay-submit-"))
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env |= {"DATABASE_URL": f"sqlite:///{scratch / 'bench.sqlite3'}", "DEBUG": "1"}
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / "var" / "numba-cache"))  # as `make run`
    os.environ.clear()
    os.environ.update(env)
    for command in (["migrate", "--noinput", "-v", "0"], ["load_questions"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, check=True, capture_output=True)
    import django

    django.setup()
    from config.celery import ensure_embedded_broker_folders
    from config.devrun import worker_command
    from interview.services.accounts import user_sign_up
    from questions.models import Question

    ensure_embedded_broker_folders()
    user = user_sign_up(username="bench", email="bench@example.com", password="bench-replay-submit-0")
    question = Question.objects.get(slug=args.slug)
    numbers = CANDIDATE_NUMBERS.get(args.slug, {})
    log = (scratch / "worker.log").open("ab")
    worker = subprocess.Popen(
        worker_command(), cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True
    )
    times: dict[str, list[float]] = {"cached": [], "cold": []}
    try:
        # untimed: both processes' first replays load the compiled loop (or compile it, after a change)
        seconds, _ = one_submission(user, question, numbers, cold=True)
        print(f"  warm-up (not counted): {seconds:.1f} s", flush=True)
        for _ in range(args.repeats):
            for kind in times:
                seconds, spans = one_submission(user, question, numbers, cold=kind == "cold")
                times[kind].append(seconds)
                print(f"  {kind}: {seconds:.1f} s ({'; '.join(spans)})", flush=True)
    finally:
        worker.terminate()  # the main process, as config.devrun stops it; then whatever is left
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=20)
    shutil.rmtree(scratch, ignore_errors=True)  # kept when something failed: its worker.log says what
    cpus = len(os.sched_getaffinity(0))
    reference = {"cached": "kept from the round's start", "cold": "simulated at submit"}
    for kind, runs in times.items():
        median = statistics.median(runs)
        print(
            f"submit to all replays done, {args.slug}, make run's worker (embedded default, 2 processes on "
            f"{cpus} CPUs, load {os.getloadavg()[0]:.1f}), the reference {reference[kind]}: median "
            f"{median:.1f} s, runs "
            + ", ".join(f"{t:.1f}" for t in runs)
            + f" (target ≤ 10 s: {'met' if median <= 10 else 'missed'})",
            flush=True,
        )


if __name__ == "__main__":
    main()
