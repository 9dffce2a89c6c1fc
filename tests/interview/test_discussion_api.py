"""The discussion and bookmark API: the same rules as the pages, in JSON."""

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from interview.models import Bookmark, Comment, ThreadLock, Vote
from interview.services.discussion import POSTS_PER_MINUTE, comment_create
from tests.interview.community_helpers import BATCHING_SLUG, questions_load, round_record

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()


@pytest.fixture
def question(tmp_path):
    return questions_load(tmp_path)[BATCHING_SLUG]


@pytest.fixture
def api():
    return APIClient()


def comments_url(question) -> str:
    return reverse("api-comment-list", args=[question.slug])


def test_the_api_posts_a_comment_with_an_anchor_and_renders_it_safely(api, alice, question):
    api.force_authenticate(alice)
    response = api.post(
        comments_url(question), {"body": "<script>x</script> **KV**", "on": "quantity:kv_bytes_per_token"}
    )
    assert response.status_code == 201
    assert response.data["body_html"] == "<p>&lt;script&gt;x&lt;/script&gt; <strong>KV</strong></p>\n"
    assert (response.data["anchor_kind"], response.data["anchor_value"]) == ("quantity", "kv_bytes_per_token")


def test_a_post_with_bad_fields_answers_the_documented_error_shape_and_stores_nothing(api, alice, question):
    api.force_authenticate(alice)
    response = api.post(comments_url(question), {"body": "", "parent": "first"}, format="json")
    assert response.status_code == 400
    assert set(response.data["errors"]) == {"body", "parent"}
    assert response.data["detail"].startswith("Invalid input: body: ")
    assert "parent: A valid integer is required." in response.data["detail"]
    assert not Comment.objects.exists()


def test_the_api_folds_the_thread_until_a_submitted_round(api, alice, bob, question):
    comment_create(question=question, author=bob, body="Spoiler")
    api.force_authenticate(alice)
    folded = api.get(comments_url(question)).data
    assert folded["folded"] is True and folded["results"] == [] and folded["count"] == 1
    assert (
        api.get(comments_url(question), {"open": "1"}).data["results"][0]["body_html"] == "<p>Spoiler</p>\n"
    )
    round_record(alice, question, score=50)
    assert api.get(comments_url(question)).data["folded"] is False


def test_the_api_lists_replies_under_their_comment(api, alice, bob, question):
    top = comment_create(question=question, author=alice, body="Top")
    comment_create(question=question, author=bob, body="Reply", parent=top)
    api.force_authenticate(alice)
    (listed,) = api.get(comments_url(question), {"open": "1"}).data["results"]
    assert [reply["author"] for reply in listed["replies"]] == ["bob"]


def test_the_api_refuses_posts_to_a_locked_thread(api, alice, admin_user, question):
    ThreadLock.objects.create(question=question, locked_by=admin_user)
    api.force_authenticate(alice)
    response = api.post(comments_url(question), {"body": "Hello"})
    assert response.status_code == 403
    assert "locked" in response.data["detail"]
    assert not Comment.objects.exists()


def test_the_api_rate_limits_posts(api, alice, question):
    api.force_authenticate(alice)
    for n in range(POSTS_PER_MINUTE):
        assert api.post(comments_url(question), {"body": f"Post {n}"}).status_code == 201
    response = api.post(comments_url(question), {"body": "Too many"})
    assert response.status_code == 429
    assert response.data["detail"].startswith("You are posting too fast: wait ")


def test_the_api_toggles_a_vote(api, alice, bob, question):
    comment = comment_create(question=question, author=alice, body="Vote")
    round_record(bob, question)
    api.force_authenticate(bob)
    url = reverse("api-comment-vote", args=[comment.pk])
    assert api.post(url, {}, format="json").data == {"voted": True, "vote_count": 1}
    assert api.post(url, {"up": True}, format="json").data == {"voted": True, "vote_count": 1}
    assert api.post(url, {}, format="json").data == {"voted": False, "vote_count": 0}
    assert not Vote.objects.exists()


def test_the_api_refuses_a_vote_on_a_thread_folded_for_you(api, alice, bob, question):
    comment = comment_create(question=question, author=alice, body="Spoiler")
    api.force_authenticate(bob)
    response = api.post(reverse("api-comment-vote", args=[comment.pk]), {}, format="json")
    assert response.status_code == 403 and "folded" in response.data["detail"]
    assert not Vote.objects.exists()


def test_the_api_refuses_a_vote_on_your_own_comment(api, alice, question):
    comment = comment_create(question=question, author=alice, body="Mine")
    round_record(alice, question)
    api.force_authenticate(alice)
    response = api.post(reverse("api-comment-vote", args=[comment.pk]), {}, format="json")
    assert response.status_code == 400 and response.data["detail"] == "You cannot vote for your own comment."
    assert not Vote.objects.exists()


def test_the_api_toggles_and_lists_bookmarks(api, alice, charlie, question):
    api.force_authenticate(alice)
    url = reverse("api-bookmark-toggle", args=[question.slug])
    assert api.post(url, {}, format="json").data == {"bookmarked": True}
    assert [q["slug"] for q in api.get(reverse("api-bookmark-list")).data] == [BATCHING_SLUG]
    api.force_authenticate(charlie)
    assert api.get(reverse("api-bookmark-list")).data == []
    api.force_authenticate(alice)
    assert api.post(url, {"on": False}, format="json").data == {"bookmarked": False}
    assert not Bookmark.objects.exists()


def test_anonymous_reads_the_folded_thread_as_on_the_site_but_writes_nothing(api, alice, question):
    comment_create(question=question, author=alice, body="Spoiler")
    folded = api.get(comments_url(question))
    assert folded.status_code == 200 and folded.data["folded"] and folded.data["results"] == []
    opened = api.get(comments_url(question), {"open": "1"})
    assert [c["author"] for c in opened.data["results"]] == ["alice"]
    assert api.post(comments_url(question), {"body": "hi"}).status_code in (401, 403)
    assert api.post(reverse("api-bookmark-toggle", args=[question.slug])).status_code in (401, 403)
    assert not Comment.objects.filter(body_markdown="hi").exists()


def test_anonymous_reads_the_catalogue_and_a_question_without_reference_values(api, client, question):
    listed = api.get(reverse("api-question-list"))
    assert listed.status_code == 200 and question.slug in [q["slug"] for q in listed.data]
    detail = api.get(reverse("api-question-detail", args=[question.slug]))
    assert detail.status_code == 200 and detail.data["title"] == question.title
    page = client.get(reverse("question-detail", args=[question.slug]))
    assert page.status_code == 200
    assert "model" not in detail.data["spec"] and detail.data["spec"]["asked"]
    assert all(set(line) == {"name", "label", "phase", "unit"} for line in detail.data["spec"]["asked"])


def test_the_schema_describes_the_discussion_endpoints(client):
    schema = client.get(reverse("api-schema")).content.decode()
    assert "/api/questions/{slug}/comments/" in schema
    assert "/api/comments/{comment_id}/vote/" in schema
