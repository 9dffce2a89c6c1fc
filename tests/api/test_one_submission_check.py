"""One check of a design and the numbers (issue 29, "one schema, one error shape"): the page's autosave, the
API save, the API grade and `manage.py grade` refuse the same bad input with the same field-named message, and
the OpenAPI schema documents the limits that check enforces."""

import json

import pytest
from django.core.management import CommandError, call_command

from grading.core.submission import MAX_BOX_TEXT, MAX_NODES, MAX_NUMBER_TEXT
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db

BOX = {"id": "gw", "kind": "gateway", "label": "Gateway", "job": "auth", "failure": "overload"}
# Each bad input, and what the one check says about it (written here by hand, field by field).
BAD = {
    "two boxes with one id": (
        {"design": {"nodes": [BOX, {**BOX, "label": "Second"}], "edges": []}},
        {"design.nodes[1].id": ["'gw' is used by two boxes"]},
    ),
    "a box with an empty id": (
        {"design": {"nodes": [{**BOX, "id": ""}], "edges": []}},
        {"design.nodes[0].id": ["must not be empty"]},
    ),
    "a label that is a number": (
        {"design": {"nodes": [{**BOX, "label": 7}], "edges": []}},
        {"design.nodes[0].label": ["expected text"]},
    ),
    "an arrow to no box": (
        {"design": {"nodes": [BOX], "edges": [{"source": "gw", "target": "llm"}]}},
        {"design.edges[0].target": ["'llm' is not the id of a box"]},
    ),
    "a label one character too long": (
        {"design": {"nodes": [{**BOX, "label": "x" * (MAX_BOX_TEXT + 1)}], "edges": []}},
        {"design.nodes[0].label": [f"at most {MAX_BOX_TEXT} characters"]},
    ),
    "one box too many": (
        {"design": {"nodes": [{**BOX, "id": f"b{i}"} for i in range(MAX_NODES + 1)], "edges": []}},
        {"design.nodes": [f"at most {MAX_NODES} entries"]},
    ),
    "a number that is not text": (
        {"numbers": {"kv_conv": 9.8}},
        {"numbers.kv_conv": ["expected text"]},
    ),
}


@pytest.fixture
def round_(alice, tmp_path):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    return round_start(candidate=alice, question=question, mode="timed")


def said(errors: dict[str, list[str]]) -> str:
    """The one sentence of a refusal by field, as the API's detail has always put it."""
    return "Invalid input: " + "; ".join(
        f"{field}: {' '.join(messages)}" for field, messages in errors.items()
    )


@pytest.mark.parametrize("case", BAD, ids=lambda case: case.replace(" ", "-"))
def test_the_page_the_api_save_and_the_api_grade_refuse_a_bad_input_alike(client, alice, bob, round_, case):
    body, errors = BAD[case]
    client.force_login(alice)
    page = client.post(
        f"/rounds/{round_.pk}/save/", json.dumps({"revision": 0, **body}), content_type="application/json"
    )
    api_save = client.post(
        f"/api/rounds/{round_.pk}/save/", {"revision": 0, **body}, content_type="application/json"
    )
    client.force_login(bob)  # alice's open round hides the question's reference from her checks
    api_grade = client.post(f"/api/questions/{KV_QUESTION}/grade/", body, content_type="application/json")

    expected = {"detail": said(errors), "code": "invalid", "errors": errors}
    assert (page.status_code, api_save.status_code, api_grade.status_code) == (400, 400, 400)
    assert api_grade.json() == expected
    assert api_save.json() == expected
    assert page.json()["error"] == said(errors)
    assert page.json()["errors"] == errors
    round_.work.refresh_from_db()
    assert round_.work.revision == 0


@pytest.mark.parametrize("case", BAD, ids=lambda case: case.replace(" ", "-"))
def test_the_grade_command_refuses_a_bad_input_with_the_same_message(round_, tmp_path, case):
    body, errors = BAD[case]
    path = tmp_path / "submission.json"
    path.write_text(json.dumps(body))
    with pytest.raises(CommandError) as refusal:
        call_command("grade", KV_QUESTION, str(path))
    assert str(refusal.value) == said(errors)


def test_a_null_number_is_a_blank_answer_as_the_grade_reads_it(client, alice, round_):
    client.force_login(alice)
    url = f"/api/rounds/{round_.pk}/save/"
    typed = client.post(
        url, {"revision": 0, "numbers": {"kv_conv": "98 GB"}}, content_type="application/json"
    )
    assert typed.status_code == 200, typed.content
    cleared = client.post(url, {"revision": 1, "numbers": {"kv_conv": None}}, content_type="application/json")
    assert cleared.status_code == 200, cleared.content
    round_.work.refresh_from_db()
    assert round_.work.numbers == {"kv_conv": ""}


def test_the_save_keeps_its_own_rule_for_a_number_the_question_does_not_ask(client, alice, round_):
    client.force_login(alice)
    response = client.post(
        f"/api/rounds/{round_.pk}/save/",
        {"revision": 0, "numbers": {"nope": "1"}},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {"numbers.nope": ["this question does not ask for it"]}


def resolve(schema: dict, node: dict) -> dict:
    """The schema a property names: through its `$ref` (alone, or under `allOf` beside nullable)."""
    while "$ref" in node or "allOf" in node:
        ref = node["$ref"] if "$ref" in node else node["allOf"][0]["$ref"]
        node = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return node


def request_body(schema: dict, path: str) -> dict:
    body = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return resolve(schema, body)


@pytest.mark.parametrize("path", ["/api/rounds/{round_id}/save/", "/api/questions/{slug}/grade/"])
def test_the_schema_documents_the_design_and_the_numbers_with_their_limits(client, path):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    body = request_body(schema, path)
    design = resolve(schema, body["properties"]["design"])
    assert design["properties"]["nodes"]["maxItems"] == MAX_NODES
    node = resolve(schema, design["properties"]["nodes"]["items"])
    assert node["properties"]["label"]["maxLength"] == MAX_BOX_TEXT
    numbers = resolve(schema, body["properties"]["numbers"])
    assert numbers["additionalProperties"]["maxLength"] == MAX_NUMBER_TEXT


def test_the_save_and_the_grade_document_one_design(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    save = request_body(schema, "/api/rounds/{round_id}/save/")["properties"]
    grade = request_body(schema, "/api/questions/{slug}/grade/")["properties"]
    assert resolve(schema, save["design"]) == resolve(schema, grade["design"])
    assert resolve(schema, save["numbers"]) == resolve(schema, grade["numbers"])
