"""Every stored field of a design has a bound (twenty saves of a 2.3 MB arrow label grew the database by 97 MB
in five seconds): an arrow's label and id, a group's parent, keys the server does not read, the whole size.
A refusal names the field and stores nothing (the boxes' and arrows' own texts by the one check of a
submission, grading.core.submission, the rest by the save's)."""

import json

import pytest

from rounds.services.rounds import round_start
from rounds.validation import MAX_DESIGN_CHARS, MAX_FIELD_TEXT, MAX_ID_TEXT
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db

BOXES = [{"id": "gw", "kind": "gateway", "label": "Gateway"}, {"id": "llm", "kind": "model", "label": "LLM"}]
HUGE = "x" * 2_300_000


@pytest.fixture
def round_(alice, tmp_path):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    return round_start(candidate=alice, question=question, mode="timed")


def save_design(client, round_, design):
    body = json.dumps({"revision": 0, "design": design})
    return client.post(f"/rounds/{round_.pk}/save/", body, content_type="application/json")


ARROW = {"source": "gw", "target": "llm", "label": "tokens"}
OVERSIZED = {
    "an arrow's 2.3 MB label": ({"edges": [{**ARROW, "label": HUGE}]}, "design"),
    "an arrow's long label": (
        {"edges": [{**ARROW, "label": "x" * (MAX_FIELD_TEXT + 1)}]},
        "design.edges[0].label",
    ),
    "an arrow's long id": ({"edges": [{**ARROW, "id": "e" * 1000}]}, "design.edges[0].id"),
    "a long arrow end": ({"edges": [{**ARROW, "source": "g" * (MAX_ID_TEXT + 1)}]}, "design.edges[0]"),
    "a group's long parent": (
        {"groups": [{"id": "g1", "label": "Tier", "parent": "p" * 1000}]},
        "design.groups[0].parent",
    ),
    "a long value under an unknown key": ({"layout": {"zoom": "z" * 5000}}, "design.layout.zoom"),
    "a long unknown key": ({"k" * 1000: 1}, "design: a key"),
}


@pytest.mark.parametrize("case", OVERSIZED, ids=lambda case: case.replace(" ", "-"))
def test_an_oversized_design_field_is_refused_naming_it_and_nothing_is_stored(client, alice, round_, case):
    extra, named = OVERSIZED[case]
    client.force_login(alice)
    response = save_design(client, round_, {"nodes": BOXES, "edges": [], **extra})
    assert response.status_code == 400
    assert response.json()["error"].startswith(f"Invalid input: {named}"), response.json()
    round_.work.refresh_from_db()
    assert round_.work.revision == 0 and round_.work.design != {"nodes": BOXES}


def test_a_design_as_big_as_the_canvas_allows_is_stored(client, alice, round_):
    boxes = [{"id": f"n{i}", "kind": "model", "label": "L" * 80, "job": "j" * 200, "failure": "f" * 200,
              "x": i * 10, "y": i * 20, "parent": "g1"} for i in range(80)]  # fmt: skip
    arrows = [{"source": f"n{i}", "target": f"n{i + 1}", "label": "a" * 80} for i in range(79)]
    design = {"nodes": boxes, "edges": arrows, "groups": [{"id": "g1", "label": "Tier"}]}
    assert len(json.dumps(design)) < MAX_DESIGN_CHARS
    client.force_login(alice)
    response = save_design(client, round_, design)
    assert response.status_code == 200, response.content
