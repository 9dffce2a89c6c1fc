"""Catalogue search matches word by word: every word somewhere in a question's title, summary or slug, in any
order; it reads no spec, so a reference value finds nothing."""

from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions


def test_words_in_any_order_find_the_question_that_has_them_all(client, db, tmp_path):
    load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)
    # The title is "KV-cache tiering: keeping long conversations between turns": no phrase of these two words.
    found = client.get("/", {"q": "conversations tiering"})
    assert found.context["count"] == 1 and KV_QUESTION in found.content.decode()
    assert client.get("/", {"q": "conversations autoscaling"}).context["count"] == 0  # every word must match


def test_a_reference_value_finds_nothing(client, db, tmp_path):
    load_questions(tmp_path, KV_QUESTION)
    assert client.get("/", {"q": "327680"}).context["count"] == 0  # KV bytes per token, only in the spec
