"""Every bank replay does what its question means it to (issue 32's re-check on the per-step engine): the
reference meets each scenario a good design survives and misses each one built to break every design (marked
`breaks_every_design` in the bank, which must agree with the intent written here by hand); a review question's
given design misses every scenario (its planted flaws) and its reference fix (`review.fix`) meets them.

Cost: one seed a scenario (seed key "bank"), so the whole bank replays in well under a minute on two cores.
One seed is enough here because the sweep (`manage.py bank_sweep`, five seeds a scenario, table in
docs/bank-audit.md) found no verdict that depends on the seed: each scenario below is met or missed by a wide
margin. The heaviest replays are checked elsewhere on more seeds, not here: rag-at-10k-qps (~30 s a seed) and
video-generation-serving in test_failure_modes_bank.py, the review questions' given designs and fixes on two
seeds in test_failure_modes_bank.py's review test (the same cached runs are read here, not replayed again).
training-and-inference-one-fleet (380 req/s, ~450k requests in 1,200 s) replays its first 600 s: the event at
300 s and the reclaim window after it (t_reclaim ~130 s), where the warm headroom alone carries the load.
"""

from pathlib import Path

import pytest

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.replay_inputs import replay_inputs, replay_seeds
from grading.core.sim import run_scenario_seeds
from tests.core.test_failure_modes_bank import bank_fix, replayed

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"

# (question, scenario): whether the reference design meets it, and why (by hand, from the question's numbers).
MEETS = {
    # ~33 steps/s x 2 (burst) of ~300 new tokens (30,000 / 100 steps) = ~20k tok/s against 2 x 28k: ~35%.
    ("agent-sessions", "agents-start-together"): True,
    # 23 replicas (100 req/s / 4.39) and a 12-replica warm pool that joins in seconds.
    ("autoscaling-cold-start", "burst-during-cold-start"): True,
    ("autoscaling-cold-start", "second-burst-while-refilling"): True,
    # 1 TB at the derived 16.7 GB/s is 60 s a write (<= 65 s); Young-Daly interval keeps goodput > 85%.
    ("checkpoint-storage", "a-week-on-your-write-tier"): True,
    ("checkpoint-storage", "failure-rate-triples"): True,
    # One decode node: 20 req/s x 250 tokens x ~12.3 ms = ~61 of 128 slots, ~92 in the 1.5x burst.
    ("disaggregated-prefill-decode", "decode-pool-under-burst"): True,
    # Sized to finish just inside 4 h: losing half the fleet for an hour adds ~half an hour.
    ("eval-pipeline-10m-prompts", "half-the-fleet-preempted"): False,
    # A judge at 400 outputs/s against 694 prompts/s: the backlog takes > 6 h.
    ("eval-pipeline-10m-prompts", "judge-is-the-bottleneck"): False,
    # 6B rows at 500k rows/s is 3.3 h; four hours at a fifth of the speed add ~3.2 h: past 6 h.
    ("feature-store-no-leakage", "skewed-backfill-misses-training"): False,
    # 8,000-token prompts quadruple the prefill of 24 replicas sized for 2,000 ones.
    ("forty-five-minute-plan", "repository-wide-prompts"): False,
    # Two spares against failures at 3x the rate with 3-day repairs: goodput collapses.
    ("gpu-cloud-provisioning", "bad-week-thin-spares"): False,
    ("gpu-cloud-provisioning", "bad-week-spares-for-the-tail"): True,
    # Keyed debits: duplicates and replays never charge twice.
    ("gpu-credit-system", "retries-duplicates-and-an-outage"): True,
    ("gpu-credit-system", "consumer-replays-ten-minutes"): True,
    # UDP counters lose 0.5%, ten times the 0.05% tolerance.
    ("inference-observability", "attribution-over-lossy-metrics"): False,
    ("inference-observability", "attribution-with-idempotent-events"): True,
    # The fail-closed 30% of traffic for 300 s of the 600 is ~15% of all requests, under the 20% allowed.
    ("internal-llm-gateway", "provider-outage-fail-closed"): True,
    # 0.1% of fire-and-forget audit writes are lost against a target of none.
    ("internal-llm-gateway", "audit-records-fire-and-forget"): False,
    # The launcher's 50/s drains 10,000 jobs in ~200 s, plus the outage or restart: well under 900 s.
    ("job-scheduler-100k-jobs", "sweep-with-launcher-outage"): True,
    ("job-scheduler-100k-jobs", "scheduler-restart-mid-sweep"): True,
    # Every 30k-token return recomputes (~1.8 s on the engine) against a target of half of 1.37 s: missed.
    ("kv-cache-tiering", "returning-long-conversations"): False,
    # 5 req/s a replica of 30k-token prompts is 150k tok/s of prefill against ~28k.
    ("llm-batching-system", "long-context-burst"): False,
    # 6 req/s a replica at the peak is ~77% of the engine's ~7.8.
    ("llm-batching-system", "batching-under-burst"): True,
    # 1,000 x 141 GB through a 40 Gb/s origin is ~7.8 h against 10 minutes.
    ("model-artifact-distribution", "origin-only-rollout"): False,
    ("model-artifact-distribution", "p2p-rollout-with-slow-rack"): True,
    # 600 req/s x 2,500 tokens on one rack's ~2.48M tok/s: ~60% busy, ~47% of its slots.
    ("moe-serving-on-a-rack", "lose-one-rack-of-two"): True,
    # The real 14.6 TB checkpoint at the derived bandwidth: 60 s a write.
    ("moe-total-or-active", "a-week-with-the-real-checkpoint"): True,
    # 41 replicas at ~70%; every adapter everywhere spreads a burst and a loss.
    ("multi-lora-serving", "viral-variant"): True,
    ("multi-lora-serving", "lose-three-replicas"): True,
    # Secondaries absorb ~17 of 30 calls/s: about a quarter of the window is rejected.
    ("multi-provider-gateway", "primary-outage-thin-fallback"): False,
    ("multi-provider-gateway", "primary-outage-reserved-fallback"): True,
    # Planned at ~60%, ~77% in the burst: p95 waits stay under a second.
    ("multimodal-latency", "evening-burst-after-optimisation"): True,
    # 25% headroom over a 14-day window absorbs ~3.5 days; the fleet is gone for four.
    ("pretraining-data-pipeline", "spot-fleet-lost-for-four-days"): False,
    # The bounded queue turns the bots' excess away; the unbounded one queues it for minutes.
    ("public-playground", "bot-burst-bounded-queue"): True,
    ("public-playground", "bot-burst-unbounded-queue"): False,
    ("research-cluster-fair-share", "borrowed-gpus-reclaimed-four-times-a-day"): True,
    ("research-cluster-fair-share", "owners-return-eight-times-a-day"): True,
    # The warm pool covers the tripling; without it every new instance pays a 20 s cold start.
    ("serverless-gpu-warm-pool", "burst-with-warm-pool"): True,
    ("serverless-gpu-warm-pool", "burst-without-pool"): False,
    # 1.5x on a fleet sized at 70% is ~105%: past capacity for three minutes.
    ("seven-boxes-serving-walkthrough", "burst-on-sixteen-replicas"): False,
    # 14 of 16 replicas at ~80% of their slots.
    ("seven-boxes-serving-walkthrough", "lose-two-replicas"): True,
    # 20 replicas with prefill counted (the slot-only 15 fail it).
    ("shared-gpu-cluster-scheduling", "burst-on-reserved-pool"): True,
    ("shared-gpu-cluster-scheduling", "node-lost-during-evening-peak"): True,
    # 512-token steps keep TPOT at 20 ms; the doubled prompts fill ~71% of the ~22.6k tok/s a step leaves.
    ("speculative-decoding", "premium-burst-with-capped-batches"): True,
    ("ten-thousand-gpu-cluster", "a-week-at-full-scale"): True,
    ("ten-thousand-gpu-cluster", "bad-week-and-a-dead-leaf"): True,
    # Duplicated refunds let the tenant past its limit; keyed settlement holds it.
    ("token-rate-limits", "duplicated-refunds"): False,
    ("token-rate-limits", "idempotent-settlement"): True,
    # Warm pool = mean demand + 20%, reclaimed replicas behind it.
    ("training-and-inference-one-fleet", "burst-while-gpus-are-lent"): True,
    ("training-and-inference-one-fleet", "lent-node-lost-during-reclaim"): True,
    ("training-disaster-recovery", "routine-failures-at-8k"): True,
    ("training-disaster-recovery", "building-goes-dark"): True,
    # A 2,200-token mean with a 20% spread has a p99 of ~3,200 tokens, past the 2,800 a 100 ms prefill allows.
    ("ttft-200ms-p99", "prompts-near-the-limit"): False,
    # 280 req/s needs ~15.5 replicas' prefill; eight serve ~145: a third cannot be served.
    ("ttft-200ms-p99", "burst-past-the-knee"): False,
    # Each region at 40%: the survivor runs at 80%.
    ("two-region-failover", "region-drops-n-minus-one"): True,
    ("two-region-failover", "region-drops-and-returns"): True,
    # No keys: ~1% billed twice; 60 s keys against a 300 s replay: most of it billed again.
    ("usage-billing-pipeline", "retries-without-keys"): False,
    ("usage-billing-pipeline", "replay-outlives-short-keys"): False,
    ("usage-billing-pipeline", "replay-with-48h-keys"): True,
}
ELSEWHERE = {"rag-at-10k-qps", "video-generation-serving"}  # test_failure_modes_bank.py, more seeds
SHORTENED = {"training-and-inference-one-fleet": 600.0}
REVIEWS = ("eight-gpu-design-review", "gateway-fallback-review", "training-cluster-review")


def spec_of(slug: str) -> dict:
    return spec_to_dict(load_question(BANK / f"{slug}.yaml"))


def bank_scenarios() -> list[tuple[str, dict]]:
    """(slug, scenario) for every bank scenario, in file order."""
    return [
        (path.stem, scenario)
        for path in sorted(BANK.glob("*.yaml"))
        for scenario in spec_to_dict(load_question(path)).get("scenarios") or []
    ]


def test_every_scenario_has_a_stated_intent_and_the_bank_marks_the_breaking_ones():
    design = {(slug, s["name"]): s for slug, s in bank_scenarios() if slug not in REVIEWS}
    assert set(MEETS) | {key for key in design if key[0] in ELSEWHERE} == set(design)
    for key, meets in MEETS.items():
        assert design[key].get("breaks_every_design", False) is (not meets), key
    # A review's scenarios are its planted flaws: the reference fix survives every one, none is marked.
    for slug in REVIEWS:
        assert not any(s.get("breaks_every_design") for s in spec_of(slug)["scenarios"]), slug


@pytest.mark.parametrize("slug", sorted({slug for slug, _ in MEETS}))
def test_the_reference_meets_what_it_should_and_misses_what_breaks_every_design(slug):
    for entry in replay_inputs(spec_of(slug), side="reference"):
        meets = MEETS[(slug, entry["scenario"])]
        (run,) = run_scenario_seeds(
            entry["family"],
            entry["params"],
            entry["events"],
            entry["slo"],
            SHORTENED.get(slug, entry["duration_s"]),
            replay_seeds("bank", entry["scenario"], 1),
        ).to_dict()["results"]
        assert run["passed"] is meets, (entry["scenario"], run["slo_checks"])


@pytest.mark.parametrize("slug", REVIEWS)
def test_a_review_given_design_fails_every_planted_flaw_and_the_reference_fix_meets_them(slug):
    # Two seeds a scenario, the runs test_failure_modes_bank.py's review tests replay (cached there).
    given = replayed(slug, "candidate", {})
    fix = replayed(slug, "candidate", bank_fix(slug))
    assert set(given) == set(fix) == {s["name"] for s in spec_of(slug)["scenarios"]}
    for name in given:
        assert given[name]["met"] == 0, (slug, name, "given")
        assert fix[name]["met"] == fix[name]["runs"] == 2, (slug, name, "fix")
