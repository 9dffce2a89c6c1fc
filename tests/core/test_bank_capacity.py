"""The bank's replica rates hold on the engine (issue 32's audit, docs/bank-audit.md): for the questions whose
asked line rests most directly on one replica's rate, the engine's capacity for one replica of the replay's
workload (the highest steady rate meeting the scenario's latency targets on every seed) stays inside the band
of that line. `manage.py bank_sweep --capacity` measures every question; here three seeds over 600 s keep it
to a few seconds."""

from pathlib import Path

import pytest

from grading.core.bank_capacity import NO_REPLICA_RATE, REPLICA_RATES, band_of, measure
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.sim.capacity import latency_slo, one_replica, replica_capacity

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"


def spec_of(slug: str) -> dict:
    return spec_to_dict(load_question(BANK / f"{slug}.yaml"))


# The model's rates, by hand from the questions' numbers:
# two-region-failover: a replica spends 2,000 / 28,035 = 71.3 ms prefilling a request and 10 s / 64 slots =
#   156.3 ms of decode slot time: 1 / 0.2276 s = 4.39 req/s; `region_capacity` (x40) asked within 20%.
# disaggregated-prefill-decode: a decode step reads 141.1 GB of weights and 128 x 2,125 x 320 KiB = 89.1 GB of
#   KV at 8 x 3.35 TB/s x 0.7 = 18.76 TB/s: 12.27 ms; 128 / (250 x 12.27 ms) = 41.7 req/s; `decode_step` 20%.
# llm-batching-system: 1 / (2,000 / 28,035 + 250 x 13.5 ms / 162) = 1 / (71.3 + 20.9 ms) = 10.8 req/s, asked
#   within 3x (the engine's all-reduces and overhead cost it about half: ~5.7 at TPOT p95 40 ms).
AT_RISK = {
    "two-region-failover": 4.39,
    "disaggregated-prefill-decode": 41.7,
    "llm-batching-system": 10.8,
}


@pytest.mark.parametrize("slug", sorted(AT_RISK))
def test_the_engine_serves_a_replica_within_the_band_of_the_questions_rate(slug):
    check = measure(spec_of(slug), seeds=3, floor_s=600.0)
    assert check.model_rate == pytest.approx(AT_RISK[slug], rel=0.01)
    assert check.band is not None and check.band.holds(check.ratio), (check.engine_rate, check.band.words)


def test_every_serving_question_is_measured_or_says_why_not():
    serving = {
        path.stem
        for path in BANK.glob("*.yaml")
        if any(s["family"] == "serving" for s in spec_to_dict(load_question(path)).get("scenarios") or [])
    }
    assert set(REPLICA_RATES) | set(NO_REPLICA_RATE) == serving
    assert not set(REPLICA_RATES) & set(NO_REPLICA_RATE)
    for slug, rate in REPLICA_RATES.items():
        band_of(spec_of(slug), rate.band_line)  # every named line is asked


def test_the_search_finds_a_fixed_step_replicas_decode_limit():
    # No prefill to speak of (10-token prompts at 10M tok/s), 40 ms steps, 64 slots, 100-token answers: a
    # replica completes 64 / (100 x 40 ms) = 16 req/s at most; TTFT stays small until the slots fill.
    params = {
        "prompt_tokens": 10,
        "prompt_cv": 0,
        "output_tokens": 100,
        "output_cv": 0,
        "tpot_s": 0.04,
        "prefill_tok_s": 1e7,
        "max_batch": 64,
        "replicas": 4,
        "queue_limit": 10,
    }
    found = replica_capacity(params, {"ttft_p95_s": 1.0}, guess=10.0, seeds=[1, 2], duration_s=600.0)
    assert 0.85 * 16 <= found.rate <= 16 * 1.02
    assert found.above / found.rate - 1 <= 0.02
    assert one_replica(params)["replicas"] == 1 and one_replica(params)["queue_limit"] is None
    assert latency_slo({"ttft_p95_s": 1.0, "rejected_max_frac": 0.0}) == {
        "ttft_p95_s": 1.0,
        "dropped_max_frac": 0.02,
    }
