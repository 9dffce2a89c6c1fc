"""Redis stopped and started: pages keep serving without it, and replays requested while the broker is down
stay queued, then run once the broker is back (the periodic sweep re-sends them)."""

import pytest
from django.test import Client
from django.urls import reverse

from rounds.models import ReplayRun, ReplayStatus
from rounds.services.replays import BROKER_DOWN_NOTE, replays_sweep
from rounds.services.rounds import round_start
from rounds.services.work import work_save
from tests.conftest import TEST_PASSWORD
from tests.interview.bank_fixtures import KV_QUESTION, load_questions
from tests.rounds.replay_fixtures import load_question, submitted_round
from tests.waiting import wait_for
from tests.zz_faults.services import redis_is_up, redis_stopped

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery_worker]


def test_pages_keep_serving_while_redis_is_down(tmp_path, alice):
    question = load_questions(tmp_path / "kv", KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client = Client()
    with redis_stopped():
        assert not redis_is_up()
        # Logging in counts failures in the cache; without it the log-in still works.
        response = client.post(reverse("login"), {"username": "alice", "password": TEST_PASSWORD})
        assert response.status_code == 302
        for url in (
            reverse("home"),
            reverse("question-detail", args=[KV_QUESTION]),
            reverse("round-detail", args=[round_.pk]),
            reverse("round-history"),
            reverse("concepts"),
        ):
            assert client.get(url).status_code == 200, url
        saved = client.post(
            reverse("round-save", args=[round_.pk]),
            {"revision": 0, "numbers": {"kv_conv": "9.8 GB"}},
            content_type="application/json",
        )
        assert saved.status_code == 200 and saved.json()["revision"] == 1
        health = client.get(reverse("healthz"))
        assert health.status_code == 503 and health.json() == {"status": "down"}
    assert client.get(reverse("round-detail", args=[round_.pk])).status_code == 200


def test_replays_requested_while_the_broker_is_down_wait_and_then_run_once(tmp_path, alice, celery_worker):
    round_ = submitted_round(alice, load_question(tmp_path))
    client = Client()
    client.force_login(alice)
    with redis_stopped():
        response = client.post(reverse("round-replays-run", args=[round_.pk]))
        assert response.status_code == 302
        runs = list(ReplayRun.objects.filter(round=round_))
        assert runs and all(run.status == ReplayStatus.QUEUED for run in runs)
        assert all(run.sent_at is None and run.note == BROKER_DOWN_NOTE for run in runs)
        assert client.get(reverse("round-replays", args=[round_.pk])).status_code == 200

    # The beat schedule sweeps every 15 s; here the sweep is called as soon as the broker is back.
    wait_for(lambda: replays_sweep()["resent"] > 0, timeout_s=30, what="the sweep to re-send")

    def all_finished() -> bool:
        return not ReplayRun.objects.filter(
            round=round_, status__in=[ReplayStatus.QUEUED, ReplayStatus.RUNNING]
        ).exists()

    wait_for(all_finished, timeout_s=120, interval_s=0.5, what="the replays to finish")
    finished = list(ReplayRun.objects.filter(round=round_))
    assert {run.status for run in finished} == {ReplayStatus.DONE}, [(r.status, r.error) for r in finished]
    assert all(run.attempts == 1 and run.note == "" for run in finished)
    assert len(finished) == len(runs)


def test_a_candidate_save_while_redis_is_down_is_kept_after_it_returns(tmp_path, alice):
    question = load_questions(tmp_path / "kv", KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    with redis_stopped():
        result = work_save(round_id=round_.pk, base_revision=0, numbers={"kv_conv": "9.8 GB"})
    round_.work.refresh_from_db()
    assert result.revision == 1 and round_.work.numbers == {"kv_conv": "9.8 GB"}


def test_posting_a_comment_while_redis_is_down_does_not_fail_the_page(tmp_path, alice):
    load_questions(tmp_path / "kv", KV_QUESTION)
    client = Client()
    client.force_login(alice)
    with redis_stopped():
        response = client.post(
            reverse("comment-post", args=[KV_QUESTION]), {"body": "Is KiB right here?", "anchor": ""}
        )
    assert response.status_code < 500
