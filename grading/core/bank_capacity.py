"""Each bank serving question's replica rate (its reference model's arithmetic) beside the engine's capacity
for the same workload (issue 32: where they disagree by more than the question's band, the question changes).

`REPLICA_RATES` says, per question, which formula over its model is the rate one replica serves at full load
(a formula, since not every model names it as one quantity) and which asked line's band it must hold to (a
count line of N holds to one in N). `measure` runs the engine's capacity search (`sim.capacity`) on the
question's first serving scenario meant to pass (else its first; a review question's reference fix, its
given design being meant to fail), with one replica, no events and the
scenario's latency targets. Pure Python: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grading.core.formula import parse_formula
from grading.core.model import ReferenceModel
from grading.core.replay_inputs import evaluate_side, replay_inputs, replay_seeds
from grading.core.review_check import reference_fix_numbers
from grading.core.sim.capacity import LATENCY_KEYS, replica_capacity

SEED_KEY = "capacity"


@dataclass(frozen=True)
class ReplicaRate:
    formula: (
        str  # over the model's quantities (and the scenario's numbers): req/s of one replica at full load
    )
    band_line: str | None  # the asked line the rate feeds, whose band it must hold to; None: none asked
    side: str = "reference"  # "fix": a review question's reference fix (its given design is meant to fail)


REPLICA_RATES: dict[str, ReplicaRate] = {
    "autoscaling-cold-start": ReplicaRate("replica_rps", "warm_pool"),
    "disaggregated-prefill-decode": ReplicaRate("decode_tps_node / output_tokens", "decode_step"),
    "eight-gpu-design-review": ReplicaRate("1 / replica_s_tp4", "capacity_fixed", side="fix"),
    "forty-five-minute-plan": ReplicaRate("b_max / request_time", "replicas"),
    "gateway-fallback-review": ReplicaRate("1 / replica_s_fixed", "pool_capacity", side="fix"),
    "llm-batching-system": ReplicaRate("replica_req_rate", "replica_req_rate"),
    "moe-serving-on-a-rack": ReplicaRate(
        "1 / (output_tokens / rack_tok_s + prompt_tokens / rack_prefill_tok_s)", "rack_tok_s"
    ),
    "multi-lora-serving": ReplicaRate("chat_replica_rate_70b_tp8", "lora_replicas"),
    "public-playground": ReplicaRate("1 / replica_time", "replicas_uncapped"),
    "rag-at-10k-qps": ReplicaRate("qps_per_node", "qps_per_node"),
    "seven-boxes-serving-walkthrough": ReplicaRate("b_max / request_time", "replicas"),
    "shared-gpu-cluster-scheduling": ReplicaRate(
        "1 / (prompt_tokens / prefill_rate + decode_time / b_max)", "replicas"
    ),
    "training-and-inference-one-fleet": ReplicaRate("chat_replica_rate_70b_tp8", None),
    "two-region-failover": ReplicaRate("1 / replica_time", "region_capacity"),
}

# Serving questions whose model has no rate of one replica to compare, and why.
NO_REPLICA_RATE: dict[str, str] = {
    "agent-sessions": "sized by prefill tokens a step against two replicas' prefill, no request rate",
    "internal-llm-gateway": "the replay's ten replicas stand in for a provider; the model sizes audit bytes",
    "kv-cache-tiering": "sized by conversations in HBM and reload times; no request rate a replica",
    "multi-provider-gateway": "the replay's replicas stand in for a provider; the model sizes quotas",
    "multimodal-latency": "a generic M/G/c queue whose service rate is the model's own",
    "serverless-gpu-warm-pool": "sized by instances starting (warm pool), not by a replica's rate",
    "speculative-decoding": "sized by TPOT and batch; no request rate a replica",
    "ttft-200ms-p99": "its rate is a pool's Erlang C limit at a 30 ms p99 wait, not one replica's",
    "video-generation-serving": "a generic M/G/c queue whose service rate is the model's own",
}


@dataclass(frozen=True)
class Band:
    """How far a value may be from the reference and still pass: `relative` (0.05 = 5%) or a `factor`."""

    relative: float | None
    factor: float | None
    words: str

    def holds(self, ratio: float) -> bool:
        if self.factor is not None:
            return 1 / self.factor <= ratio <= self.factor
        assert self.relative is not None
        return abs(ratio - 1) <= self.relative


@dataclass(frozen=True)
class RateCheck:
    slug: str
    scenario: str
    model_rate: float
    engine_rate: float
    band: Band | None  # None: no asked line reads the rate
    runs: int

    @property
    def ratio(self) -> float:
        return self.engine_rate / self.model_rate

    @property
    def verdict(self) -> str:
        if self.band is None:
            return "not asked"
        return "within band" if self.band.holds(self.ratio) else "outside band"


def side_values(spec: Mapping[str, Any], side: str) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The model's values and the replay entries of one side: the reference, or a review's reference fix."""
    model = ReferenceModel.from_dict(spec["model"])
    if side == "fix":
        fix = reference_fix_numbers(spec)
        values, _, _ = evaluate_side(model, side="candidate", numbers=fix)
        return values, replay_inputs(spec, side="candidate", numbers=fix)
    values, _, _ = evaluate_side(model, side="reference")
    return values, replay_inputs(spec, side="reference")


def model_rate(values: Mapping[str, float], params: Mapping[str, Any], formula: str) -> float:
    """The formula's value (req/s) over the model's values, reading the scenario's numbers for the names the
    model lacks (a workload the model leaves to the scenario, as moe-serving-on-a-rack's prompt)."""
    given = {name: value for name, value in params.items() if value is not None}
    return float(parse_formula(formula).evaluate({**given, **values}))


def band_of(spec: Mapping[str, Any], line: str | None) -> Band | None:
    """The asked line's band: its relative tolerance (default 5%), its magnitude factor (default 3), or for a
    count line of value N one in N."""
    if line is None:
        return None
    asked = next(item for item in spec["asked"] if item["name"] == line)
    check = asked.get("check", "relative")
    name = f"`{line}`"
    if check == "magnitude":
        factor = float(asked.get("tolerance") or 3.0)
        return Band(None, factor, f"{name} within {factor:g}x")
    if check == "count":
        value = float(ReferenceModel.from_dict(spec["model"]).evaluate({})[line])
        return Band(1 / value, None, f"{name} {value:g} ±1 ({100 / value:.1f}%)")
    relative = float(asked.get("tolerance") or 0.05)
    return Band(relative, None, f"{name} within {relative:.0%}")


def workload(spec: Mapping[str, Any], entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The replay entry of the first serving scenario meant to pass, else the first serving one."""
    marked = {scenario["name"]: scenario.get("breaks_every_design", False) for scenario in spec["scenarios"]}
    serving = [entry for entry in entries if entry["family"] == "serving"]
    return next((entry for entry in serving if not marked[entry["scenario"]]), serving[0])


def window_s(slo: Mapping[str, float], floor_s: float = 300.0) -> float:
    """A simulated window long enough for the latency targets: 20 of the longest, at least `floor_s`."""
    longest = max((target for key, target in slo.items() if key in LATENCY_KEYS), default=0.0)
    return max(floor_s, 20 * longest)


def measure(spec: Mapping[str, Any], *, seeds: int = 5, floor_s: float = 900.0) -> RateCheck:
    """The question's model rate beside the engine's capacity for one replica of its workload."""
    rate = REPLICA_RATES[spec["slug"]]
    values, entries = side_values(spec, rate.side)
    entry = workload(spec, entries)
    expected = model_rate(values, entry["params"], rate.formula)
    if not math.isfinite(expected) or expected <= 0:
        raise ValueError(f"{spec['slug']}: the model's rate {rate.formula} is {expected}")
    found = replica_capacity(
        entry["params"],
        entry["slo"],
        guess=expected,
        seeds=replay_seeds(SEED_KEY, entry["scenario"], seeds),
        duration_s=window_s(entry["slo"], floor_s),
    )
    return RateCheck(
        spec["slug"], entry["scenario"], expected, found.rate, band_of(spec, rate.band_line), found.runs
    )


def measure_all(specs: Sequence[Mapping[str, Any]], **options: Any) -> list[RateCheck]:
    return [measure(spec, **options) for spec in specs if spec["slug"] in REPLICA_RATES]
