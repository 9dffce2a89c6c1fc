"""`manage.py replay`: synchronous replays of a submission's numbers over the pages' five seeds (or one chosen
seed), printed as JSON or as the report words it."""

import io
import json

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from grading.core.replay_inputs import replay_inputs, replay_seeds
from grading.core.sim import run_scenario
from rounds.management.commands.replay import question_spec
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


def test_it_replays_one_scenario_on_both_sides_over_the_pages_five_seeds_and_prints_json(
    tmp_path, submission
):
    load_question(tmp_path)
    report = json.loads(replay(QUESTION_SLUG, submission, "--scenario", "lose-two-replicas", "--json"))
    assert report["question"] == QUESTION_SLUG and report["source"] == "version 1"
    assert [(run["scenario"], run["side"]) for run in report["runs"]] == [
        ("lose-two-replicas", "candidate"),
        ("lose-two-replicas", "reference"),
    ]
    candidate, reference = report["runs"]
    assert candidate["inputs"]["params"]["replicas"] == 12 and reference["inputs"]["params"]["replicas"] == 16
    seeds = replay_seeds(QUESTION_SLUG, "lose-two-replicas", settings.REPLAY_SEEDS)  # the pages' count
    assert candidate["seeds"] == reference["seeds"] == seeds
    assert "tpot" in candidate["inputs"]["fallbacks"]
    result = candidate["result"]
    assert result["runs"] == len(seeds) and result["seeds"] == seeds
    assert result["met"] == sum(run["passed"] for run in result["results"])
    assert {"passed", "slo_checks", "summary", "series", "narrative"} <= set(result["results"][0])
    assert 0 <= report["failure_score"] <= 100


def test_the_seeds_can_be_counted_or_one_chosen_and_the_same_seed_gives_the_same_results(submission):
    two = json.loads(replay(QUESTION_SLUG, submission, "--seeds", "2", "--side", "candidate", "--json"))
    assert [len(run["seeds"]) for run in two["runs"]] == [2, 2]
    first = json.loads(replay(QUESTION_SLUG, submission, "--seed", "7", "--side", "candidate", "--json"))
    second = json.loads(replay(QUESTION_SLUG, submission, "--seed", "7", "--side", "candidate", "--json"))
    assert first == second
    assert [run["seeds"] for run in first["runs"]] == [[7], [7]]
    assert [run["result"]["runs"] for run in first["runs"]] == [1, 1]
    assert first["source"] == f"bank file {QUESTION_SLUG}.yaml"  # not loaded into the database: the bank file
    with pytest.raises(CommandError, match="not allowed with"):
        replay(QUESTION_SLUG, submission, "--seed", "7", "--seeds", "2")
    with pytest.raises(CommandError, match="at least 1"):
        replay(QUESTION_SLUG, submission, "--seeds", "0")


def test_without_json_it_says_in_how_many_runs_each_side_met_its_slo_and_the_narrative(submission):
    text = replay(QUESTION_SLUG, submission, "--scenario", "lose-two-replicas", "--side", "reference")
    (inputs,) = [
        entry
        for entry in replay_inputs(question_spec(QUESTION_SLUG)[0], side="reference")
        if entry["scenario"] == "lose-two-replicas"
    ]
    args = (inputs["family"], inputs["params"], inputs["events"], inputs["slo"], inputs["duration_s"])
    n = settings.REPLAY_SEEDS
    alone = [run_scenario(*args, seed) for seed in replay_seeds(QUESTION_SLUG, "lose-two-replicas", n)]
    met = sum(result.passed for result in alone)
    assert f"lose-two-replicas [reference, {n} seeds]: met its SLO in {met} of {n} runs" in text
    assert ("(the verdict depends on the seed)" in text) == (0 < met < n)
    for position, check in enumerate(alone[0].slo_checks):
        check_met = sum(result.slo_checks[position]["passed"] for result in alone)
        assert f"{check['words']}: " in text and f"met in {check_met} of {n} runs" in text
    assert "At t=120 s 2 replicas died" in text
    one = replay(QUESTION_SLUG, submission, "--scenario", "lose-two-replicas", "--seed", "3")
    assert "lose-two-replicas [reference, seed 3]: " in one
    assert "lose-two-replicas [candidate, seed 3]: " in one


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
