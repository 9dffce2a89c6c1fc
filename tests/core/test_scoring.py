"""Phase scores, the overall score and pacing."""

import pytest

from grading.core import scoring


def test_a_phase_scores_the_weighted_credit_of_its_lines():
    credit = scoring.LINE_CREDIT
    scores = scoring.line_scores(
        [
            ("numbers", 1, credit["correct"]),
            ("numbers", 1, credit["out_of_range"]),
            ("arithmetic", 2, credit["correct"]),
            ("arithmetic", 1, credit["arithmetic_slip"]),
            ("arithmetic", 1, credit["missing"]),
        ]
    )
    assert scores["numbers"] == pytest.approx(75.0)
    assert scores["arithmetic"] == pytest.approx(100 * (2 + 0.25) / 4)


def test_every_verdict_has_a_credit_between_nothing_and_full():
    assert scoring.LINE_CREDIT["correct"] == 1.0
    assert scoring.LINE_CREDIT["missing"] == scoring.LINE_CREDIT["unparsed"] == 0.0
    assert all(0 <= credit <= 1 for credit in scoring.LINE_CREDIT.values())


def test_the_shape_score_weighs_components_and_the_path():
    assert scoring.shape_score(1.0, True) == 100.0
    assert scoring.shape_score(1.0, False) == 75.0
    assert scoring.shape_score(0.5, None) == 50.0


def test_the_overall_score_is_weighted_by_plan_minutes():
    overall = scoring.overall_score({"numbers": 100.0, "arithmetic": 50.0}, {"numbers": 5, "arithmetic": 10})
    assert overall == pytest.approx((5 * 100 + 10 * 50) / 15)


def test_with_no_minutes_the_phases_weigh_the_same_and_with_no_phases_there_is_no_score():
    assert scoring.overall_score({"numbers": 100.0, "shape": 0.0}, {}) == 50.0
    assert scoring.overall_score({}, {"numbers": 5}) is None


def test_each_edit_is_charged_to_the_phase_of_the_field_it_changed():
    plan = [("intro", 1), ("numbers", 5), ("shape", 7), ("arithmetic", 10)]
    events = [
        (40.0, "intro", "numbers.kv"),
        (100.0, "numbers", "numbers.kv"),
        (400.0, "numbers", "design"),
        (500.0, "shape", "numbers.step_time"),
        (520.0, "shape", "scratch"),
    ]
    rows = {
        row["phase"]: row
        for row in scoring.pacing(plan, events, {"kv": "numbers", "step_time": "arithmetic"})
    }
    assert rows["numbers"]["spent_s"] == 100.0
    assert rows["shape"]["spent_s"] == 300.0 + 20.0  # the design edit, then scratch notes in the shape phase
    assert rows["arithmetic"]["spent_s"] == 100.0
    assert rows["arithmetic"]["planned_s"] == 600.0
    assert rows["intro"] == {
        "phase": "intro",
        "planned_s": 60.0,
        "spent_s": 0.0,
        "edits": 0,
        "first_s": None,
        "last_s": None,
    }
    assert rows["numbers"]["first_s"] == 40.0 and rows["numbers"]["last_s"] == 100.0


def test_pacing_does_not_depend_on_the_order_events_arrive_in():
    plan = [("numbers", 5), ("shape", 7)]
    events = [(10.0, "numbers", "numbers.a"), (70.0, "shape", "design"), (90.0, "shape", "numbers.a")]
    assert scoring.pacing(plan, events, {}) == scoring.pacing(plan, list(reversed(events)), {})
