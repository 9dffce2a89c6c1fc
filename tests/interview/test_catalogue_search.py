"""Catalogue search matches word by word: every word somewhere in a question's title, summary or slug, in any
order; it reads no spec, so a reference value finds nothing. On PostgreSQL it is full-text search over the
same columns (the slug included)."""

import pytest
from django.db import connection

from grading.core.vocabulary import CONCEPT_TITLES
from questions.models import Question
from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions


def test_words_in_any_order_find_the_question_that_has_them_all(client, db, tmp_path):
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)
    # The title is "KV-cache tiering: keeping long conversations between turns": no phrase of these two words.
    found = client.get("/", {"q": "conversations tiering"})
    assert found.context["count"] == 1 and KV_QUESTION in found.content.decode()
    assert client.get("/", {"q": "conversations autoscaling"}).context["count"] == 0  # every word must match


SCHEDULER_QUESTION = "job-scheduler-100k-jobs"


@pytest.mark.parametrize(
    "query",
    [
        KV_QUESTION,  # pasted from the address bar
        "kv cache tiering",  # typed as words
        SCHEDULER_QUESTION,
        # "100k" is in no title, summary, concept or track name (the title says "100,000"): only in the slug
        "job scheduler 100k jobs",
        "100k",
    ],
)
def test_a_slug_pasted_or_typed_as_words_finds_its_question(client, db, tmp_path, query):
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION, SCHEDULER_QUESTION)
    found = client.get("/", {"q": query})
    wanted = SCHEDULER_QUESTION if "100k" in query else KV_QUESTION
    assert found.context["count"] == 1, (connection.vendor, query, found.context["count"])
    assert f"/questions/{wanted}/" in found.content.decode()


def test_a_reference_value_finds_nothing(client, db, tmp_path):
    load_questions(tmp_path, KV_QUESTION)
    assert client.get("/", {"q": "327680"}).context["count"] == 0  # KV bytes per token, only in the spec


def test_a_concept_by_name_finds_its_questions(client, db, tmp_path):
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)
    # kv-cache-tiering lists the concept kv-cache-memory; its title is not in the question's title or summary.
    title = CONCEPT_TITLES["kv-cache-memory"]
    found = client.get("/", {"q": title})
    assert KV_QUESTION in found.content.decode()
    assert Question.objects.get(slug=KV_QUESTION).search_text.startswith(title)


def test_on_postgresql_the_search_is_stemmed_full_text_served_by_a_gin_index(client, db, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's full-text search (the embedded SQLite matches word by word)")
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)
    # "caches" and "conversation" are stems of the title's "cache" and "conversations", no substring of it.
    found = client.get("/", {"q": "caches conversation"})
    assert found.context["count"] == 1 and KV_QUESTION in found.content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'question_search'")
        (definition,) = cursor.fetchone()
    assert "USING gin" in definition and "to_tsvector" in definition and "slug" in definition
