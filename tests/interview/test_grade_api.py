"""`POST /api/questions/<slug>/grade/`: a practice check over the API."""

import pytest

from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db
SLUG = KV_QUESTION
URL = f"/api/questions/{SLUG}/grade/"


@pytest.fixture
def published(tmp_path):
    return load_questions(tmp_path, SLUG)[SLUG]


def post(client, url, data):
    return client.post(url, data, content_type="application/json")


def test_it_returns_the_report(client, alice, published):
    client.force_login(alice)
    response = post(client, URL, {"numbers": {"reload_dram_s": "25 ms", "kv_conv": "98 GB"}})
    assert response.status_code == 200
    report = response.json()
    lines = {line["name"]: line for line in report["lines"]}
    assert lines["kv_conv"]["verdict"] == "arithmetic_slip"
    assert report["question"]["version"] == 1
    assert report["design"] is None and report["scores"]["shape"] is None


def test_boxes_and_arrows_are_graded_when_given(client, alice, published):
    client.force_login(alice)
    design = {
        "nodes": [
            {
                "id": "gw",
                "kind": "gateway",
                "label": "Gateway",
                "job": "Authenticate the caller",
                "failure": "Connection exhaustion",
            }
        ],
        "edges": [{"source": "client", "target": "gw"}],
    }
    report = post(client, URL, {"numbers": {}, "design": design}).json()
    gateway = next(c for c in report["design"]["components"] if c["kind"] == "gateway")
    assert gateway["verdict"] == "present"
    assert report["design"]["path_ok"] is False


def test_a_malformed_submission_is_a_400_naming_the_field(client, alice, published):
    client.force_login(alice)
    response = post(client, URL, {"numbers": {"kv_conv": 9.8}, "design": {"nodes": "boxes"}})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Invalid input: numbers.kv_conv: expected text; design.nodes: expected a list",
        "code": "invalid",
        "errors": {"numbers.kv_conv": ["expected text"], "design.nodes": ["expected a list"]},
    }


def test_an_unknown_question_is_a_404(client, alice):
    client.force_login(alice)
    assert post(client, "/api/questions/nope/grade/", {"numbers": {}}).status_code == 404


def test_it_needs_a_signed_in_user(client, published):
    assert post(client, URL, {"numbers": {}}).status_code in (401, 403)


def test_any_signed_in_user_may_check_their_numbers(client, charlie, published):
    client.force_login(charlie)
    assert post(client, URL, {"numbers": {"kv_conv": "9.8 GB"}}).status_code == 200


def test_only_post_is_allowed(client, alice, published):
    client.force_login(alice)
    assert client.get(URL).status_code == 405


def test_the_schema_describes_the_endpoint_with_its_request_and_report(client, alice):
    client.force_login(alice)
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    operation = schema["paths"]["/api/questions/{slug}/grade/"]["post"]
    assert set(operation["responses"]) >= {"200", "400", "404"}
    components = schema["components"]["schemas"]
    assert "lines" in components["Report"]["properties"]
    assert "numbers" in components["SubmissionRequest"]["properties"]
