"""The failure-modes score from stored runs; each expected value is worked out by hand beside it."""

import pytest

from grading.core.failure_modes import BROKEN_CAP, COST_SLACK, failure_report, failure_score, runs_view


def run(*checks, family="serving", cost=None, dropped=0, unfinished=0):
    """One stored run: checks are (key, target, actual, passed)."""
    slo_checks = [
        {"key": key, "target": target, "actual": actual, "passed": passed, "words": key}
        for key, target, actual, passed in checks
    ]
    summary = {"dropped": dropped, "unfinished": unfinished}
    if cost is not None:
        summary["cost_usd"] = cost
    return {
        "family": family,
        "passed": all(c["passed"] for c in slo_checks),
        "slo_checks": slo_checks,
        "summary": summary if family == "serving" else {"cost_usd": cost},
        "narrative": [],
    }


def runs(*results):
    met = sum(r["passed"] for r in results)
    return {"seeds": list(range(len(results))), "runs": len(results), "met": met, "results": list(results)}


MET = ("ttft_p95_s", 2.0, 1.5, True)
MISSED = ("ttft_p95_s", 2.0, 3.0, False)


def test_a_scenario_a_good_design_meets_scores_the_share_of_runs_that_met_it():
    candidate = runs(run(MET), run(MET), run(MET), run(MISSED), run(MISSED))
    report = failure_report({"s": candidate}, {"s": runs(*[run(MET)] * 5)})
    # 3 of 5 runs met every check: 0.6; the two misses earn nothing.
    assert report["score"] == 60.0
    row = report["scenarios"]["s"]
    assert row["run_credits"] == [1, 1, 1, 0, 0] and row["seed_dependent"]
    assert row["lines"][0].startswith("Met its SLO in 3 of 5 runs (the verdict depends on the seed)")


def test_a_missed_slo_never_scores_as_met_even_where_the_reference_meets_it_in_one_run_only():
    reference = runs(run(MET), run(MISSED), run(MISSED))
    assert failure_score({"s": runs(run(MISSED), run(MISSED), run(MISSED))}, {"s": reference}) == 0.0


def test_a_scenario_built_to_break_every_design_scores_how_the_design_degrades():
    # Reference misses 2 s by 1 s (shortfall 0.5); the candidate by 2 s (shortfall 1.0): closeness 0.5.
    # Of 100 requests not served, 30 were left queued at the end: shed share 0.7.
    # Degradation (0.5 + 0.7) / 2 = 0.6, times the cap 0.75: 0.45 a run.
    reference = runs(run(("ttft_p95_s", 2.0, 3.0, False), dropped=10, unfinished=0))
    candidate = runs(*[run(("ttft_p95_s", 2.0, 4.0, False), dropped=100, unfinished=30)] * 2)
    report = failure_report({"s": candidate}, {"s": reference})
    assert BROKEN_CAP == 0.75
    assert report["score"] == 45.0
    row = report["scenarios"]["s"]
    assert row["breaks_every_design"] and row["run_credits"] == [0.45, 0.45]
    assert "Built to break every design" in row["lines"][0]
    assert "70% was refused or shed rather than left queued" in row["lines"][1]


def test_a_design_that_degrades_as_the_reference_does_earns_the_cap_and_never_full_marks():
    same = run(("ttft_p95_s", 2.0, 3.0, False), dropped=10, unfinished=0)
    # closeness 1 (same shortfall), shed share 1: 0.75.
    assert failure_score({"s": runs(same)}, {"s": runs(same)}) == 75.0


def test_a_design_that_meets_a_breaking_scenario_earns_full_credit_for_that_run():
    reference = runs(run(MISSED, dropped=5))
    candidate = runs(run(MET), run(("ttft_p95_s", 2.0, 3.0, False), dropped=5))
    # Run 1 met: 1. Run 2 as the reference does: 0.75. Mean 0.875.
    assert failure_score({"s": candidate}, {"s": reference}) == 87.5


def test_a_lower_limit_missed_by_twice_the_reference_margin_earns_half_the_cap():
    # goodput ≥ 0.9: the reference reaches 0.81 (short by 0.1 of the target), the candidate 0.72 (0.2).
    # Closeness 0.5 and no shed share outside serving: 0.75 x 0.5 = 0.375.
    reference = runs(run(("goodput_min", 0.9, 0.81, False), family="training"))
    candidate = runs(run(("goodput_min", 0.9, 0.72, False), family="training"))
    assert failure_score({"s": candidate}, {"s": reference}) == 37.5


def test_a_run_with_no_value_where_the_reference_has_one_is_not_close():
    reference = runs(run(("goodput_min", 0.9, 0.81, False), family="training"))
    candidate = runs(run(("goodput_min", 0.9, None, False), family="training"))
    assert failure_score({"s": candidate}, {"s": reference}) == 0.0


def test_an_oversized_fleet_that_meets_its_slo_earns_less_and_says_why():
    reference = runs(run(MET, cost=40.0))
    # $100 against $40 is 2.5x, past 1.25x: credit x 1.25 / 2.5 = 0.5.
    report = failure_report({"s": runs(run(MET, cost=100.0))}, {"s": reference})
    assert COST_SLACK == 1.25 and report["score"] == 50.0
    assert report["scenarios"]["s"]["lines"][-1] == (
        "Your fleet costs $100 a run against the reference's $40 (2.5×, more than 1.25×): "
        "the scenario's credit is scaled by 1.25 / 2.5 = 0.50."
    )
    # $48 is 1.2x: within the slack, full credit and no cost line.
    within = failure_report({"s": runs(run(MET, cost=48.0))}, {"s": reference})
    assert within["score"] == 100.0 and len(within["scenarios"]["s"]["lines"]) == 1


def test_without_a_reference_a_fixed_design_is_judged_against_the_slo_alone():
    # A review round: the other side is the flawed given design, which misses too; that earns nothing.
    report = failure_report({"a": runs(run(MISSED), run(MISSED)), "b": runs(run(MET), run(MET))}, None)
    assert report["score"] == 50.0
    assert not report["scenarios"]["a"]["breaks_every_design"]


def test_the_score_is_the_mean_over_scenarios_and_a_legacy_single_run_counts_as_one_run():
    legacy = run(MET)
    assert failure_score({"a": legacy, "b": runs(run(MISSED))}, {"a": legacy, "b": runs(run(MET))}) == 50.0


@pytest.mark.parametrize("candidate", [{}, {"a": None}, {"a": {"error": ""}}])
def test_with_nothing_to_score_the_score_is_none(candidate):
    assert failure_score(candidate, {}) is None


def test_the_page_view_of_runs_counts_runs_met_per_check_and_gives_the_spread_in_words():
    stored = runs(run(("ttft_p95_s", 2.0, 1.5, True)), run(("ttft_p95_s", 2.0, 3.0, False)))
    view = runs_view(stored)
    assert (view["runs"], view["met"], view["passed"], view["seed_dependent"]) == (2, 1, False, True)
    (check,) = view["checks"]
    assert (check["met"], check["runs"]) == (1, 2)
    assert check["median_words"] == "2.25 s" and check["range_words"] == "1.5 s to 3 s"


def test_a_scenario_the_simulator_refused_to_run_on_the_candidates_numbers_scores_nothing():
    report = failure_report({"a": {"error": "replicas must be positive"}, "b": runs(run(MET))}, None)
    assert report["score"] == 50.0
    assert report["scenarios"]["a"]["lines"] == [
        "Could not be replayed on your numbers (replicas must be positive): a design that cannot run meets "
        "no SLO: 0 / 100."
    ]
