"""Replay jobs: queue, claim, progress, result, cancel, the sweep, and a worker killed mid-run."""

import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.apps import apps
from django.db import transaction
from django.utils import timezone

if apps.ready:  # the pure grading run (-p no:django) still collects this module
    from config.celery import app as celery_app
    from interview.services.interviewing.engine_comparison import scorecard_compare
    from rounds.models import ReplayRun, ReplayStatus
    from rounds.services import replays
    from rounds.services.replays import (
        MAX_ATTEMPTS,
        ReplayError,
        replay_cancel,
        replay_execute,
        replay_failure_score,
        replay_retry,
        replays_enqueue_for_round,
        replays_send,
        replays_sweep,
    )
from grading.core.sim.engines import ENGINE_ENV
from tests.conftest import USES_POSTGRES, USES_REDIS
from tests.rounds.replay_fixtures import load_question, slow_run, submitted_round, worker_environment
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
NEEDS_WORKER_PROCESS = "a worker process needs the test database on PostgreSQL and Redis"


@pytest.fixture
def replay_round(alice, tmp_path):
    return submitted_round(alice, load_question(tmp_path))


@pytest.fixture(autouse=True)
def one_seed_per_run(settings):
    """These tests are about the job's life, not the seeds: one run a side keeps the slow ones short."""
    settings.REPLAY_SEEDS = 1


def test_enqueuing_creates_one_run_per_scenario_and_side_and_twice_creates_nothing_more(replay_round):
    with transaction.atomic():
        first = replays_enqueue_for_round(round_=replay_round)
    second = replays_enqueue_for_round(round_=replay_round)
    assert [(run.scenario, run.side) for run in first] == [
        ("burst-on-sixteen-replicas", "candidate"),
        ("burst-on-sixteen-replicas", "reference"),
        ("lose-two-replicas", "candidate"),
        ("lose-two-replicas", "reference"),
    ]
    assert [run.pk for run in second] == [run.pk for run in first]
    assert ReplayRun.objects.filter(round=replay_round).count() == 4


def test_both_sides_of_a_scenario_share_a_seed_from_the_round_and_the_scenario(replay_round):
    runs = replays_enqueue_for_round(round_=replay_round)
    seeds = {run.scenario: set() for run in runs}
    for run in runs:
        seeds[run.scenario].add(run.seed)
    assert all(len(values) == 1 for values in seeds.values())
    assert len({next(iter(values)) for values in seeds.values()}) == 2


def test_the_candidate_side_simulates_the_candidates_replicas_and_the_reference_side_the_models(replay_round):
    runs = {(run.scenario, run.side): run for run in replays_enqueue_for_round(round_=replay_round)}
    candidate = runs[("lose-two-replicas", "candidate")].inputs
    reference = runs[("lose-two-replicas", "reference")].inputs
    assert candidate["params"]["replicas"] == 12
    assert reference["params"]["replicas"] == 16
    assert candidate["sources"]["replicas"] == {"quantity": "replicas", "from": "candidate"}
    assert "tpot" in candidate["fallbacks"]


def test_a_scenario_whose_inputs_cannot_be_resolved_gives_failed_runs_not_an_error(replay_round, monkeypatch):
    sent = []
    monkeypatch.setattr(replays, "_publish", sent.append)
    version = replay_round.question_version
    version.spec["scenarios"][0]["params"]["replicas"] = "no_such_quantity"
    version.save()
    replay_round.refresh_from_db()
    runs = replays_enqueue_for_round(round_=replay_round)
    assert {run.status for run in runs} == {ReplayStatus.FAILED}
    assert "no_such_quantity" in runs[0].error and sent == []
    with pytest.raises(ReplayError, match="could not be worked out"):
        replay_retry(run=runs[0])


def test_a_run_executed_twice_is_claimed_once_and_keeps_one_result(replay_round, settings):
    settings.REPLAY_SEEDS = 5  # the product's default
    run = slow_run(replay_round, duration_s=300)
    assert replay_execute(run_id=run.pk) == "done"
    first = ReplayRun.objects.get(pk=run.pk)
    assert replay_execute(run_id=run.pk) == "skipped"
    again = ReplayRun.objects.get(pk=run.pk)
    assert again.status == ReplayStatus.DONE and again.attempts == 1
    assert again.result == first.result and again.finished_at == first.finished_at
    assert again.result["runs"] == 5 and len(again.result["seeds"]) == 5
    assert again.result["results"][0]["slo_checks"][0]["key"] == "ttft_p95_s"


def test_a_simulator_error_fails_the_run_with_the_message(replay_round):
    run = slow_run(replay_round, duration_s=300)
    ReplayRun.objects.filter(pk=run.pk).update(inputs={**run.inputs, "params": {"no_such_param": 1}})
    assert replay_execute(run_id=run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == ReplayStatus.FAILED and "no_such_param" in run.error and run.result is None


def test_a_cancelled_run_is_not_claimed(replay_round):
    run = slow_run(replay_round, duration_s=300)
    replay_cancel(run=run)
    assert replay_execute(run_id=run.pk) == "skipped"
    run.refresh_from_db()
    assert run.status == ReplayStatus.CANCELLED and run.result is None and run.attempts == 0


def test_a_run_cancelled_mid_simulation_stops_at_its_next_progress_report(replay_round, monkeypatch):
    run = slow_run(replay_round, duration_s=3000)
    monkeypatch.setattr(replays, "PROGRESS_INTERVAL_S", 0.0)
    calls = []
    real_write = replays._Reporter.write

    def write_then_cancel(reporter):
        calls.append(reporter.fraction)
        if len(calls) == 3:
            ReplayRun.objects.filter(pk=run.pk).update(status=ReplayStatus.CANCELLED)
        real_write(reporter)

    monkeypatch.setattr(replays._Reporter, "write", write_then_cancel)
    assert replay_execute(run_id=run.pk) == "stopped"
    run.refresh_from_db()
    assert run.status == ReplayStatus.CANCELLED and run.result is None
    assert len(calls) == 3 and calls[-1] < 0.5


def test_the_sweep_requeues_a_run_whose_heartbeat_went_stale(replay_round, monkeypatch):
    sent = []
    monkeypatch.setattr(replays, "_publish", sent.append)
    run = slow_run(replay_round, duration_s=300)
    stale = timezone.now() - timedelta(minutes=5)
    ReplayRun.objects.filter(pk=run.pk).update(
        status=ReplayStatus.RUNNING, attempts=1, claim=uuid.uuid4(), heartbeat_at=stale, sent_at=stale
    )
    assert replays_sweep() == {"requeued": 1, "failed": 0, "resent": 1, "unreachable": 0}
    run.refresh_from_db()
    assert run.status == ReplayStatus.QUEUED and run.claim is None and "lost" in run.note
    assert sent == [run.pk]


def test_the_sweep_gives_up_on_a_run_that_lost_its_worker_too_often(replay_round, monkeypatch):
    monkeypatch.setattr(replays, "_publish", lambda run_id: None)
    run = slow_run(replay_round, duration_s=300)
    ReplayRun.objects.filter(pk=run.pk).update(
        status=ReplayStatus.RUNNING, attempts=MAX_ATTEMPTS, heartbeat_at=timezone.now() - timedelta(minutes=5)
    )
    assert replays_sweep()["failed"] == 1
    run.refresh_from_db()
    assert run.status == ReplayStatus.FAILED and "lost 3 times" in run.error


def test_the_sweep_sends_waiting_runs_by_turns_and_resends_one_whose_message_was_lost(
    replay_round, monkeypatch
):
    sent = []
    monkeypatch.setattr(replays, "_publish", sent.append)
    lost, first, second = (slow_run(replay_round, scenario=name) for name in ("lost", "first", "second"))
    ReplayRun.objects.filter(pk=lost.pk).update(sent_at=timezone.now() - timedelta(seconds=50))
    assert replays_sweep()["resent"] == 2  # the lost one again, and one waiting run beside it
    assert sent == [lost.pk, first.pk]
    assert ReplayRun.objects.get(pk=second.pk).sent_at is None  # its turn comes when one of the two ends


def test_with_the_broker_down_one_send_fails_and_every_run_stays_queued_with_a_note(
    replay_round, monkeypatch
):
    tries = []

    def refuse(run_id):
        tries.append(run_id)
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(replays, "_publish", refuse)
    runs = [slow_run(replay_round, scenario=name) for name in ("a", "b", "c")]
    assert replays_send([run.pk for run in runs]) == 0
    assert tries == [runs[0].pk]  # no connection timeout paid per run
    for run in runs:
        run.refresh_from_db()
        assert (
            run.status == ReplayStatus.QUEUED and run.sent_at is None and run.note == replays.BROKER_DOWN_NOTE
        )
    monkeypatch.setattr(replays, "_publish", tries.append)
    assert replays_send([run.pk for run in runs]) == 3
    assert all(ReplayRun.objects.get(pk=run.pk).note == "" for run in runs)


def test_the_failure_score_waits_for_every_run_then_scores_against_the_reference(replay_round):
    runs = replays_enqueue_for_round(round_=replay_round)
    if any(run.status != ReplayStatus.DONE for run in runs):  # with a broker, run them here
        for run in runs:
            replay_execute(run_id=run.pk)
    first = runs[0]
    ReplayRun.objects.filter(pk=first.pk).update(status=ReplayStatus.RUNNING)
    assert replay_failure_score(replay_round) is None
    ReplayRun.objects.filter(pk=first.pk).update(status=ReplayStatus.DONE)
    score = replay_failure_score(replay_round)
    assert score is not None and 0 <= score <= 100


def test_a_check_missed_where_the_reference_meets_the_scenario_scores_nothing_and_sets_the_scorecards_level(
    replay_round,
):
    runs = {(run.scenario, run.side): run for run in replays_enqueue_for_round(round_=replay_round)}
    for (scenario, side), run in runs.items():
        passed = [True, False] if (scenario, side) == ("lose-two-replicas", "candidate") else [True, True]
        checks = [{"key": key, "passed": ok} for key, ok in zip(["a", "b"], passed, strict=True)]
        ReplayRun.objects.filter(pk=run.pk).update(
            status=ReplayStatus.DONE, result={"passed": all(passed), "slo_checks": checks}
        )
    # lose-two-replicas: the candidate misses b, which the reference meets: 0; burst: both met: 1. Mean 50.
    assert replay_failure_score(replay_round) == 50.0
    # 50 to below 75 is level 3 (docstring of interview.services.interviewing.engine_comparison).
    rows = {row["dimension"]: row for row in scorecard_compare(replay_round)}
    assert (rows["failures"]["engine_score"], rows["failures"]["engine_level"]) == (50.0, 3)
    assert rows["failures"]["engine_source"] == "replays"


@pytest.mark.celery_worker
def test_a_queued_run_goes_through_the_broker_to_a_real_worker_with_progress_and_one_result(
    replay_round, celery_worker, monkeypatch
):
    monkeypatch.setenv(ENGINE_ENV, "python")  # watched in flight: see SLOW_INPUTS
    run = slow_run(replay_round, duration_s=3000)
    with transaction.atomic():
        replays._dispatch_on_commit(replay_round.candidate_id)
    seen = []

    def finished():
        current = ReplayRun.objects.get(pk=run.pk)
        seen.append((time.monotonic(), current.status, current.progress, current.heartbeat_at))
        return current.status not in (ReplayStatus.QUEUED, ReplayStatus.RUNNING)

    wait_for(finished, timeout_s=90, interval_s=0.1, what="the run to finish")
    run.refresh_from_db()
    assert run.status == ReplayStatus.DONE, run.error
    assert run.attempts == 1 and run.progress == 1.0 and run.sent_at is not None
    assert set(run.result) >= {"seeds", "runs", "met", "checks", "figures", "results"}
    assert run.result["runs"] == 1
    assert set(run.result["results"][0]) >= {"passed", "slo_checks", "summary", "series", "narrative"}
    running = [(t, progress, beat) for t, status, progress, beat in seen if status == ReplayStatus.RUNNING]
    progresses = [progress for _, progress, _ in running]
    assert progresses == sorted(progresses) and any(0 < p < 1 for p in progresses)
    beats = sorted({beat for _, _, beat in running})
    gaps = [(b - a).total_seconds() for a, b in zip(beats, beats[1:], strict=False)]
    assert gaps and max(gaps) <= 2.0, gaps  # written every 0.5 s; slack for a loaded machine


@pytest.mark.celery_worker
def test_a_run_cancelled_while_a_real_worker_runs_it_stays_cancelled_without_a_result(
    replay_round, celery_worker
):
    run = slow_run(replay_round, duration_s=30000)
    replays_send([run.pk])
    wait_for(
        lambda: ReplayRun.objects.filter(pk=run.pk, status=ReplayStatus.RUNNING, progress__gt=0).exists(),
        timeout_s=60,
        what="the run to report progress",
    )
    replay_cancel(run=run)
    time.sleep(1.5)
    progress = ReplayRun.objects.get(pk=run.pk).progress
    time.sleep(1.0)
    run.refresh_from_db()
    assert run.status == ReplayStatus.CANCELLED and run.result is None
    assert run.progress == progress  # nothing writes to it any more


def _start_worker(queue: str, log_path: Path) -> subprocess.Popen:
    env = worker_environment()
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--pool", "prefork"]
    command += ["--concurrency", "1", "--without-gossip", "--without-mingle", "--loglevel", "INFO"]
    log = log_path.open("ab")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)


def _kill(worker: subprocess.Popen, sig: int) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, sig)
    worker.wait(timeout=30)


@pytest.mark.celery_worker
@pytest.mark.serial  # the worker process it starts reads the suite's Redis keys, with no prefix of a test's
@pytest.mark.skipif(not (USES_POSTGRES and USES_REDIS), reason=NEEDS_WORKER_PROCESS)
def test_a_worker_killed_mid_run_loses_the_run_to_the_sweep_and_it_finishes_once(
    transactional_db, replay_round, monkeypatch, tmp_path
):
    queue = f"replays-kill-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(replays, "REPLAY_QUEUE", queue)
    run = slow_run(replay_round, duration_s=3000)
    log_path = tmp_path / "workers.log"
    first = _start_worker(queue, log_path)
    second = None
    eager, celery_app.conf.task_always_eager = celery_app.conf.task_always_eager, False
    try:
        assert replays_send([run.pk]) == 1
        mid_run = ReplayRun.objects.filter(pk=run.pk, status=ReplayStatus.RUNNING, progress__gt=0.05)
        wait_for(
            mid_run.exists,
            timeout_s=90,
            what=f"the first worker to be mid-run (log: {log_path.read_text(errors='replace')[-2000:]})",
        )
        claimed_first = ReplayRun.objects.get(pk=run.pk)
        _kill(first, signal.SIGKILL)
        assert claimed_first.attempts == 1
        second = _start_worker(queue, log_path)
        time.sleep(2.5)  # long enough for the dead worker's heartbeat to go stale at 2 s
        assert replays_sweep(stale_after_s=2.0)["requeued"] == 1
        wait_for(
            lambda: ReplayRun.objects.filter(pk=run.pk).exclude(status__in=["queued", "running"]).exists(),
            timeout_s=120,
            interval_s=0.2,
            what=f"the second worker to finish (log: {log_path.read_text(errors='replace')[-2000:]})",
        )
        run.refresh_from_db()
        assert run.status == ReplayStatus.DONE, run.error
        assert run.attempts == 2 and run.progress == 1.0
        assert run.claim != claimed_first.claim and run.claimed_at > claimed_first.claimed_at
        assert run.result["results"][0]["slo_checks"][0]["key"] == "ttft_p95_s"
        finished = run.finished_at
        assert replays_sweep(stale_after_s=2.0)["requeued"] == 0
        time.sleep(1.0)
        run.refresh_from_db()
        assert run.attempts == 2 and run.finished_at == finished  # finished once; nothing ran it again
    finally:
        celery_app.conf.task_always_eager = eager
        _kill(first, signal.SIGKILL)
        if second is not None:
            _kill(second, signal.SIGTERM)
