"""Replay pages: the owner's full page and htmx partials, cancel and retry, 404 for everyone else."""

import re

import pytest
from celery import Celery
from django.apps import apps
from django.urls import reverse

import config.celery as celery_config

if apps.ready:  # the pure grading run (-p no:django) still collects this module
    from rounds.models import ReplayRun, ReplayStatus
    from rounds.services import replays
    from rounds.services.replays import BROKER_DOWN_NOTE, replay_execute, replays_enqueue_for_round
from tests.conftest import TEST_PASSWORD
from tests.rounds.replay_fixtures import load_question, slow_run, submitted_round

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def replay_round(alice, tmp_path):
    return submitted_round(alice, load_question(tmp_path))


@pytest.fixture
def sent(monkeypatch):
    """Messages the services would publish, recorded instead of sent."""
    published: list[int] = []
    monkeypatch.setattr(replays, "_publish", published.append)
    return published


@pytest.fixture
def finished_runs(replay_round, sent):
    runs = replays_enqueue_for_round(round_=replay_round)
    for run in runs:
        replay_execute(run_id=run.pk)
    return [ReplayRun.objects.get(pk=run.pk) for run in runs]


def log_in(client, user):
    assert client.login(username=user.username, password=TEST_PASSWORD)
    return client


def page_url(round_):
    return reverse("round-replays", args=[round_.pk])


def run_url(name, run):
    return reverse(name, args=[run.round_id, run.pk])


def test_the_owner_sees_each_scenario_with_both_sides_results_and_chart_data(client, alice, finished_runs):
    round_ = finished_runs[0].round
    response = log_in(client, alice).get(page_url(round_))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Arrivals rise by half for three minutes" in html
    assert "Two replicas fail at once" in html
    for run in finished_runs:  # each side names the fleet that ran, from its own numbers
        whose = "your" if run.side == "candidate" else "the reference's"
        assert f"on {whose} {run.inputs['params']['replicas']:,.0f}-replica fleet" in html
    assert "95th-percentile time to first token ≤ 1 s" in html and "<code>ttft_p95_s" not in html
    assert html.count('class="replay-run ') == 4
    assert "Your numbers" in html and "Reference" in html
    assert ("Met its SLO" in html) or ("Missed its SLO" in html)
    assert html.count("data-replay-charts=") == 4
    for run in finished_runs:  # the story of the first run of the two seeds
        assert run.result["runs"] == 2 and run.result["results"][0]["narrative"][0] in html
        assert f"in {run.result['met']} of 2 runs" in html
    assert "vendor/chart.js/chart.umd.min.js" in html and "js/replay-charts.js" in html
    score = replays.replay_failure_score(round_)
    assert f'Failure modes: <span id="failure-score-value">{score:.0f}</span> / 100' in html


def test_the_page_has_no_inline_script_or_style(client, alice, finished_runs):
    html = log_in(client, alice).get(page_url(finished_runs[0].round)).content.decode()
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag, tag
    assert "<style" not in html and " style=" not in html
    assert 'hx-trigger="every 1s"' not in html  # every run is finished: nothing polls


def test_a_running_runs_partial_polls_itself_and_a_finished_ones_does_not(client, alice, replay_round):
    run = slow_run(replay_round, duration_s=300)
    ReplayRun.objects.filter(pk=run.pk).update(status=ReplayStatus.RUNNING, progress=0.42)
    response = log_in(client, alice).get(run_url("replay-run", run), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'id="replay-run-{run.pk}"' in html and 'hx-trigger="every 1s"' in html
    assert 'hx-swap="outerHTML"' in html and '<progress max="100" value="42"' in html
    ReplayRun.objects.filter(pk=run.pk).update(status=ReplayStatus.QUEUED, progress=0)
    replay_execute(run_id=run.pk)
    html = client.get(run_url("replay-run", run), **HTMX).content.decode()
    assert f'id="replay-run-{run.pk}"' in html and "hx-trigger" not in html and "<progress" not in html
    assert "data-replay-chart " in html and "data-replay-charts=" in html and "ttft_p95_s" in html


def test_the_partial_without_htmx_sends_the_browser_to_the_page(client, alice, replay_round):
    run = slow_run(replay_round, duration_s=300)
    response = log_in(client, alice).get(run_url("replay-run", run))
    assert response.status_code == 302
    assert response["Location"] == page_url(replay_round) + f"#replay-run-{run.pk}"


def test_charlie_gets_404_for_every_replay_url_of_alices_round(client, charlie, replay_round, sent):
    run = slow_run(replay_round, duration_s=300)
    log_in(client, charlie)
    assert client.get(page_url(replay_round)).status_code == 404
    assert client.get(run_url("replay-run", run), **HTMX).status_code == 404
    assert client.post(run_url("replay-cancel", run), **HTMX).status_code == 404
    assert client.post(run_url("replay-retry", run), **HTMX).status_code == 404
    assert client.post(reverse("round-replays-run", args=[replay_round.pk])).status_code == 404
    run.refresh_from_db()
    assert run.status == ReplayStatus.QUEUED and ReplayRun.objects.filter(round=replay_round).count() == 1
    assert sent == []


def test_a_visitor_who_is_not_logged_in_is_sent_to_log_in(client, replay_round):
    response = client.get(page_url(replay_round))
    assert response.status_code == 302 and "/login" in response["Location"]


def test_the_owner_cancels_a_queued_run_and_gets_its_finished_block(client, alice, replay_round):
    run = slow_run(replay_round, duration_s=300)
    response = log_in(client, alice).post(run_url("replay-cancel", run), **HTMX)
    html = response.content.decode()
    run.refresh_from_db()
    assert run.status == ReplayStatus.CANCELLED
    assert "Cancelled" in html and "hx-trigger" not in html and "Retry" in html


def test_retrying_a_cancelled_run_queues_its_next_generation_with_the_same_seed(
    client, alice, replay_round, sent, django_capture_on_commit_callbacks
):
    runs = replays_enqueue_for_round(round_=replay_round)
    run = runs[0]
    ReplayRun.objects.filter(pk=run.pk).update(status=ReplayStatus.CANCELLED)
    ReplayRun.objects.filter(round=replay_round).exclude(pk=run.pk).update(status=ReplayStatus.DONE)
    with django_capture_on_commit_callbacks(execute=True):
        response = log_in(client, alice).post(run_url("replay-retry", run), **HTMX)
    new_run = ReplayRun.objects.get(round=replay_round, scenario=run.scenario, side=run.side, generation=2)
    assert new_run.status == ReplayStatus.QUEUED and new_run.seed == run.seed
    assert sent == [new_run.pk]
    html = response.content.decode()
    assert f'id="replay-run-{new_run.pk}"' in html and 'hx-trigger="every 1s"' in html
    page = client.get(page_url(replay_round)).content.decode()
    assert f'id="replay-run-{new_run.pk}"' in page and f'id="replay-run-{run.pk}"' not in page


def test_retrying_a_run_that_is_still_running_changes_nothing(client, alice, replay_round, sent):
    run = slow_run(replay_round, duration_s=300)
    ReplayRun.objects.filter(pk=run.pk).update(status=ReplayStatus.RUNNING)
    response = log_in(client, alice).post(run_url("replay-retry", run))
    assert response.status_code == 302
    assert ReplayRun.objects.filter(round=replay_round).count() == 1 and sent == []
    page = client.get(page_url(replay_round)).content.decode()
    assert "Only a failed or cancelled run can be retried" in page


def test_the_owner_runs_the_replays_on_demand_once(
    client, alice, replay_round, sent, django_capture_on_commit_callbacks
):
    log_in(client, alice)
    assert "Run the failure replays" in client.get(page_url(replay_round)).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("round-replays-run", args=[replay_round.pk]))
        client.post(reverse("round-replays-run", args=[replay_round.pk]))
    assert response.status_code == 302
    assert ReplayRun.objects.filter(round=replay_round).count() == 4
    # two at a time per candidate (the fair queue): the other two wait, unsent, for a turn
    assert len(sent) == replays.RUNS_IN_FLIGHT_PER_CANDIDATE == 2
    assert ReplayRun.objects.filter(round=replay_round, sent_at__isnull=True).count() == 2


def test_with_the_broker_down_a_requested_run_stays_queued_with_a_note_not_an_error(
    client, alice, replay_round, monkeypatch, django_capture_on_commit_callbacks
):
    dead_broker = Celery(
        "dead", broker="redis://127.0.0.1:1/0", backend="redis://127.0.0.1:1/0", set_as_current=False
    )
    dead_broker.conf.broker_connection_timeout = 1
    monkeypatch.setattr(celery_config, "app", dead_broker)  # what config.celery.send_by_name publishes with
    log_in(client, alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("round-replays-run", args=[replay_round.pk]))
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    runs = ReplayRun.objects.filter(round=replay_round)
    assert runs.count() == 4
    assert all(run.status == ReplayStatus.QUEUED and run.sent_at is None for run in runs)
    assert all(run.note == BROKER_DOWN_NOTE for run in runs)
    assert "Queued" in html and "will start automatically when it is back" in html
    assert 'hx-trigger="every 1s"' in html  # the page keeps polling until the sweep gets it going


def test_a_parameter_with_no_limit_is_shown_as_no_limit(client, alice, finished_runs):
    # Issue 30: a replay's inputs hold None (JSON's null) for a queue with no limit, never a million; the
    # page's "What was simulated" says so instead of printing nothing.
    run = finished_runs[0]
    run.inputs = {
        **run.inputs,
        "params": {**run.inputs["params"], "queue_limit": None},
        "sources": {"queue_limit": {"quantity": "queue_limit", "from": "reference"}},
    }
    run.save(update_fields=["inputs"])
    html = log_in(client, alice).get(page_url(run.round)).content.decode()
    assert re.search(r"<code>queue_limit</code> = no limit\s+from <code>queue_limit</code>", html)
