"""Curveball replays (issue 33): at submit, each answered curveball that names a scenario queues that scenario
on the candidate's curveball numbers beside the reference under the change; a real worker runs them and the
report's depth section shows each side's verdict. Not part of the failure-modes score.

checkpoint-storage's "The checkpoint grows to 4 TB" replays a week on the write tier, whose SLO writes one
checkpoint in at most 65 s. By hand: 4 TB at 67 GB/s is 4e12 / 67e9 = 59.7 s (met); at 40 GB/s, 100 s
(missed).
"""

import pytest
from django.db import transaction
from django.urls import reverse

from rounds.models import ReplayRun, ReplayStatus, Work
from rounds.services.depth import round_depth_next, round_depth_save
from rounds.services.replays import curveball_replays_current, replays_current, replays_enqueue_for_round
from rounds.services.rounds import round_start, round_submit
from tests.conftest import USES_REDIS
from tests.interview.bank_fixtures import load_questions
from tests.waiting import wait_for

SLUG = "checkpoint-storage"
CURVEBALL = "checkpoint-grows-4tb"
RUN_NAME = f"{CURVEBALL}:a-week-on-your-write-tier"
MAIN = {"burst_bw": "16.7 GB/s", "ckpt_interval": "30 min", "ckpt_bytes": "1 TB"}


def answered_round(candidate, question, burst_bw: str):
    """A practice round: the main sheet, the depth phase opened on request, the curveball answered."""
    round_ = round_start(candidate=candidate, question=question, mode="practice")
    Work.objects.filter(round=round_).update(numbers=MAIN)
    round_depth_next(round_=round_)
    round_depth_save(round_=round_, answers={"curveballs": {CURVEBALL: {"numbers": {"burst_bw": burst_bw}}}})
    return round_


@pytest.mark.django_db
def test_submit_queues_the_answered_curveballs_scenario_on_both_sides_apart_from_the_failure_replays(
    alice, tmp_path
):
    question = load_questions(tmp_path, SLUG)[SLUG]
    round_ = answered_round(alice, question, "67 GB/s")
    unanswered = round_start(candidate=alice, question=question, mode="practice")
    round_depth_next(round_=unanswered)  # shown, none of its lines typed: nothing of theirs to replay
    with transaction.atomic():
        round_ = round_submit(round_id=round_.pk)
        unanswered = round_submit(round_id=unanswered.pk)
    replays_enqueue_for_round(round_=round_)
    replays_enqueue_for_round(round_=round_)  # idempotent
    replays_enqueue_for_round(round_=unanswered)
    runs = ReplayRun.objects.filter(round=round_, scenario=RUN_NAME)
    assert sorted(runs.values_list("side", flat=True)) == ["candidate", "reference"]
    sides = {run.side: run for run in runs}
    assert sides["candidate"].inputs["params"]["storage_bw"] == pytest.approx(67e9)
    assert sides["reference"].inputs["params"]["storage_bw"] == pytest.approx(4e12 / 60)
    assert sides["candidate"].seed == sides["reference"].seed
    assert RUN_NAME not in {run.scenario for run in replays_current(round_=round_)}
    assert list(curveball_replays_current(round_=round_)) == [CURVEBALL]
    assert not ReplayRun.objects.filter(round=unanswered, scenario=RUN_NAME).exists()
    report = round_.report["depth"]["curveballs"][0]
    assert report["scenario"] == "a-week-on-your-write-tier" and report["answered"] is True


@pytest.mark.celery_worker
@pytest.mark.skipif(not USES_REDIS, reason="a real worker needs REDIS_URL")
def test_a_real_worker_replays_a_right_and_an_undersized_curveball_answer_and_the_report_shows_both(
    alice, tmp_path, celery_worker, client
):
    question = load_questions(tmp_path, SLUG)[SLUG]
    right = round_submit(round_id=answered_round(alice, question, "67 GB/s").pk)
    small = round_submit(round_id=answered_round(alice, question, "40 GB/s").pk)

    def done(round_):
        runs = ReplayRun.objects.filter(round=round_, scenario=RUN_NAME)
        return runs.count() == 2 and not runs.exclude(status=ReplayStatus.DONE).exists()

    for round_ in (right, small):
        wait_for(lambda round_=round_: done(round_), timeout_s=120, what="the curveball replays to finish")
    verdicts = {}
    for round_ in (right, small):
        for run in ReplayRun.objects.filter(round=round_, scenario=RUN_NAME):
            view = run.seed_runs
            verdicts[(round_.pk, run.side)] = (view["met"], view["runs"])
    runs = verdicts[(right.pk, "reference")][1]
    assert runs == 2  # REPLAY_SEEDS in tests
    assert verdicts[(right.pk, "candidate")] == (runs, runs)  # 59.7 s per checkpoint <= 65 s
    assert verdicts[(right.pk, "reference")] == (runs, runs)  # 60 s
    assert verdicts[(small.pk, "candidate")] == (0, runs)  # 100 s > 65 s
    assert verdicts[(small.pk, "reference")] == (runs, runs)

    client.force_login(alice)
    page = client.get(reverse("round-report", args=[right.pk])).content.decode()
    section = page[page.index('id="depth-replay-checkpoint-grows-4tb"') :]
    assert f"Met its SLO in {runs} of {runs} runs" in section[: section.index("depth-item-sum")]
    page = client.get(reverse("round-report", args=[small.pk])).content.decode()
    section = page[page.index('id="depth-replay-checkpoint-grows-4tb"') :]
    assert f"Missed its SLO in {runs} of {runs} runs" in section[: section.index("depth-item-sum")]
    assert "Shown, not scored" in section
    listing = client.get(f"/api/rounds/{small.pk}/replays/").json()
    assert [run["side"] for run in listing["curveball_runs"][CURVEBALL]] == ["candidate", "reference"]
    assert RUN_NAME not in {run["scenario"] for run in listing["runs"]}


@pytest.mark.django_db
def test_a_review_rounds_curveball_replays_the_fixed_design_at_its_curveball_size_beside_the_reference_fix(
    alice, tmp_path
):
    """eight-gpu-design-review's "Load rises to 8 requests a second" asks how many TP4 servers now. By hand:
    six servers carry 5 req/s at ~58% (the prompt's arithmetic), so a server takes 0.58 x 6 / 5 = 0.696 s of
    a request; at 8 req/s and the 0.7 utilisation target that is ceil(8 x 0.696 / 0.7) = 8, plus one spare:
    the reference fix replays nine. The candidate who answers 12 is replayed on 12 servers from their fixed
    sheet, never on the given design's one replica from their analysis sheet."""
    slug, curveball = "eight-gpu-design-review", "load-rises-to-eight"
    question = load_questions(tmp_path, slug)[slug]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    numbers = {"replicas": "1", "fixed--replicas": "6", "fixed--tp_gpus": "4"}
    Work.objects.filter(round=round_).update(numbers=numbers)
    round_depth_next(round_=round_)
    round_depth_save(
        round_=round_, answers={"curveballs": {curveball: {"numbers": {"servers_needed": "12"}}}}
    )
    with transaction.atomic():
        round_ = round_submit(round_id=round_.pk)
    replays_enqueue_for_round(round_=round_)
    runs = {
        run.side: run for run in ReplayRun.objects.filter(round=round_, scenario=f"{curveball}:steady-load")
    }
    assert sorted(runs) == ["candidate", "fix"]
    assert runs["candidate"].inputs["params"]["replicas"] == 12
    assert runs["fix"].inputs["params"]["replicas"] == 9
    assert runs["candidate"].inputs["params"]["arrival_rate"] == pytest.approx(8)
    assert runs["fix"].inputs["params"]["arrival_rate"] == pytest.approx(8)
    assert runs["fix"].inputs["fallbacks"] == {}
