"""`manage.py replay`: synchronous replays of a submission's numbers, printed as JSON."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.rounds.replay_fixtures import QUESTION_SLUG, load_question

pytestmark = pytest.mark.usefixtures("db")  # not a django_db mark: the pure run (-p no:django) collects this


def replay(*args: str) -> str:
    out = io.StringIO()
    call_command("replay", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def submission(tmp_path):
    path = tmp_path / "submission.json"
    path.write_text(json.dumps({"numbers": {"replicas": "12", "b_max": "64", "tpot": "banana"}}))
    return str(path)


def test_it_replays_one_scenario_on_both_sides_and_prints_json(tmp_path, submission):
    load_question(tmp_path)
    report = json.loads(replay(QUESTION_SLUG, submission, "--scenario", "lose-two-replicas", "--json"))
    assert report["question"] == QUESTION_SLUG and report["source"] == "version 1"
    assert [(run["scenario"], run["side"]) for run in report["runs"]] == [
        ("lose-two-replicas", "candidate"),
        ("lose-two-replicas", "reference"),
    ]
    candidate, reference = report["runs"]
    assert candidate["inputs"]["params"]["replicas"] == 12 and reference["inputs"]["params"]["replicas"] == 16
    assert candidate["seed"] == reference["seed"]
    assert "tpot" in candidate["inputs"]["fallbacks"]
    assert {"passed", "slo_checks", "summary", "series", "narrative"} <= set(candidate["result"])
    assert 0 <= report["failure_score"] <= 100


def test_the_same_seed_gives_the_same_results_and_the_seed_can_be_chosen(submission):
    first = json.loads(replay(QUESTION_SLUG, submission, "--seed", "7", "--side", "candidate", "--json"))
    second = json.loads(replay(QUESTION_SLUG, submission, "--seed", "7", "--side", "candidate", "--json"))
    assert first == second
    assert [run["seed"] for run in first["runs"]] == [7, 7]
    assert first["source"] == f"bank file {QUESTION_SLUG}.yaml"  # not loaded into the database: the bank file


def test_without_json_it_prints_each_verdict_and_the_narrative(submission):
    text = replay(QUESTION_SLUG, submission, "--scenario", "lose-two-replicas", "--side", "reference")
    assert "lose-two-replicas [reference, seed" in text
    assert "At t=120 s 2 replicas died" in text


def test_it_refuses_an_unknown_question_scenario_or_submission(tmp_path, submission):
    with pytest.raises(CommandError, match="No question 'no-such-question'"):
        replay("no-such-question", submission)
    with pytest.raises(CommandError, match="No scenario 'meteor-strike'"):
        replay(QUESTION_SLUG, submission, "--scenario", "meteor-strike")
    bad = tmp_path / "bad.json"
    bad.write_text('{"numbers": {"replicas": 12}}')
    with pytest.raises(CommandError, match="numbers"):
        replay(QUESTION_SLUG, str(bad))
    with pytest.raises(CommandError, match="Cannot read"):
        replay(QUESTION_SLUG, str(tmp_path / "missing.json"))
