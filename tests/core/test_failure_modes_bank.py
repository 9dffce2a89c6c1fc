"""The failure-modes score on bank questions for a reference answer, an oversized fleet and an undersized
one, each expected value derived by hand from the fleet sizes, the price per GPU-hour and the events.

Two seeds a scenario keep it quick; both sides share them, as the replays do."""

import functools
from pathlib import Path

import pytest

from grading.core.failure_modes import COST_SLACK, failure_report
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.replay_inputs import replay_inputs, replay_seeds
from grading.core.review_check import fixed_failure_report, reference_fix_numbers
from grading.core.sim import run_scenario_seeds

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"


def replayed(slug: str, side: str, numbers: dict | None = None, seeds: int = 2) -> dict:
    return _replayed(slug, side, tuple(sorted((numbers or {}).items())), seeds)


@functools.cache  # the reference side of a question is the same for every answer
def _replayed(slug: str, side: str, numbers: tuple, seeds: int) -> dict:
    spec = spec_to_dict(load_question(BANK / f"{slug}.yaml"))
    return {
        entry["scenario"]: run_scenario_seeds(
            entry["family"],
            entry["params"],
            entry["events"],
            entry["slo"],
            entry["duration_s"],
            replay_seeds("hand", entry["scenario"], seeds),
        ).to_dict()
        for entry in replay_inputs(spec, side=side, numbers=dict(numbers))
    }


def score(slug: str, numbers: dict, seeds: int = 2) -> dict:
    return failure_report(
        replayed(slug, "candidate", numbers, seeds), replayed(slug, "reference", None, seeds)
    )


@pytest.mark.parametrize(
    ("slug", "line", "right", "oversized", "undersized"),
    [
        # 28 nodes at launch (video_rate x wait / (0.7 x per node)); no loss, no autoscaling in the spike.
        ("video-generation-serving", "nodes_needed", 28, 56, 7),
        # 6 servers after the optimisation; the evening burst runs on a fixed fleet.
        ("multimodal-latency", "gpus_needed_opt", 6, 12, 2),
    ],
)
def test_a_fixed_fleet_scores_full_at_its_size_less_at_twice_its_cost_and_nothing_when_overloaded(
    slug, line, right, oversized, undersized
):
    assert score(slug, {line: str(right)})["score"] == 100.0
    # Twice the servers for the whole run cost twice as much: 2x is past 1.25x, so the credit of a scenario
    # met in every run is scaled by 1.25 / 2 = 0.625.
    big = score(slug, {line: str(oversized)})
    assert big["score"] == pytest.approx(100 * COST_SLACK / 2) == 62.5
    (row,) = big["scenarios"].values()
    assert row["met"] == row["runs"] == 2 and row["cost"]["ratio"] == pytest.approx(2.0)
    assert "the scenario's credit is scaled by 1.25 / 2 = 0.62" in row["lines"][-1]
    # A quarter or a third of the fleet runs at three to four times the reference's ~70% busy: it misses.
    assert score(slug, {line: str(undersized)})["score"] == 0.0


def test_seven_boxes_oversized_fleet_earns_less_than_the_right_sized_one():
    # One seed: a 45-replica fleet is the slowest replay here.
    right = score("seven-boxes-serving-walkthrough", {"replicas": "16"}, seeds=1)
    big = score("seven-boxes-serving-walkthrough", {"replicas": "45"}, seeds=1)
    # The burst breaks every design (the reference misses it in its run); 45 replicas meet it, at
    # 45/16 = 2.8125x the cost: 1.25 / 2.8125 = 0.4444. Losing two replicas at 120 s of 600: replica-seconds
    # 45 x 600 - 2 x 480 = 26,040 against 16 x 600 - 2 x 480 = 8,640, 3.0139x: 1.25 / 3.0139 = 0.4147.
    burst, loss = big["scenarios"]["burst-on-sixteen-replicas"], big["scenarios"]["lose-two-replicas"]
    assert burst["breaks_every_design"] and burst["met"] == 1 and loss["met"] == 1
    assert burst["cost"]["factor"] == pytest.approx(1.25 / (45 / 16), abs=1e-4)
    assert loss["cost"]["factor"] == pytest.approx(1.25 / (26040 / 8640), abs=1e-4)
    assert big["score"] == pytest.approx(100 * (0.4444 + 0.4147) / 2, abs=0.1)
    # The right-sized fleet meets the loss (1) and degrades through the burst (at most 0.75).
    assert right["scenarios"]["lose-two-replicas"]["credit"] == 1.0
    assert 0 < right["scenarios"]["burst-on-sixteen-replicas"]["credit"] <= 0.75
    assert right["score"] > big["score"]


def bank_fix(slug: str) -> dict[str, str]:
    """The reference fix as the question file states it (its quantity-named values evaluated)."""
    return reference_fix_numbers(spec_to_dict(load_question(BANK / f"{slug}.yaml")))


@pytest.mark.parametrize(
    ("slug", "double", "ratios"),
    [
        # Six TP4 servers double to twelve. Steady load and the long documents run every replica for
        # 600 s: 2x. Losing a server at t=300 s: 12 x 600 - 300 = 6,900 replica-seconds against
        # 6 x 600 - 300 = 3,300.
        (
            "eight-gpu-design-review",
            "12",
            {"steady-load": 2.0, "long-documents": 2.0, "losing-a-server": 6900 / 3300},
        ),
        # Ten single-GPU replicas double to twenty; no scenario loses or adds one, the fallback costs nothing.
        ("gateway-fallback-review", "20", {"peak-hour": 2.0, "pool-outage": 2.0}),
    ],
)
def test_a_review_fix_is_judged_against_the_reference_fix_and_its_cost(slug, double, ratios):
    fix = bank_fix(slug)
    reference_fix = replayed(slug, "candidate", fix)
    # The reference fix meets every scenario in both runs: typed as the fix, it scores 100.
    assert fixed_failure_report(reference_fix, reference_fix)["score"] == 100.0
    # The given design typed back as the "fix" misses every scenario in every run. The reference fix meets
    # them, so none is "built to break every design": 0, though the given design on the other side of the
    # page misses them all too.
    unchanged = fixed_failure_report(replayed(slug, "candidate", {}), reference_fix)
    assert unchanged["score"] == 0.0
    assert not any(row["breaks_every_design"] for row in unchanged["scenarios"].values())
    # Twice the reference fix's replicas meets every SLO at twice its cost or more: each scenario's credit is
    # scaled by 1.25 / ratio, compared with the reference fix's cost, not the given design's.
    big = fixed_failure_report(replayed(slug, "candidate", {**fix, "replicas": double}), reference_fix)
    for name, ratio in ratios.items():
        row = big["scenarios"][name]
        assert row["met"] == row["runs"] == 2
        assert row["cost"]["ratio"] == pytest.approx(ratio, rel=1e-3)
        assert row["credit"] == pytest.approx(COST_SLACK / ratio, abs=1e-3)
    expected = 100 * sum(COST_SLACK / ratio for ratio in ratios.values()) / len(ratios)
    assert big["score"] == pytest.approx(expected, abs=0.1)  # 61.6 and 62.5
    assert big["score"] < 100.0


def test_training_cluster_review_fix_is_judged_against_its_reference_fix():
    reference_fix = replayed("training-cluster-review", "candidate", bank_fix("training-cluster-review"))
    unchanged = fixed_failure_report(replayed("training-cluster-review", "candidate", {}), reference_fix)
    assert unchanged["score"] == 0.0
    assert fixed_failure_report(reference_fix, reference_fix)["score"] == 100.0


def runs_of(entry: dict, key: int | str, seeds: int = 2, **params) -> dict:
    """A replay entry's runs on seed key `key` (`seeds` seeds), with `params` over its own."""
    return run_scenario_seeds(
        entry["family"],
        {**entry["params"], **params},
        entry["events"],
        entry["slo"],
        entry["duration_s"],
        replay_seeds(key, entry["scenario"], seeds),
    ).to_dict()


def test_video_generation_reference_meets_its_own_slo_on_every_seed():
    # The reference's own 28 nodes (ceil(0.4 req/s x ~55.4 s / 0.8)) on seed keys 1-8, two seeds each: the
    # spike's latency was never the problem (p95 well under 120 s); the few videos still queued when the
    # replay ends (at most ~0.9% of ~800 over 40 runs) stay under the 2% the SLO allows.
    spec = spec_to_dict(load_question(BANK / "video-generation-serving.yaml"))
    (entry,) = replay_inputs(spec, side="reference")
    assert entry["params"]["servers"] == 28 and entry["slo"]["rejected_max_frac"] == 0.02
    for key in range(1, 9):
        runs = runs_of(entry, key)["results"]
        assert all(run["passed"] for run in runs), (key, [run["slo_checks"] for run in runs])
        assert all(run["summary"]["ttft_p95_s"] < 120 for run in runs)


def test_rag_reference_meets_both_llm_scenarios_forty_nodes_miss_the_rack_loss_and_no_warm_pool_the_dip():
    # By hand: a node prefills 8 GPUs x 1,979 TFLOP/s x 0.7 / (2 x 70.55e9 FLOP a token) = 78,539 tok/s, so
    # 50 queries/s of 1,000 tokens keep it ~64% busy; after a rack of six is lost the 54 left take 55.6 q/s
    # (~71%). The dip (a third more load) needs ceil(3,000 x 1.333 / 50) = 80 nodes: 60 plus a warm pool of
    # 20. Forty nodes take 75 q/s each, 96% of a node's prefill, and queue past the 2 s TTFT when a rack goes
    # (their dip's warm pool follows from their own 40 nodes: 80 - 40); 60 nodes with no warm pool leave the
    # dip's 20 extra nodes behind 70 s cold starts. Two seeds a scenario (key 1), as the other replays here:
    # the reference meets both by a wide margin, so no seed decides it (measured on seed keys 1-4, eight
    # seeds, which this test replayed at four times the cost until 2026-12-04: TTFT p95 0.91-1.21 s in the
    # dip and 0.58-0.63 s after the rack loss, against 2 s, nothing unserved).
    spec = spec_to_dict(load_question(BANK / "rag-at-10k-qps.yaml"))
    entries = {entry["scenario"]: entry for entry in replay_inputs(spec, side="reference")}
    assert entries["hit-rate-dips"]["params"]["prefill_tok_s"] == pytest.approx(78_539, rel=1e-3)
    assert entries["hit-rate-dips"]["params"]["warm_pool"] == 20
    for entry in entries.values():
        runs = runs_of(entry, 1)["results"]
        assert all(run["passed"] for run in runs), (entry["scenario"], [r["slo_checks"] for r in runs])
    # Forty nodes replay only the rack loss (their dip, which they meet, was replayed and never read).
    (forty,) = [
        entry
        for entry in replay_inputs(spec, side="candidate", numbers={"llm_nodes": "40"})
        if entry["scenario"] == "lose-a-rack-of-llm-nodes"
    ]
    forty_runs = runs_of(forty, "hand")
    assert forty_runs["met"] == 0, forty_runs["results"][0]["slo_checks"]
    no_pool = runs_of(entries["hit-rate-dips"], 1, warm_pool=0)
    assert no_pool["met"] == 0, no_pool["results"][0]["slo_checks"]
