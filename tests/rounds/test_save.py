"""Saving a round's work (rounds.services.work.work_save behind the page's autosave view) and the sheet's
read-back: revisions, the stale-tab refusal, the deadline lock, boundary checks, text PostgreSQL refuses."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from rounds.models import Round, WorkEvent
from rounds.readings import describe_reading
from rounds.services.rounds import round_start
from rounds.services.work import StaleRevision, work_save
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db


@pytest.fixture
def timed_round(alice, tmp_path):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    return round_start(candidate=alice, question=question, mode="timed")


def save(client, round_, **body):
    return client.post(f"/rounds/{round_.pk}/save/", json.dumps(body), content_type="application/json")


def move_clock_past_deadline(round_: Round) -> None:
    Round.objects.filter(pk=round_.pk).update(
        started_at=timezone.now() - timedelta(minutes=46), deadline=timezone.now() - timedelta(minutes=1)
    )


def test_a_save_bumps_the_revision_and_logs_each_change(client, alice, timed_round):
    client.force_login(alice)
    design = {
        "nodes": [{"id": "gw", "kind": "gateway", "label": "API gateway", "job": "auth", "failure": "x"}],
        "edges": [],
    }
    response = save(client, timed_round, revision=0, numbers={"kv_conv": "9.8 GB"}, design=design)
    assert response.status_code == 200, response.content
    assert response.json()["revision"] == 1
    fields = set(WorkEvent.objects.filter(round=timed_round).values_list("field", flat=True))
    assert fields == {"numbers.kv_conv", "design"}
    timed_round.work.refresh_from_db()
    assert timed_round.work.numbers == {"kv_conv": "9.8 GB"}


def test_a_save_from_a_stale_tab_is_refused_and_changes_nothing(client, alice, timed_round):
    client.force_login(alice)
    assert save(client, timed_round, revision=0, scratch="first tab").status_code == 200
    response = save(client, timed_round, revision=0, scratch="second tab, older copy")
    assert response.status_code == 409
    assert "out of date" in response.json()["error"] and response.json()["current_revision"] == 1
    timed_round.work.refresh_from_db()
    assert timed_round.work.scratch == "first tab"


def test_the_service_raises_stale_revision(timed_round):
    work_save(round_id=timed_round.pk, base_revision=0, scratch="a")
    with pytest.raises(StaleRevision):
        work_save(round_id=timed_round.pk, base_revision=0, scratch="b")


def test_a_save_after_the_deadline_is_refused_with_a_clear_message(client, alice, timed_round):
    client.force_login(alice)
    save(client, timed_round, revision=0, numbers={"kv_conv": "9.8 GB"})
    move_clock_past_deadline(timed_round)
    response = save(client, timed_round, revision=1, numbers={"kv_conv": "99 GB"})
    assert response.status_code == 423
    assert "Time is up" in response.json()["error"] or "submitted" in response.json()["error"]
    timed_round.work.refresh_from_db()
    assert timed_round.work.numbers == {"kv_conv": "9.8 GB"}


def test_a_malformed_save_is_refused_at_the_boundary(client, alice, timed_round):
    client.force_login(alice)
    assert save(client, timed_round, numbers={}).status_code == 400
    response = save(client, timed_round, revision=0, numbers={"not_asked": "3"})
    assert response.status_code == 400 and "not_asked" in response.json()["error"]
    response = client.post(f"/rounds/{timed_round.pk}/save/", "{nope", content_type="application/json")
    assert response.status_code == 400
    response = save(client, timed_round, revision=0, design={"nodes": "many"})
    assert response.status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"scratch": "before\x00after"},
        {"numbers": {"kv_conv": "9.8\x00GB"}},
        {"design": {"nodes": [{"id": "a", "label": "gate\ud800way"}], "edges": []}},
        {"fixes": [{"scenario": "x\x00", "fix": "y"}]},
    ],
    ids=["nul-in-scratch", "nul-in-a-number", "lone-surrogate-in-a-label", "nul-in-a-fix"],
)
def test_text_the_database_cannot_store_is_refused_with_a_message(client, alice, timed_round, body):
    """JSON can carry NUL and lone surrogates; PostgreSQL's text and jsonb cannot store them."""
    client.force_login(alice)
    assert save(client, timed_round, revision=0, scratch="kept").status_code == 200
    response = client.post(
        f"/rounds/{timed_round.pk}/save/",
        json.dumps({"revision": 1, **body}),  # ensure_ascii: the escapes travel as the page would send them
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert "cannot be stored" in response.json()["error"]
    timed_round.work.refresh_from_db()
    assert (timed_round.work.revision, timed_round.work.scratch) == (1, "kept")


def test_the_sheet_says_how_an_entry_was_read_without_judging_it(client, alice, timed_round):
    client.force_login(alice)
    response = client.post(
        f"/rounds/{timed_round.pk}/read/",
        {"name": "kv_conv", "numbers.kv_conv": "9.6 GB"},
    )
    text = response.content.decode()
    assert "Read as" in text and "correct" not in text.lower()
    unread = client.post(
        f"/rounds/{timed_round.pk}/read/",
        {"name": "kv_conv", "numbers.kv_conv": "lots"},
    )
    assert "Could not read" in unread.content.decode()


def test_the_sheet_reads_an_entry_for_its_line_as_the_grader_does():
    # The label names the period a USD line leaves out, and "none" is 0 only where the range holds 0.
    spec = {
        "model": {
            "quantities": [
                {"name": "revenue", "label": "Revenue per month", "unit": "USD"},
                {"name": "wait", "label": "Queue wait limit", "unit": "s", "value": 1, "range": [0, 5]},
                {"name": "keys", "label": "Keys per request", "unit": "", "value": 5, "range": [2, 1000]},
            ]
        }
    }
    per_month = describe_reading(spec, "revenue", "$19.4M/month")
    assert per_month["state"] == "read" and "19.4M USD" in per_month["message"], per_month
    per_day = describe_reading(spec, "revenue", "$648k/day")  # 648k a day × 30 days = 19.44M a month
    assert "19.4M USD" in per_day["message"] and "× 30" in per_day["message"], per_day
    assert describe_reading(spec, "wait", "none")["message"].startswith("Read as 0 s")
    assert describe_reading(spec, "keys", "none") == {"state": "empty", "message": "Read as no answer."}


def test_the_sheet_reads_what_people_write_around_an_answer_as_the_grader_does():
    # Issue 30: shown working, a note, a range, a count noun of the vocabulary, no limit, one 8-GPU node a
    # replica: each read as the grade reads it, and said.
    spec = {
        "model": {
            "quantities": [
                {"name": "gpus_per_replica", "label": "GPUs per replica", "unit": "GPU/replica", "value": 8},
                {"name": "kv", "label": "KV cache per token", "unit": "KiB/tok"},
                {"name": "replicas", "label": "Replicas", "unit": "replica"},
                {"name": "step", "label": "Decode step", "unit": "ms"},
                {"name": "queue", "label": "Queue limit", "unit": "req", "value": 1e6, "range": [10, 1e6]},
            ]
        }
    }
    working = describe_reading(spec, "kv", "2 × 80 × 8 × 128 × 2 B = 320 KiB")
    assert working["message"].startswith("Read as 320 KiB/tok") and "after '='" in working["message"]
    nodes = describe_reading(spec, "replicas", "47 nodes (376 GPUs)")
    assert nodes["message"].startswith("Read as 47 replicas") and "read as a note" in nodes["message"], nodes
    step = describe_reading(spec, "step", "20-25 ms")
    assert step["message"].startswith("Read as 22.5 ms") and "midpoint" in step["message"], step
    assert describe_reading(spec, "queue", "unbounded") == {
        "state": "read",
        "message": "Read as no limit (unbounded)",
    }
