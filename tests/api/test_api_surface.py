"""The API as one surface: every route ends with a slash (the old slash-less forms still answer), every
operation in the schema has a description, and the round report is typed like the grade endpoint's."""

import jsonschema
import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from questions.models import QuestionVersion
from rounds.models import ReplayRun
from rounds.services.replays import replay_execute
from rounds.services.rounds import round_start
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


def strict_json_schema(node: object) -> object:
    """An OpenAPI 3.0 schema as JSON Schema (`nullable` as a null type) in which an object may hold only the
    properties it names, so a report's untyped key fails validation."""
    if isinstance(node, list):
        return [strict_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: strict_json_schema(value) for key, value in node.items() if key != "nullable"}
    if "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


def validate_against(schema: dict, component: str, value: object) -> None:
    components = strict_json_schema(schema["components"])
    jsonschema.validate(value, {"$ref": f"#/components/schemas/{component}", "components": components})


def test_the_strict_check_refuses_an_untyped_key_and_a_wrong_type(schema):
    row = {"name": "n_layers", "label": "Layers", "elasticity": 1.0}
    validate_against(schema, "Sensitivity", row)
    for wrong in ({**row, "extra": 1}, {**row, "elasticity": "1.0"}, {"name": "n_layers", "label": "Layers"}):
        with pytest.raises(jsonschema.ValidationError):
            validate_against(schema, "Sensitivity", wrong)


def test_the_review_section_of_a_round_report_is_typed_field_by_field(schema):
    components = schema["components"]["schemas"]
    report = components["SubmittedReport"]
    assert report["properties"]["review"]["allOf"] == [{"$ref": "#/components/schemas/Review"}]
    review = components["Review"]
    assert set(review["properties"]) == {
        "flaws", "marks", "found", "missed", "false_alarms", "duplicates", "ranking", "weights",
        "review_share", "engine_overall", "replays", "scores", "fixed_sheet",
    }  # fmt: skip
    assert review["properties"]["marks"]["items"] == {"$ref": "#/components/schemas/ReviewMark"}
    assert review["properties"]["engine_overall"] == {
        "type": "number", "format": "double", "nullable": True, "description": "The engine's overall score"
    }  # fmt: skip
    side = components["ReviewReplaySide"]["properties"]
    assert side["slo_checks"]["items"] == {"$ref": "#/components/schemas/SloCheck"}
    assert components["SloCheck"]["properties"]["actual"]["nullable"] is True
    assert components["ReviewScores"]["properties"]["review"]["nullable"] is True
    assert components["SubmittedScores"]["properties"]["review"]["nullable"] is True

    def untyped(name: str, node: dict) -> list[str]:
        """Objects that name no properties and type no values: what `review: {}` was."""
        if (
            node.get("type") == "object"
            and "properties" not in node
            and node.get("additionalProperties")
            in (
                None,
                {},
                True,
            )
        ):
            return [name]
        return [
            path
            for key, child in node.get("properties", {}).items()
            for path in untyped(f"{name}.{key}", child)
        ]

    section = [name for name in components if name.startswith(("Review", "SloCheck", "RankedFix"))]
    assert len(section) >= 10
    assert [path for name in ["SubmittedReport", *section] for path in untyped(name, components[name])] == []


def test_a_real_review_rounds_report_validates_against_the_schema_pending_and_complete(
    client, schema, tmp_path, alice, django_capture_on_commit_callbacks
):
    question = load_questions(tmp_path, "gateway-fallback-review")["gateway-fallback-review"]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(alice)
    design = dict(round_.work.design)
    design["marks"] = [
        {"target": "q", "what": "The queue has no limit", "how": "it grows without bound at peak"},
        {"target": "q", "what": "Unbounded queue", "how": "grows forever"},
        {"target": "eng", "what": "The GPUs are too slow", "how": "need more of them"},
    ]
    fixes = [
        {"text": "Buy fallback quota for the whole load", "category": "infrastructure"},
        {"text": "Bound the queue and reject after 2 s", "category": "admission"},
    ]
    body = {
        "revision": 0,
        "design": design,
        "numbers": {"fixed--queue_limit": "300 req", "fixed--max_batch": "lots"},  # sheet 2, the fixed design
        "fixes": fixes,
    }
    assert (
        client.post(f"/api/rounds/{round_.pk}/save/", body, content_type="application/json").status_code
        == 200
    )
    # The replay runs are created on commit; their messages are never sent here: the test runs each itself.
    with django_capture_on_commit_callbacks() as after_commit:
        assert client.post(f"/api/rounds/{round_.pk}/submit/").status_code == 200
    for callback in after_commit:
        callback()

    pending = client.get(f"/api/rounds/{round_.pk}/report/").json()["report"]
    assert pending["review"]["replays"]["pending"] is True and pending["scores"]["review"] is None
    assert [mark["verdict"] for mark in pending["review"]["marks"]] == ["found", "duplicate", "false_alarm"]
    validate_against(schema, "SubmittedReport", pending)

    runs = ReplayRun.objects.filter(round=round_)
    assert runs.count() == 6  # the given design, the fixed one and the reference fix, two scenarios each
    assert all(replay_execute(run_id=run.pk) == "done" for run in runs)
    complete = client.get(f"/api/rounds/{round_.pk}/report/").json()["report"]
    replays = complete["review"]["replays"]
    assert "pending" not in replays and len(replays["scenarios"]) == 2
    assert any(scenario["fallbacks"] for scenario in replays["scenarios"])  # 'lots' could not be read
    assert complete["scores"]["review"] is not None and complete["review"]["ranking"]["ok"] is False
    assert replays["failure"]["score"] is not None and replays["reference_fix"] is True
    assert [line["name"] for line in complete["review"]["fixed_sheet"]][0] == "replicas"
    validate_against(schema, "SubmittedReport", complete)


def test_a_round_the_engine_could_not_grade_still_answers_a_report_in_the_schemas_shape(
    client, schema, tmp_path, alice
):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    # A stored version the engine cannot read (from an older release, say): the round is still submitted.
    QuestionVersion.objects.filter(pk=round_.question_version_id).update(
        spec={"slug": KV_QUESTION, "title": "Unreadable"}, content_hash="unreadable"
    )
    client.force_login(alice)
    assert client.post(f"/api/rounds/{round_.pk}/submit/").json()["status"] == "submitted"
    report = client.get(f"/api/rounds/{round_.pk}/report/").json()["report"]
    assert report["error"].startswith("This round could not be graded automatically")
    assert report["lines"] == [] and report["scores"]["overall"] is None
    validate_against(schema, "SubmittedReport", report)


def test_a_graded_depth_phase_is_typed_field_by_field(client, schema, tmp_path, alice):
    slug = "seven-boxes-serving-walkthrough"
    load_questions(tmp_path, slug)
    client.force_login(alice)
    depth = {
        "curveballs": {"think-time-halves": {"numbers": {"replicas": "23"}, "notes": {"a": "scale out"}}},
        "follow_ups": {"batch-not-kv": {"order": ["tpot-sets-batch", "fill-kv"], "number": "64"}},
    }
    design = {"nodes": [{"id": "a", "kind": "autoscaler", "label": "Autoscaler"}], "edges": []}
    body = {"numbers": {"replicas": "16"}, "design": design, "depth": depth}
    answer = client.post(f"/api/questions/{slug}/grade/", body, content_type="application/json").json()
    validate_against(schema, "Report", answer)
    assert answer["depth"]["curveballs"][0]["lines"][2]["verdict"] == "correct"
    assert answer["scores"]["depth"] == answer["depth"]["score"]
