"""The depth phase without an interviewer (issue 33): the curveball and decision format, and their grading.

A small serving question written here; every expected value is worked by hand in the comments:
arrival = users / (think + request) = 1000 / 30 = 33.33 req/s; in flight = 33.33 x 10 = 333.3;
replicas = ceil(333.3 / (50 x 0.7)) = ceil(9.52) = 10; GPUs = 10 x 8 = 80.
"""

import copy

import pytest

from grading.core.grader import grade
from grading.core.question_export import spec_to_dict
from grading.core.question_reader import parse_question
from grading.core.question_types import QuestionSpec, SpecError
from grading.core.submission import SubmissionError, read_submission
from tests.core.question_builders import an_input, derived, plan

PALETTE = {"gateway", "admission_queue", "engine", "autoscaler"}


def question() -> dict:
    return {
        "slug": "small-fleet",
        "title": "A small fleet",
        "track": "inference",
        "difficulty": "easy",
        "summary": "Users to replicas.",
        "prompt": "1,000 users think for 20 s between 10 s requests. How many replicas?",
        "plan": plan(
            ("numbers", 5, "Assumptions."), ("arithmetic", 10, "The chain."), ("depth", 15, "Curveballs.")
        ),
        "model": {
            "headline": "in_flight",
            "quantities": [
                an_input("users", 1000, "user", [100, 10000]),
                an_input("think", 20, "s", [5, 60]),
                an_input("request", 10, "s", [5, 20]),
                an_input("batch", 50, "user/replica", [10, 200]),
                an_input("util", 0.7, "", [0, 0.9]),
                an_input("gpus_per_replica", 8, "GPU/replica", [1, 8]),
                derived("arrival", "users / (think + request)", "user/s"),
                derived("in_flight", "arrival * request", "user"),
                derived("replicas", "ceil(in_flight / (batch * util))", "replica"),
                derived("gpus", "replicas * gpus_per_replica", "GPU"),
            ],
        },
        "asked": [
            {"name": "batch", "phase": "numbers"},
            {"name": "arrival", "phase": "arithmetic"},
            {"name": "in_flight", "phase": "arithmetic"},
            {"name": "replicas", "phase": "arithmetic", "check": "count"},
            {"name": "gpus", "phase": "arithmetic", "check": "count"},
        ],
        "design": {
            "nodes": [
                {"id": "gw", "kind": "gateway", "label": "Gateway", "job": "Auth.", "failure": "Outage."},
                {"id": "q", "kind": "admission_queue", "label": "Queue", "job": "Order by arrival."},
                {"id": "eng", "kind": "engine", "label": "Engine"},
            ],
            "edges": [{"source": "client", "target": "gw"}, {"source": "gw", "target": "q"}],
            "path": ["gateway", "admission_queue"],
        },
        "rubric": [{"dimension": "depth", "levels": {1: "a", 2: "b", 3: "c", 4: "d"}}],
        "outline": "Little's law.",
        "follow_ups": [
            {"phase": "arithmetic", "text": "What if users double?"},
            {
                "phase": "depth",
                "text": "A burst arrives. What first?",
                "id": "burst",
                "options": [
                    {"id": "bound", "choice": "Bound the queue.", "tradeoff": "Some requests are refused."},
                    {"id": "scale", "choice": "Scale out.", "tradeoff": "Replicas arrive after the burst."},
                    {"id": "retry", "choice": "Let clients retry.", "tradeoff": "The load multiplies."},
                    {"id": "nothing", "choice": "Do nothing.", "tradeoff": "Waits grow without limit."},
                ],
                "orders": [["bound", "scale"], ["scale", "bound", "retry"]],
                "number": {"label": "Queue bound in seconds of work", "unit": "s", "band": [1, 10]},
            },
        ],
        "curveballs": [
            {
                "id": "users-double",
                "title": "Users double",
                "set": {"users": 2000},
                "says": "Now {users} are on.",
                "asked": [
                    {"name": "arrival", "tolerance": 0.05},
                    {"name": "replicas", "check": "count", "weight": 2},
                    {"name": "gpus", "check": "count"},
                ],
                "design": [
                    {
                        "kind": "admission_queue",
                        "names": "bound the accepted work",
                        "says": "Bound the queue.",
                    }
                ],
            },
            {
                "id": "think-halves",
                "title": "Think time halves",
                "set": {"think": 10},
                "says": "Users come back after {think}.",
                "asked": [{"name": "arrival"}, {"name": "in_flight"}],
                "design": [
                    {"kind": "autoscaler", "names": "add and remove replicas ahead of demand", "says": "."}
                ],
            },
        ],
    }


def parse(data: dict) -> QuestionSpec:
    return parse_question(data, "small-fleet.yaml", palette=PALETTE)


def problems(data: dict) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        parse(data)
    return dict(caught.value.problems)


def test_curveballs_and_decisions_parse_and_round_trip():
    spec = parse(question())
    assert [curveball.id for curveball in spec.curveballs] == ["users-double", "think-halves"]
    assert spec.curveballs[0].set == {"users": 2000.0}
    assert all(line.phase == "depth" for line in spec.curveballs[0].asked)
    assert [item.id for item in spec.decisions] == ["burst"]
    assert spec.decisions[0].orders == (("bound", "scale"), ("scale", "bound", "retry"))
    assert parse(spec_to_dict(spec)) == spec


def test_an_override_that_breaks_the_model_is_an_error():
    data = question()
    data["curveballs"][1]["set"] = {"util": 0}  # replicas = in_flight / (batch x 0): not finite
    data["curveballs"][1]["says"] = "Utilisation {util}."
    data["curveballs"][1]["asked"] = [
        {"name": "replicas", "check": "count"},
        {"name": "gpus", "check": "count"},
    ]
    assert "the model breaks under this change: replicas" in problems(data)["curveballs[1].set"]


def test_a_line_the_change_does_not_move_is_an_error():
    data = question()
    data["curveballs"][1]["set"] = {
        "batch": 55
    }  # arrival does not read the batch; replicas ceil(333.3/38.5) = 9
    data["curveballs"][1]["says"] = "The batch is {batch}."
    found = problems(data)
    assert "its value before passes the line's check" in found["curveballs[1].asked[0].name"]
    assert "curveballs[1].asked[1].name" in found  # in flight does not read the batch either


def test_a_count_line_that_stays_the_same_whole_number_does_not_change():
    data = question()
    data["curveballs"][1]["set"] = {"batch": 51}  # replicas ceil(333.3 / 35.7) = 10, as before
    data["curveballs"][1]["says"] = "The batch is {batch}."
    data["curveballs"][1]["asked"] = [
        {"name": "replicas", "check": "count"},
        {"name": "gpus", "check": "count"},
    ]
    message = problems(data)["curveballs[1].asked[0].name"]
    assert message.startswith("replicas is 10 replicas under the change")


def test_a_line_that_moves_less_than_its_band_is_an_error():
    data = question()
    data["curveballs"][1]["set"] = {"think": 21}  # arrival 1000/31 = 32.26 against 33.33: 3.3%, inside 5%
    found = problems(data)
    assert "curveballs[1].asked[0].name" in found  # arrival
    assert "curveballs[1].asked[1].name" in found  # in flight 322.6 against 333.3, also 3.3%


def test_an_option_list_with_no_defensible_order_is_an_error():
    data = question()
    data["follow_ups"][1]["orders"] = []
    assert problems(data)["follow_ups[1].orders"] == "an option list needs at least one defensible order"


def test_format_errors_name_their_field():
    data = question()
    data["curveballs"][0]["set"] = {"users": 50000, "arrival": 3}
    data["curveballs"][0]["says"] = "Now {user} are on."
    data["follow_ups"][1]["options"] = data["follow_ups"][1]["options"][:2]
    data["follow_ups"][1]["orders"] = [["bound", "bound"]]
    data["curveballs"] = data["curveballs"][:1]
    found = problems(data)
    assert "outside the plausible range 100 to 10000 user" in found["curveballs[0].set.users"]
    assert "is derived" in found["curveballs[0].set.arrival"]
    assert found["curveballs[0].says"] == (
        "the sentence does not state {arrival}, {users}; it names user, which the curveball does not change"
    )
    assert found["follow_ups[1].options"] == "a decision has 3 to 6 options, not 2"
    assert found["follow_ups[1].orders[0]"] == "names an option twice"
    assert found["curveballs"] == "a question has 2 to 4 curveballs, not 1"


def submission(**depth) -> dict:
    numbers = {"batch": "50", "arrival": "33.3 user/s", "in_flight": "333", "replicas": "10", "gpus": "80"}
    design = {
        "nodes": [{"id": "q1", "kind": "admission_queue", "label": "Queue", "job": "FIFO", "failure": ""}]
    }
    return {"numbers": numbers, "design": design, "depth": depth}


def curveball(report: dict, curveball_id: str) -> dict:
    return next(item for item in report["depth"]["curveballs"] if item["id"] == curveball_id)


def line(item: dict, name: str) -> dict:
    return next(entry for entry in item["lines"] if entry["name"] == name)


def test_curveball_lines_are_graded_against_the_changed_model():
    # users 2000: arrival 2000/30 = 66.67 req/s; in flight 666.7; replicas ceil(666.7/35) = 20; GPUs 160.
    answers = {"users-double": {"numbers": {"arrival": "66.7 user/s", "replicas": "20", "gpus": "160"}}}
    report = grade(parse(question()), submission(curveballs=answers))
    item = curveball(report, "users-double")
    assert [line(item, name)["reference"] for name in ("arrival", "replicas", "gpus")] == [66.6667, 20, 160]
    assert all(entry["verdict"] == "correct" for entry in item["lines"])
    assert item["says"] == "Now 2,000 users are on."
    assert item["lines_credit"] == 1.0


def test_a_wrong_earlier_count_scaled_correctly_is_right():
    # Their main sheet said 12 replicas (the reference 10). Users double: the reference goes 10 -> 20, x2, so
    # 24 is their own 12 scaled right; 22 is neither 20 +-1 nor 24 +-1.
    data = submission(curveballs={"users-double": {"numbers": {"replicas": "24"}}})
    data["numbers"]["replicas"] = "12"
    item = curveball(grade(parse(question()), data), "users-double")
    assert line(item, "replicas")["verdict"] == "correct"
    assert "your 12 replicas before the change, times the change's ×2" in line(item, "replicas")["message"]
    data["depth"]["curveballs"]["users-double"]["numbers"]["replicas"] = "22"
    item = curveball(grade(parse(question()), data), "users-double")
    assert line(item, "replicas")["verdict"] != "correct"


def test_an_unmoved_earlier_assumption_carries_into_the_curveball():
    # They assumed a batch of 40 on the main sheet; users double: replicas ceil(666.7 / (40 x 0.7)) =
    # ceil(23.8) = 24, GPUs 192: right from their own batch.
    data = submission(curveballs={"users-double": {"numbers": {"replicas": "24", "gpus": "192"}}})
    data["numbers"]["batch"] = "40"
    item = curveball(grade(parse(question()), data), "users-double")
    assert line(item, "replicas")["verdict"] == "correct"
    assert line(item, "gpus")["verdict"] == "correct"


def test_a_design_consequence_is_met_by_a_note_on_a_box_of_its_kind():
    answers = {"users-double": {"numbers": {}, "notes": {"q1": "Bound the queue at 30 s of work"}}}
    item = curveball(grade(parse(question()), submission(curveballs=answers)), "users-double")
    assert item["design"][0]["met"] is True
    assert item["design"][0]["box_ids"] == ["q1"]
    item = curveball(grade(parse(question()), submission(curveballs={})), "users-double")
    assert item["design"][0]["met"] is False
    assert "does not say 'bound the accepted work'" in item["design"][0]["message"]
    other = curveball(grade(parse(question()), submission(curveballs={})), "think-halves")
    assert other["design"][0]["message"] == "No Autoscaler box in your design."


def test_a_decision_scores_its_best_defensible_order_and_its_number():
    # [scale, bound] against [scale, bound, retry]: 2 places of 3; against [bound, scale]: 0. Order 2/3;
    # with a number line, 0.75 x 2/3 + 0.25 x (8 s inside 1 to 10 s) = 0.75.
    answers = {"burst": {"order": ["scale", "bound"], "number": "8 s"}}
    decision = grade(parse(question()), submission(follow_ups=answers))["depth"]["follow_ups"][0]
    assert decision["best_order"] == ["scale", "bound", "retry"]
    assert (decision["places"], decision["order_length"]) == (2, 3)
    assert decision["number"]["credit"] == 1.0
    assert decision["credit"] == 0.75
    places = {
        option["id"]: (option["your_place"], option["defensible_place"]) for option in decision["options"]
    }
    assert places == {"bound": (2, 2), "scale": (1, 1), "retry": (None, 3), "nothing": (None, None)}


def test_the_depth_score_is_the_mean_credit_and_counts_by_the_plans_minutes():
    # users-double: lines all right (1.0), queue not bound (0 of 1): 0.6. think-halves: nothing: 0.
    # burst: [bound, scale] exact (1.0), no number: 0.75. Depth = (0.6 + 0 + 0.75) / 3 = 45.0.
    answers = {"users-double": {"numbers": {"arrival": "66.7", "replicas": "20", "gpus": "160"}}}
    report = grade(
        parse(question()), submission(curveballs=answers, follow_ups={"burst": {"order": ["bound", "scale"]}})
    )
    assert report["scores"]["depth"] == 45.0
    # The main sheet is all right (numbers 100 over 5 minutes, arithmetic 100 over 10); the shape phase has no
    # minutes in this plan, so the overall is (5 x 100 + 10 x 100 + 15 x 45) / 30 = 72.5.
    assert report["score_weights"]["depth"] == 15.0
    assert (report["scores"]["numbers"], report["scores"]["arithmetic"]) == (100.0, 100.0)
    assert report["scores"]["overall"] == 72.5


def test_a_curveball_never_offered_is_listed_and_not_counted_and_an_offered_unanswered_one_is_a_zero():
    # Same answers as above. Offered only users-double: depth = (0.6 + 0.75) / 2 = 67.5, think-halves listed
    # as not offered. Offered both: think-halves, offered and unanswered, is a 0: (0.6 + 0 + 0.75) / 3 = 45.0.
    answers = {"users-double": {"numbers": {"arrival": "66.7", "replicas": "20", "gpus": "160"}}}
    follow_ups = {"burst": {"order": ["bound", "scale"]}}
    one = grade(
        parse(question()), submission(curveballs=answers, follow_ups=follow_ups, offered=["users-double"])
    )
    assert one["scores"]["depth"] == 67.5 and one["depth"]["items"] == 2
    assert [item["id"] for item in one["depth"]["curveballs"]] == ["users-double"]
    assert one["depth"]["not_offered"] == [{"id": "think-halves", "title": "Think time halves"}]
    both = grade(
        parse(question()),
        submission(curveballs=answers, follow_ups=follow_ups, offered=["users-double", "think-halves"]),
    )
    assert both["scores"]["depth"] == 45.0 and both["depth"]["not_offered"] == []
    none = grade(parse(question()), submission(curveballs=answers, follow_ups=follow_ups, offered=[]))
    assert none["scores"]["depth"] == 75.0  # the decision alone
    with pytest.raises(SubmissionError, match="depth.offered"):
        read_submission({"depth": {"offered": "users-double"}})


def test_without_depth_answers_the_depth_phase_is_not_scored():
    data = submission()
    del data["depth"]
    report = grade(parse(question()), data)
    assert "depth" not in report and "depth" not in report["scores"]


def test_a_malformed_depth_answer_names_its_field():
    bad = {
        "numbers": {},
        "depth": {"curveballs": {"x": {"numbers": {"a": 3}}}, "follow_ups": {"y": {"order": "ab"}}},
    }
    with pytest.raises(SubmissionError) as caught:
        read_submission(bad)
    fields = dict(caught.value.problems)
    assert fields == {
        "depth.curveballs.x.numbers.a": "expected text",
        "depth.follow_ups.y.order": "expected a list of at most 12 option ids",
    }


def test_the_question_dict_is_not_changed_by_grading_its_curveballs():
    data = spec_to_dict(parse(question()))
    before = copy.deepcopy(data)
    grade(data, submission(curveballs={"users-double": {"numbers": {"replicas": "20"}}}))
    assert data == before


def following(name: str) -> dict:
    data = question()
    data["follow_ups"][1]["number"]["follows"] = name
    return data


def test_a_decision_band_that_follows_a_quantity_moves_with_a_variant():
    # The queue bound's band, 1 to 10 s at the defaults, follows the request time (10 s). A variant round
    # with 20 s requests doubles it: 2 to 20 s. 15 s is inside it (outside the default's); 1.5 s is not.
    spec = parse(following("request"))
    variant = {"request": 20.0}
    for typed, inside in (("15 s", 1.0), ("1.5 s", 0.0)):
        answers = {"burst": {"order": ["bound", "scale"], "number": typed}}
        number = grade(spec, submission(follow_ups=answers), overrides=variant)["depth"]["follow_ups"][0][
            "number"
        ]
        assert number["band"] == [2.0, 20.0]
        assert number["credit"] == inside
        assert number["band_note"] == (
            "The band follows request to this round's values: 1 to 10 s at the question's defaults × 2."
        )
    at_defaults = grade(spec, submission(follow_ups={"burst": {"order": [], "number": "15 s"}}))
    assert at_defaults["depth"]["follow_ups"][0]["number"]["band"] == [1.0, 10.0]
    assert "band_note" not in at_defaults["depth"]["follow_ups"][0]["number"]


def test_a_decision_band_follows_only_a_quantity_of_its_dimension():
    assert problems(following("nothing_here"))["follow_ups[1].number.follows"] == (
        "'nothing_here' is not a quantity of the model"
    )
    assert problems(following("users"))["follow_ups[1].number.follows"] == (
        "users is in 'user', another dimension than the number's 's'"
    )
    assert parse(following("think")).decisions[0].number.follows == "think"
