"""The health sweep is never stuck behind a backlog of replays (issue 34: a killed run was requeued after
218 s, not 75 s, while the sweep queued behind 16 minutes of one candidate's runs).

Two worker processes started with docker/compose.yaml's own `worker` and `upkeep` commands (the upkeep one
with its beat) on the test's PostgreSQL database and Redis broker. One candidate's slow runs fill every replay
slot, the rest of the backlog waiting its turn; another candidate's run has lost its worker (its heartbeat
stopped a minute ago). The sweep beat sends every 15 s must requeue it within one period, while the backlog's
first runs still hold both replay slots: it never needed one. Routed to the replay queue, the sweep waits
until one of those runs ends (minutes) and the test fails.
"""

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.apps import apps
from django.conf import settings
from django.utils import timezone

if apps.ready:  # the pure grading run (-p no:django) still collects this module
    from config.celery import app as celery_app
    from rounds.models import ReplayRun, ReplayStatus
    from rounds.services import replays
    from rounds.services.replays import replay_cancel, replays_dispatch
from tests.conftest import USES_POSTGRES, USES_REDIS
from tests.rounds.replay_fixtures import load_question, slow_run, submitted_round, worker_environment
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yaml"
BACKLOG = 6
# Each run: 5 seeds (the product's default) of 20,000 simulated seconds, about a minute or more of work, so
# the backlog's first two runs still hold both replay slots well after the sweep's promised time.
SEEDS, DURATION_S = 5, 20_000
SLACK_S = 10  # a loaded test machine: the worker's poll, the task's start, this test's own poll


def compose_command(service: str, tmp_path: Path) -> list[str]:
    """The service's command as compose runs it, with this venv's Celery, a beat schedule file of the test's
    own and a node name of its own (the broker's Redis database is the test's)."""
    words = shlex.split(yaml.safe_load(COMPOSE.read_text())["services"][service]["command"])
    assert words[0] == "celery", words
    if "--schedule" in words:
        words[words.index("--schedule") + 1] = str(tmp_path / "celerybeat-schedule")
    return [sys.executable, "-m", *words, "-n", f"{service}-{uuid.uuid4().hex[:6]}@%h"]


def queues_of(command: list[str]) -> set[str]:
    return set(command[command.index("-Q") + 1].split(","))


def purge(*queues: str) -> None:
    with celery_app.connection_for_write() as connection:
        for queue in queues:
            connection.default_channel.queue_purge(queue)


def stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGTERM)  # warm shutdown: the cancelled runs stop at their next report
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=30)


@pytest.mark.celery_worker
@pytest.mark.serial  # its worker processes read the suite's Redis keys, and it purges the queues
@pytest.mark.skipif(not (USES_POSTGRES and USES_REDIS), reason="worker processes need PostgreSQL and Redis")
def test_the_sweep_requeues_a_lost_run_within_its_period_while_one_candidates_backlog_fills_the_replays(
    transactional_db, alice, charlie, tmp_path
):
    replay_command, upkeep_command = compose_command("worker", tmp_path), compose_command("upkeep", tmp_path)
    replay_queue, upkeep_queue = settings.REPLAY_QUEUE_NAME, settings.UPKEEP_QUEUE
    assert queues_of(replay_command) == {replay_queue} and queues_of(upkeep_command) == {upkeep_queue}
    assert "--beat" in upkeep_command
    sweep_every_s = settings.CELERY_BEAT_SCHEDULE["sweep-replays"]["schedule"]
    purge(replay_queue, upkeep_queue)

    question = load_question(tmp_path)
    heavy = submitted_round(alice, question)
    backlog = [slow_run(heavy, duration_s=DURATION_S, scenario=f"heavy-{index}") for index in range(BACKLOG)]
    lost = slow_run(submitted_round(charlie, question), duration_s=60, scenario="lost")
    # Charlie's run is running on a worker (one that will be killed): claimed, its heartbeat fresh for now.
    started = timezone.now()
    ReplayRun.objects.filter(pk=lost.pk).update(
        status=ReplayStatus.RUNNING, claim=uuid.uuid4(), attempts=1, sent_at=started, claimed_at=started
    )
    env = worker_environment(replay_seeds=SEEDS)
    logs = {name: tmp_path / f"{name}.log" for name in ("worker", "upkeep")}
    workers = [
        subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        for command, log in (
            (replay_command, logs["worker"].open("ab")),
            (upkeep_command, logs["upkeep"].open("ab")),
        )
    ]

    def wait(predicate, *, timeout_s: float, what: str, log: str) -> None:
        try:
            wait_for(predicate, timeout_s=timeout_s, interval_s=0.2, what=what)
        except AssertionError as error:
            raise AssertionError(
                f"{error}; {log} log: {logs[log].read_text(errors='replace')[-3000:]}"
            ) from None

    try:
        assert replays_dispatch(candidate_ids=[alice.pk])["sent"] == replays.RUNS_IN_FLIGHT_PER_CANDIDATE == 2
        holding = ReplayRun.objects.filter(pk__in=[run.pk for run in backlog[:2]])
        wait(
            lambda: holding.filter(status=ReplayStatus.RUNNING, progress__gt=0).count() == 2,
            timeout_s=120,
            what="alice's first two runs to fill both replay slots",
            log="worker",
        )
        wait(
            lambda: " ready." in logs["upkeep"].read_text(),
            timeout_s=60,
            what="the upkeep worker",
            log="upkeep",
        )
        # Its worker was lost: the last heartbeat was STALE_AFTER_S ago, so from now the run counts as lost.
        went_stale = timezone.now()
        ReplayRun.objects.filter(pk=lost.pk).update(
            heartbeat_at=went_stale - timedelta(seconds=replays.STALE_AFTER_S)
        )
        wait(
            lambda: ReplayRun.objects.filter(pk=lost.pk).exclude(status=ReplayStatus.RUNNING).exists(),
            timeout_s=sweep_every_s + SLACK_S,
            what="the sweep to requeue the lost run",
            log="upkeep",
        )
        # Requeued within the design's promise (stale after 60 s, swept every 15 s: 75 s after its last
        # heartbeat), while the backlog is still there: the same two runs hold both replay slots, the others
        # wait.
        lost.refresh_from_db()
        assert lost.status == ReplayStatus.QUEUED and lost.claim is None and "lost" in lost.note, lost.note
        assert holding.filter(status=ReplayStatus.RUNNING).count() == 2, list(holding.values("status"))
        waiting = ReplayRun.objects.filter(pk__in=[run.pk for run in backlog[2:]], status=ReplayStatus.QUEUED)
        assert waiting.count() == BACKLOG - 2 and not waiting.filter(claimed_at__isnull=False).exists()
    finally:
        for run in ReplayRun.objects.filter(status__in=[ReplayStatus.QUEUED, ReplayStatus.RUNNING]):
            with contextlib.suppress(replays.ReplayError):  # it finished meanwhile
                replay_cancel(run=run)
        for worker in workers:
            stop(worker)
        purge(replay_queue, upkeep_queue)
