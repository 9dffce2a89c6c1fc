"""After submit the report shows the question's headline figures and both designs, matched and missing
marked."""

import re

import pytest

from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db
SEED = "A 70B model&#x27;s KV cache is 320 KB per token, and a 30k-token conversation is 10 GB"


@pytest.fixture
def submitted(tmp_path, alice):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="timed")
    gateway = {
        "id": "g1",
        "kind": "gateway",
        "label": "Front door",
        "job": "Authenticate",
        "failure": "Overload",
    }
    design = {
        "nodes": [*round_.work.design["nodes"], gateway],
        "edges": [{"source": "client", "target": "g1"}],
    }
    work_save(round_id=round_.pk, base_revision=0, design=design)
    return round_submit(round_id=round_.pk)


def statuses(page: str, side: str) -> dict[str, str]:
    figure = page.split(f'id="design-drawing-{side}"', 1)[1].split("</figure>", 1)[0]
    return dict(re.findall(r'data-box-id="([^"]+)" data-status="([^"]*)"', figure))


def test_the_report_shows_the_headline_figures_of_the_seed(client, alice, submitted):
    client.force_login(alice)
    page = client.get(f"/rounds/{submitted.pk}/report/").content.decode()
    headline = page.split('id="question-headline"', 1)[1].split("</section>", 1)[0]
    assert SEED in headline


def test_the_report_draws_the_candidates_design_beside_the_reference_with_matched_and_missing_marked(
    client, alice, submitted
):
    client.force_login(alice)
    page = client.get(f"/rounds/{submitted.pk}/report/").content.decode()
    assert 'id="designs-compared"' in page
    mine = statuses(page, "candidate")
    assert mine == {"client": "", "g1": "matched"}
    reference = statuses(page, "reference")
    kinds = {node["id"]: node["kind"] for node in submitted.spec["design"]["nodes"]}
    gateway_ids = [node_id for node_id, kind in kinds.items() if kind == "gateway"]
    assert all(reference[node_id] == "matched" for node_id in gateway_ids)
    others = [node_id for node_id, kind in kinds.items() if kind not in ("gateway", "client")]
    assert others and all(reference[node_id] == "missing" for node_id in others)
