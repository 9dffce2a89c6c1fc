"""Votes stay one per person when clicks race: threads with their own database connections."""

import contextlib
import threading

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse

from interview.models import Comment, Vote
from interview.services.discussion import comment_create, comment_vote
from tests.interview.community_helpers import BATCHING_SLUG, questions_load

CLICKS = 8


@pytest.fixture
def comment(transactional_db, tmp_path, alice):
    cache.clear()
    question = questions_load(tmp_path)[BATCHING_SLUG]
    return comment_create(question=question, author=alice, body="Vote for me")


def race(action, times: int = CLICKS) -> list[BaseException]:
    """Run `action` in `times` threads released together; each thread closes its own connection.

    PostgreSQL (CI) runs them truly at once. SQLite's shared in-memory test database raises "table is
    locked" instead of waiting, so there the clicks take turns: the logic is checked, the race is not.
    """
    barrier = threading.Barrier(times)
    errors: list[BaseException] = []
    turns = threading.Lock() if connection.vendor == "sqlite" else contextlib.nullcontext()

    def run() -> None:
        try:
            barrier.wait()
            with turns:
                action()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return errors


def test_concurrent_up_clicks_make_exactly_one_vote(comment, bob):
    errors = race(lambda: comment_vote(comment=comment, user=bob, up=True))
    assert errors == []
    assert Vote.objects.filter(comment=comment, user=bob).count() == 1
    assert Comment.objects.get(pk=comment.pk).vote_count == 1


def test_concurrent_toggles_keep_the_count_equal_to_the_votes(comment, bob):
    errors = race(lambda: comment_vote(comment=comment, user=bob))
    assert errors == []
    votes = Vote.objects.filter(comment=comment, user=bob).count()
    # Each toggle is serialised on the comment row, so an even number of them leaves no vote.
    assert votes == 0
    assert Comment.objects.get(pk=comment.pk).vote_count == votes


def test_concurrent_clicks_through_the_page_count_once(comment, bob, charlie):
    clients = []
    for person in (bob, charlie):
        client = Client()
        client.force_login(person)
        clients.append(client)
    url = reverse("comment-vote", args=[comment.pk])
    turn = iter(range(CLICKS))
    lock = threading.Lock()

    def click() -> None:
        with lock:
            client = clients[next(turn) % 2]
        response = client.post(url, {"up": "1"}, headers={"HX-Request": "true"})
        assert response.status_code == 200

    assert race(click) == []
    assert sorted(Vote.objects.filter(comment=comment).values_list("user__username", flat=True)) == [
        "bob",
        "charlie",
    ]
    assert Comment.objects.get(pk=comment.pk).vote_count == 2
