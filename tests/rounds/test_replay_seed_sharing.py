"""A run's seeds shared between worker processes (rounds.services.replays, "Sharing a run's seeds"): the
worker that claims a run hands its seeds out one at a time, a helper takes the ones left, and the run's result
is every seed's own run in seed order, wherever each ran; a seed a helper took and lost is simulated by the
claiming worker; a helper of a run that left its claim does nothing."""

import uuid

import pytest
from django.apps import apps
from django.conf import settings

if apps.ready:  # the pure grading run (-p no:django) still collects this module
    from grading.core.replay_inputs import replay_seeds
    from grading.core.sim import run_scenario
    from rounds.models import ReplayRun, ReplaySeedResult, ReplayStatus
    from rounds.services import replays
    from rounds.services.replays import replay_cancel, replay_execute, replay_help
from grading.core.sim.seeds import THREADS_ENV
from tests.rounds.replay_fixtures import load_question, slow_run, submitted_round
from tests.waiting import wait_for

SEEDS = 5


@pytest.fixture(autouse=True)
def five_seeds_one_at_a_time(settings, monkeypatch):
    """The product's five seeds, each process taking one at a time (two worker processes on two cores)."""
    settings.REPLAY_SEEDS = SEEDS
    monkeypatch.setenv(THREADS_ENV, "1")


@pytest.fixture
def queued_run(alice, tmp_path):
    """A queued run of about a tenth of a second a seed on the compiled loop, no message sent."""
    return slow_run(submitted_round(alice, load_question(tmp_path)), duration_s=600)


def each_seed_on_its_own(run) -> list[dict]:
    """The run's inputs simulated here, one seed at a time, apart from the job and its gathering."""
    inputs = run.inputs
    args = (inputs["family"], inputs["params"], inputs["events"], inputs["slo"], inputs["duration_s"])
    seeds = replay_seeds(run.round_id, run.scenario, settings.REPLAY_SEEDS)
    return [run_scenario(*args, seed).to_dict() for seed in seeds]


def claim_of(run_id: int) -> uuid.UUID:
    claim = ReplayRun.objects.get(pk=run_id).claim
    assert claim is not None
    return claim


@pytest.mark.django_db(transaction=True)  # the claiming worker's heartbeat writes from a thread of its own
def test_a_helper_that_takes_the_seeds_left_gives_the_run_the_result_of_each_seed_in_seed_order(
    queued_run, monkeypatch
):
    helped = []

    def help_at_once(run_id, claim):  # the help message taken by an idle process before seed 0 ends
        helped.append(replay_help(run_id=run_id, claim=str(claim)))

    monkeypatch.setattr(replays, "_help_ask", help_at_once)
    assert replay_execute(run_id=queued_run.pk, keepalive=True) == "done"
    run = ReplayRun.objects.get(pk=queued_run.pk)
    expected = each_seed_on_its_own(run)
    assert helped == ["helped"]
    assert run.seeds_helped == SEEDS - 1  # the claiming worker took seed 0 before it asked
    assert run.result["results"] == expected
    assert run.result["seeds"] == replay_seeds(run.round_id, run.scenario, SEEDS)
    assert run.result["met"] == sum(1 for result in expected if result["passed"])
    assert not ReplaySeedResult.objects.filter(run=run).exists()  # gathered, then forgotten


@pytest.mark.django_db(transaction=True)
def test_a_seed_a_helper_took_and_never_stored_is_simulated_by_the_claiming_worker(queued_run, monkeypatch):
    monkeypatch.setattr(replays, "HELPER_GRACE_S", 0.2)
    lost = []

    def helper_lost_mid_seed(run_id, claim):
        lost.extend(replays._seeds_take(run_id, claim, 1, SEEDS))  # takes seed 1, then its process dies

    monkeypatch.setattr(replays, "_help_ask", helper_lost_mid_seed)
    assert replay_execute(run_id=queued_run.pk, keepalive=True) == "done"
    run = ReplayRun.objects.get(pk=queued_run.pk)
    assert lost == [1]
    assert run.result["results"] == each_seed_on_its_own(run)
    assert run.seeds_helped == 0


@pytest.mark.django_db(transaction=True)
def test_a_run_done_in_place_asks_no_helper_and_gathers_the_same_result(queued_run, monkeypatch):
    monkeypatch.setattr(replays, "_help_ask", lambda *args: pytest.fail("an in-place run asked for help"))
    assert replay_execute(run_id=queued_run.pk) == "done"
    run = ReplayRun.objects.get(pk=queued_run.pk)
    assert run.result["results"] == each_seed_on_its_own(run) and run.seeds_helped == 0


@pytest.mark.django_db
def test_a_helper_of_a_run_that_left_its_claim_takes_nothing(queued_run):
    mine, other = uuid.uuid4(), uuid.uuid4()
    ReplayRun.objects.filter(pk=queued_run.pk).update(status=ReplayStatus.RUNNING, claim=mine)
    assert replay_help(run_id=queued_run.pk, claim=str(other)) == "skipped"  # taken over after a lost worker
    replay_cancel(run=ReplayRun.objects.get(pk=queued_run.pk))
    assert replay_help(run_id=queued_run.pk, claim=str(mine)) == "skipped"  # cancelled
    run = ReplayRun.objects.get(pk=queued_run.pk)
    assert run.seeds_taken == 0 and not ReplaySeedResult.objects.exists()


@pytest.mark.django_db
def test_two_takers_never_get_the_same_seed_and_the_last_finds_none_left(queued_run):
    claim = uuid.uuid4()
    ReplayRun.objects.filter(pk=queued_run.pk).update(status=ReplayStatus.RUNNING, claim=claim)
    taken = [replays._seeds_take(queued_run.pk, claim, 2, SEEDS) for _ in range(4)]
    assert taken == [[0, 1], [2, 3], [4], []]
    assert replays._seeds_take(queued_run.pk, uuid.uuid4(), 1, SEEDS) is None  # not under its claim


@pytest.mark.celery_worker
def test_on_a_real_worker_a_lone_runs_seeds_are_shared_with_the_idle_process(alice, tmp_path, celery_worker):
    """The worker fixture's two threads stand for `make run`'s two processes: one claims the run, the other
    takes the help message while seeds are left (each seed takes ~0.5 s; the message, tens of ms)."""
    run = slow_run(submitted_round(alice, load_question(tmp_path)), duration_s=1500)
    inputs = dict(run.inputs, params={**run.inputs["params"], "arrival_rate": 180, "replicas": 48})
    ReplayRun.objects.filter(pk=run.pk).update(inputs=inputs)
    replays.replays_dispatch(candidate_ids=[alice.pk])
    wait_for(
        lambda: ReplayRun.objects.get(pk=run.pk).status == ReplayStatus.DONE,
        timeout_s=60,
        what="the run to finish",
    )
    run.refresh_from_db()
    assert run.seeds_helped >= 1
    assert run.result["results"] == each_seed_on_its_own(run)


@pytest.mark.django_db
def test_the_sweep_forgets_a_seed_a_helper_stored_after_its_run_finished_and_keeps_a_running_runs(queued_run):
    running = slow_run(queued_run.round, scenario="still-running")
    ReplayRun.objects.filter(pk=running.pk).update(status=ReplayStatus.RUNNING, claim=uuid.uuid4())
    ReplayRun.objects.filter(pk=queued_run.pk).update(status=ReplayStatus.DONE)
    late = ReplaySeedResult.objects.create(
        run=queued_run, claim=uuid.uuid4(), index=3, helped=True, result={}
    )
    kept = ReplaySeedResult.objects.create(run=running, claim=uuid.uuid4(), index=0, helped=True, result={})
    replays.replays_sweep()
    assert list(ReplaySeedResult.objects.values_list("pk", flat=True)) == [kept.pk]
    assert not ReplaySeedResult.objects.filter(pk=late.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_worker_whose_run_was_taken_over_stops_and_leaves_the_new_claims_seeds(queued_run, monkeypatch):
    taken_over = uuid.uuid4()

    def taken_over_meanwhile(
        run_id, claim
    ):  # its heartbeat went stale; the sweep requeued it; another claimed
        ReplayRun.objects.filter(pk=run_id).update(claim=taken_over, seeds_taken=1)
        ReplaySeedResult.objects.create(run_id=run_id, claim=taken_over, index=0, result={"passed": True})

    monkeypatch.setattr(replays, "_help_ask", taken_over_meanwhile)
    assert replay_execute(run_id=queued_run.pk, keepalive=True) == "stopped"
    assert list(ReplaySeedResult.objects.values_list("claim", "index")) == [(taken_over, 0)]
