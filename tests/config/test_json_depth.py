"""JSON nested deeper than the bound is refused at the parser, for every JSON body, with one log line: a 400,
never a RecursionError (a 500 and a 181 KiB traceback per request before)."""

import logging

import pytest

from config.json_body import MAX_JSON_DEPTH, json_depth_exceeds
from interview.services.api_tokens import api_token_issue
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_the_depth_is_counted_on_brackets_outside_strings():
    assert not json_depth_exceeds('{"a": [[1]], "b": "[[[[[[[[[[[["}', limit=3)
    assert json_depth_exceeds('{"a": [[[1]]]}', limit=3)
    assert not json_depth_exceeds(nested(MAX_JSON_DEPTH)) and json_depth_exceeds(nested(MAX_JSON_DEPTH + 1))


def test_a_save_nested_500_deep_is_a_400_with_a_message_and_one_log_line(client, alice, tmp_path, caplog):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="timed")
    client.force_login(alice)
    body = '{"revision": 0, "scratch": ' + nested(500) + "}"
    with caplog.at_level(logging.WARNING):
        response = client.post(f"/rounds/{round_.pk}/save/", body, content_type="application/json")
    assert response.status_code == 400
    assert "nested more than 32 levels" in response.json()["error"]
    refusals = [record for record in caplog.records if record.name == "config.json_body"]
    assert len(refusals) == 1 and "\n" not in refusals[0].getMessage() and refusals[0].exc_info is None


def test_the_anonymous_token_endpoint_refuses_json_nested_100000_deep(client):
    response = client.post("/api/token/", nested(100_000), content_type="application/json")
    assert response.status_code == 400
    assert "nested more than" in response.content.decode()


def test_no_json_operation_of_the_api_answers_500_to_a_body_nested_100000_deep(client, alice, tmp_path):
    load_questions(tmp_path, KV_QUESTION)
    headers = {"Authorization": f"Token {api_token_issue(user=alice)}"}
    schema = client.get("/api/schema/?format=json").json()
    tried = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            url = path.replace("{slug}", KV_QUESTION)
            for parameter in ("round_id", "comment_id", "invitation_id", "run_id", "number", "id"):
                url = url.replace("{" + parameter + "}", "1")
            response = getattr(client, method)(
                url, nested(100_000), content_type="application/json", headers=headers
            )
            assert response.status_code < 500, (method, url, response.status_code)
            tried += 1
    assert tried >= 10
