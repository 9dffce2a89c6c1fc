"""Replays through the API as through the pages: started, followed and read by the round's candidate; the
same round answers 404 to everyone else."""

import pytest
from django.apps import apps
from rest_framework.test import APIClient

if apps.ready:  # the pure grading run (-p no:django) still collects this module
    from rounds.models import ReplayRun, ReplayStatus
    from rounds.services import replays
    from rounds.services.replays import replay_execute
    from rounds.services.rounds import round_start
from tests.rounds.replay_fixtures import load_question, submitted_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def question(tmp_path):
    return load_question(tmp_path)


@pytest.fixture
def sent(monkeypatch):
    """Messages the services would publish, recorded instead of sent; the test runs them itself."""
    published: list[int] = []
    monkeypatch.setattr(replays, "_publish", published.append)
    return published


def api_as(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_the_candidate_starts_follows_and_reads_replays_through_the_api(
    alice, question, sent, django_capture_on_commit_callbacks
):
    round_ = submitted_round(alice, question)
    api = api_as(alice)
    url = f"/api/rounds/{round_.pk}/replays/"
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(url)
    assert started.status_code == 202
    runs = started.json()["runs"]
    assert runs and {run["status"] for run in runs} == {"queued"} and started.json()["failure_score"] is None
    assert sorted(sent) == sorted(run["id"] for run in runs)[: replays.RUNS_IN_FLIGHT_PER_CANDIDATE]
    assert api.post(url).json()["runs"] == runs  # nothing new the second time

    first = runs[0]
    replay_execute(run_id=first["id"])
    followed = api.get(f"{url}{first['id']}/").json()
    assert followed["status"] == "done" and followed["progress"] == 1.0 and followed["result"]
    for run in runs[1:]:
        replay_execute(run_id=run["id"])
    listing = api.get(url).json()
    assert {run["status"] for run in listing["runs"]} == {"done"}
    assert listing["failure_score"] is not None


def test_cancel_and_retry_through_the_api(alice, question, sent):
    round_ = submitted_round(alice, question)
    api = api_as(alice)
    run = api.post(f"/api/rounds/{round_.pk}/replays/").json()["runs"][0]
    run_url = f"/api/rounds/{round_.pk}/replays/{run['id']}/"
    cancelled = api.post(run_url + "cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = api.post(run_url + "cancel/")
    assert again.status_code == 400 and "already cancelled" in again.json()["detail"]
    retried = api.post(run_url + "retry/")
    assert retried.status_code == 200 and retried.json()["generation"] == 2
    assert ReplayRun.objects.get(pk=retried.json()["id"]).status == ReplayStatus.QUEUED


def test_an_unsubmitted_round_has_no_replays_to_start(alice, question, sent):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    response = api_as(alice).post(f"/api/rounds/{round_.pk}/replays/")
    assert response.status_code == 409 and "submit it first" in response.json()["detail"]
    assert not ReplayRun.objects.exists()


def test_someone_elses_round_and_runs_answer_404(alice, charlie, question, sent):
    round_ = submitted_round(alice, question)
    run = api_as(alice).post(f"/api/rounds/{round_.pk}/replays/").json()["runs"][0]
    api = api_as(charlie)
    assert api.get(f"/api/rounds/{round_.pk}/replays/").status_code == 404
    assert api.post(f"/api/rounds/{round_.pk}/replays/").status_code == 404
    assert api.get(f"/api/rounds/{round_.pk}/replays/{run['id']}/").status_code == 404
    assert api.post(f"/api/rounds/{round_.pk}/replays/{run['id']}/cancel/").status_code == 404
    assert ReplayRun.objects.get(pk=run["id"]).status == ReplayStatus.QUEUED
