"""Concept pages: one per concept, in our own words, through the safe Markdown pipeline, linked both ways."""

import pytest
from django.urls import reverse

from grading.core.vocabulary import CONCEPT_TITLES
from interview.views.concepts import CONCEPTS_DIR, concept_html
from tests.interview.community_helpers import BATCHING_SLUG, PLAN_SLUG, questions_load


@pytest.fixture
def questions(db, tmp_path):
    return questions_load(tmp_path)


@pytest.mark.parametrize("slug", sorted(CONCEPT_TITLES))
def test_every_concept_has_a_page_of_120_to_300_words(slug):
    path = CONCEPTS_DIR / f"{slug}.md"
    assert path.exists(), f"write {path}"
    words = len(path.read_text(encoding="utf-8").split())
    assert 120 <= words <= 300, f"{slug}: {words} words"


def test_there_is_no_concept_file_without_a_title():
    assert {path.stem for path in CONCEPTS_DIR.glob("*.md")} == set(CONCEPT_TITLES)


def test_concept_pages_go_through_the_safe_pipeline():
    html = concept_html("kv-cache-memory")
    assert "<code>kv_bytes_per_token" in html
    assert "<script" not in html and "<h1" not in html


def test_the_concept_list_links_every_concept_and_counts_its_questions(client, questions):
    page = client.get(reverse("concepts")).content.decode()
    for slug in CONCEPT_TITLES:
        assert reverse("concept-detail", args=[slug]) in page
    assert "Little&#x27;s law" in page or "Little's law" in page


def test_a_concept_page_lists_the_questions_that_use_it(client, questions):
    page = client.get(reverse("concept-detail", args=["kv-cache-memory"])).content.decode()
    assert "<h1>KV-cache memory</h1>" in page
    assert "128 KiB" in page and "320 KiB" not in page  # other numbers than the questions that link it
    assert f"/questions/{BATCHING_SLUG}/" in page
    assert f"/questions/{PLAN_SLUG}/" not in page
    page = client.get(reverse("concept-detail", args=["littles-law"])).content.decode()
    assert f"/questions/{PLAN_SLUG}/" in page


def test_a_concept_nobody_uses_says_so(client, questions):
    page = client.get(reverse("concept-detail", args=["power-and-cooling"])).content.decode()
    assert "No published question uses it yet." in page


def test_an_unknown_concept_is_404(client, db):
    assert client.get(reverse("concept-detail", args=["no-such-concept"])).status_code == 404


def test_the_question_page_links_its_concepts_and_the_next_question(client, questions):
    page = client.get(reverse("question-detail", args=[PLAN_SLUG])).content.decode()
    assert '<a href="/concepts/littles-law/">Little&#x27;s law</a>' in page
    assert f'<a href="/questions/{BATCHING_SLUG}/">' in page.split("Next in this track")[1]
