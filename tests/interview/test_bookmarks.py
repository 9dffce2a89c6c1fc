"""Bookmarks: the htmx toggle on catalogue and question page, the bookmarks page, the catalogue filter."""

import pytest
from django.urls import reverse

from interview.models import Bookmark
from interview.services.bookmarks import bookmark_toggle
from tests.interview.community_helpers import BATCHING_SLUG, PLAN_SLUG, questions_load

pytestmark = pytest.mark.django_db


@pytest.fixture
def questions(tmp_path):
    return questions_load(tmp_path)


def test_bookmarking_with_htmx_answers_the_toggle_alone(client, alice, questions):
    client.force_login(alice)
    url = reverse("bookmark-toggle", args=[BATCHING_SLUG])
    response = client.post(url, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.startswith(f'<form id="bookmark-{BATCHING_SLUG}"')
    assert "★ Bookmarked" in html and 'aria-pressed="true"' in html
    assert Bookmark.objects.filter(user=alice, question__slug=BATCHING_SLUG).exists()
    html = client.post(url, headers={"HX-Request": "true"}).content.decode()
    assert "☆ Bookmark" in html
    assert not Bookmark.objects.exists()


def test_bookmarking_without_javascript_goes_back_where_it_came_from(client, alice, questions):
    client.force_login(alice)
    url = reverse("bookmark-toggle", args=[PLAN_SLUG])
    response = client.post(url, {"on": "1", "next": "/?track=inference"})
    assert response.status_code == 302 and response.url == "/?track=inference"
    response = client.post(url, {"on": "1", "next": "https://evil.example/"})
    assert response.url == reverse("question-detail", args=[PLAN_SLUG])
    assert Bookmark.objects.filter(user=alice).count() == 1


def test_a_stale_bookmark_button_clicked_twice_keeps_one_bookmark(alice, questions):
    question = questions[PLAN_SLUG]
    assert bookmark_toggle(user=alice, question=question, on=True)
    assert bookmark_toggle(user=alice, question=question, on=True)
    assert Bookmark.objects.filter(user=alice).count() == 1


def test_the_question_page_and_the_catalogue_show_the_toggle(client, alice, questions):
    bookmark_toggle(user=alice, question=questions[BATCHING_SLUG])
    client.force_login(alice)
    page = client.get(reverse("question-detail", args=[BATCHING_SLUG])).content.decode()
    assert f'id="bookmark-{BATCHING_SLUG}"' in page and "★ Bookmarked" in page
    catalogue = client.get(reverse("home")).content.decode()
    assert f'id="bookmark-{BATCHING_SLUG}"' in catalogue
    assert f'id="bookmark-{PLAN_SLUG}"' in catalogue


def test_the_bookmarks_page_lists_only_my_bookmarks(client, alice, charlie, questions):
    bookmark_toggle(user=alice, question=questions[BATCHING_SLUG])
    bookmark_toggle(user=charlie, question=questions[PLAN_SLUG])
    client.force_login(alice)
    page = client.get(reverse("bookmarks")).content.decode()
    assert f'id="bookmarked-{BATCHING_SLUG}"' in page
    assert f'id="bookmarked-{PLAN_SLUG}"' not in page
    assert 'href="/bookmarks/"' in page  # the nav link


def test_the_bookmarks_page_asks_people_to_log_in(client, questions):
    response = client.get(reverse("bookmarks"))
    assert response.status_code == 302 and "/accounts/login/" in response.url
    response = client.post(reverse("bookmark-toggle", args=[PLAN_SLUG]))
    assert response.status_code == 302 and "/accounts/login/" in response.url
    assert not Bookmark.objects.exists()


def test_bookmarking_an_unknown_question_is_404(client, alice, questions):
    client.force_login(alice)
    assert client.post(reverse("bookmark-toggle", args=["no-such-question"])).status_code == 404


def test_the_catalogue_filters_by_bookmarked(client, alice, questions):
    bookmark_toggle(user=alice, question=questions[PLAN_SLUG])
    client.force_login(alice)
    response = client.get(reverse("home"), {"bookmarked": "1"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="results">')
    assert f"/questions/{PLAN_SLUG}/" in html
    assert f"/questions/{BATCHING_SLUG}/" not in html
    assert "1 question" in html
