"""The reference's replays computed when the round starts and kept by what they depend on
(rounds.services.replay_results): the submit's reference runs take the kept result, a miss simulates as
before, the candidate's side is never kept, and before submit nothing of it reaches the candidate."""

from datetime import timedelta

import pytest
from django.apps import apps
from django.conf import settings
from django.db import transaction
from django.utils import timezone

if apps.ready:  # the pure grading run (-p no:django) still collects this module
    from config.celery import app as celery_app
    from grading.core.replay_inputs import replay_seeds
    from grading.core.sim import run_scenario_seeds
    from rounds.models import ReplayResult, ReplayRun, ReplayStatus, Work
    from rounds.services.replay_results import RESULTS_KEPT_FOR, replay_result_key_for
    from rounds.services.replays import (
        reference_replay_prepare,
        replay_execute,
        replays_enqueue_for_round,
        replays_sweep,
    )
    from rounds.services.rounds import round_start, round_submit
from tests.rounds.replay_fixtures import CANDIDATE_NUMBERS, load_question, submitted_round
from tests.waiting import wait_for


def simulated(run) -> dict:
    """The run's result simulated here, apart from the job: its inputs over its seeds."""
    inputs = run.inputs
    seeds = replay_seeds(run.round_id, run.scenario, settings.REPLAY_SEEDS)
    args = (inputs["family"], inputs["params"], inputs["events"], inputs["slo"], inputs["duration_s"])
    return run_scenario_seeds(*args, seeds).to_dict()


def runs_by_side(round_) -> dict[tuple[str, str], "ReplayRun"]:
    with transaction.atomic():  # queued only: the dispatch waits for a commit that never comes
        runs = replays_enqueue_for_round(round_=round_)
    return {(run.scenario, run.side): run for run in runs}


@pytest.mark.django_db
def test_a_reference_run_takes_the_result_kept_under_its_key_and_simulates_nothing(alice, tmp_path):
    round_ = submitted_round(alice, load_question(tmp_path))
    run = runs_by_side(round_)[("lose-two-replicas", "reference")]
    kept = {"seeds": [1], "runs": 1, "met": 1, "results": [], "kept": "not something a simulation writes"}
    key = replay_result_key_for(run.inputs, round_id=round_.pk, scenario=run.scenario)
    ReplayResult.objects.create(key=key, result=kept)
    assert replay_execute(run_id=run.pk) == "done"
    run.refresh_from_db()
    assert run.status == ReplayStatus.DONE and run.result == kept and run.progress == 1.0


@pytest.mark.django_db
def test_a_miss_simulates_as_before_and_keeps_the_reference_side_never_the_candidates(alice, tmp_path):
    round_ = submitted_round(alice, load_question(tmp_path))
    runs = runs_by_side(round_)
    reference, candidate = runs[("lose-two-replicas", "reference")], runs[("lose-two-replicas", "candidate")]
    assert replay_execute(run_id=reference.pk) == "done"
    reference.refresh_from_db()
    assert reference.result == simulated(reference)
    key = replay_result_key_for(reference.inputs, round_id=round_.pk, scenario=reference.scenario)
    assert list(ReplayResult.objects.values_list("key", "result")) == [(key, reference.result)]
    assert replay_execute(run_id=candidate.pk) == "done"
    candidate.refresh_from_db()
    assert candidate.result == simulated(candidate) != reference.result  # 12 replicas against 16
    assert ReplayResult.objects.count() == 1


@pytest.mark.django_db
def test_the_sweep_forgets_results_kept_past_their_time(alice):
    old = ReplayResult.objects.create(key="a" * 64, result={})
    ReplayResult.objects.create(key="b" * 64, result={})
    now = timezone.now()
    ReplayResult.objects.filter(pk=old.pk).update(created_at=now - RESULTS_KEPT_FOR - timedelta(minutes=1))
    replays_sweep(now=now)
    assert list(ReplayResult.objects.values_list("key", flat=True)) == ["b" * 64]


@pytest.mark.django_db
def test_without_a_worker_a_round_starts_without_simulating_anything(
    alice, tmp_path, django_capture_on_commit_callbacks
):
    question = load_question(tmp_path)
    eager, celery_app.conf.task_always_eager = celery_app.conf.task_always_eager, True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            round_start(candidate=alice, question=question, mode="practice")
    finally:
        celery_app.conf.task_always_eager = eager
    assert not ReplayResult.objects.exists()


@pytest.mark.django_db
def test_preparing_ahead_keeps_exactly_what_the_submits_reference_run_would_simulate(alice, tmp_path):
    round_ = round_start(
        candidate=alice, question=load_question(tmp_path), mode="practice", variant=True, seed=7
    )
    assert (
        reference_replay_prepare(round_id=round_.pk, scenario="lose-two-replicas", side="reference") == "kept"
    )
    assert (
        reference_replay_prepare(round_id=round_.pk, scenario="lose-two-replicas", side="reference")
        == "known"
    )
    assert (
        reference_replay_prepare(round_id=round_.pk, scenario="lose-two-replicas", side="candidate")
        == "skipped"
    )
    assert not ReplayRun.objects.filter(round=round_).exists()  # nothing a page lists before submit
    Work.objects.filter(round=round_).update(numbers=CANDIDATE_NUMBERS)
    round_ = round_submit(round_id=round_.pk)
    runs = runs_by_side(round_)
    run = runs[("lose-two-replicas", "reference")]
    key = replay_result_key_for(run.inputs, round_id=round_.pk, scenario=run.scenario)
    assert ReplayResult.objects.get().key == key
    assert ReplayResult.objects.get().result == simulated(run)  # the variant's values, the round's seeds
    # done as it is queued, never sent or claimed; the other runs wait for a worker
    assert (run.status, run.result, run.attempts, run.sent_at) == (ReplayStatus.DONE, simulated(run), 0, None)
    assert {other.status for other in runs.values() if other != run} == {ReplayStatus.QUEUED}


@pytest.mark.celery_worker
def test_a_real_worker_simulates_the_reference_while_the_round_is_open_and_the_submit_takes_it(
    alice, tmp_path, celery_worker, client
):
    question = load_question(tmp_path)
    scenarios = [scenario["name"] for scenario in question.current_version.spec["scenarios"]]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    wait_for(
        lambda: ReplayResult.objects.count() == len(scenarios),
        timeout_s=60,
        what="the worker to keep the reference's replays",
    )
    client.force_login(alice)
    listing = client.get(f"/api/rounds/{round_.pk}/replays/").json()
    assert listing["runs"] == [] and not ReplayRun.objects.filter(round=round_).exists()  # before submit
    kept = dict(ReplayResult.objects.values_list("key", "result"))
    Work.objects.filter(round=round_).update(numbers=CANDIDATE_NUMBERS)
    round_submit(round_id=round_.pk)  # its runs go to the worker on commit
    wait_for(
        lambda: (
            ReplayRun.objects.filter(round=round_, status=ReplayStatus.DONE).count() == 2 * len(scenarios)
        ),
        timeout_s=60,
        what="the submit's replays to finish",
    )
    for run in ReplayRun.objects.filter(round=round_, side="reference"):
        key = replay_result_key_for(run.inputs, round_id=round_.pk, scenario=run.scenario)
        assert run.result == kept[key] == simulated(run)
        assert run.attempts == 0  # done at submit: no worker simulated it again
    assert ReplayResult.objects.count() == len(scenarios)  # the candidate's side is not kept
