"""The API as one surface: every route ends with a slash (the old slash-less forms still answer), every
operation in the schema has a description, and the round report is typed like the grade endpoint's."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from interview.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db


def api_routes(patterns=None, prefix: str = "") -> list[str]:
    routes = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            routes += api_routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and route.startswith("api/"):
            routes.append(route)
    return routes


@pytest.fixture
def schema(client) -> dict:
    return client.get("/api/schema/", {"format": "json"}).json()


def test_every_api_route_ends_with_a_slash():
    routes = api_routes()
    assert len(routes) > 20
    assert [route for route in routes if not route.endswith("/")] == []


def test_an_old_slash_less_api_url_still_answers_a_post_with_its_body(tmp_path, alice):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    api = APIClient()
    api.force_authenticate(alice)
    saved = api.post(f"/api/rounds/{round_.pk}/save", {"revision": 0, "scratch": "old URL"}, format="json")
    assert saved.status_code == 200 and saved.json()["revision"] == 1
    assert api.get(f"/api/rounds/{round_.pk}/nothing-here").status_code == 404


def test_every_operation_in_the_schema_has_a_description(schema):
    missing = [
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if not operation.get("description", "").strip()
    ]
    assert missing == []


def test_the_round_report_is_typed_like_the_grade_endpoints_and_a_real_one_fits(
    client, schema, tmp_path, alice
):
    components = schema["components"]["schemas"]
    report_ref = components["RoundReport"]["properties"]["report"]["$ref"]
    report = components[report_ref.rsplit("/", 1)[-1]]
    grade_report = components["Report"]
    assert set(grade_report["properties"]) <= set(report["properties"])
    assert report["properties"]["lines"]["items"]["$ref"] == "#/components/schemas/Line"

    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(alice)
    client.post(f"/api/rounds/{round_.pk}/submit/")
    answer = client.get(f"/api/rounds/{round_.pk}/report/").json()["report"]
    assert set(report["required"]) <= set(answer) <= set(report["properties"])
    line_schema = components["Line"]
    assert answer["lines"] and all(set(line) == set(line_schema["properties"]) for line in answer["lines"])
