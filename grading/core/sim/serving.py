"""The serving family: build the fleet and its requests from parameters, run it, and summarise."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from grading.core.sim.arrivals import (
    check_arrival_cap,
    expected_arrivals,
    gamma_lengths,
    poisson_arrivals,
    service_times,
)
from grading.core.sim.engine import ACTIVATION_BYTES, step_clock
from grading.core.sim.engines import simulate_engines
from grading.core.sim.family_specs import about, check_slo_keys, resolve_events, resolve_params
from grading.core.sim.queueing import (
    FAILED,
    FALLBACK,
    REJECTED,
    SERVED,
    TIMED_OUT,
    WAITING,
    FleetConfig,
    FleetRun,
    Requests,
    simulate_fleet,
)
from grading.core.sim.result import ScenarioResult, check_slos, downsample
from grading.core.sim.serving_narrative import serving_narrative
from grading.core.sim.serving_spec import SERVING

INTERNAL_SAMPLES = 1200
PROGRESS_CHUNKS = 50
MAX_REQUESTS = 5_000_000
MAX_CONTROL_EVENTS = 1_000_000
MAX_ENGINE_STEPS = 20_000_000
MAX_ENGINE_REPLICAS = 4096
CLOSED_LOOP_SAMPLE = 512


@dataclass(frozen=True)
class ReplicaModel:
    """Replica timing (see `engine.step_clock` for how a step's time is built from these): the weights read
    once a step (tpot_base_s), the matmuls' compute for its tokens (prefill_tok_s), attention's KV read a
    token of context (tpot_per_kv_token_s) and its compute a (query, context) token pair (attn_s_per_pair),
    the interconnect a step and a token (comm_s_per_step, comm_s_per_token) and a fixed overhead a step."""

    prefill_tok_s: float
    tpot_base_s: float
    tpot_per_kv_token_s: float
    kv_capacity_tokens: float
    comm_s_per_step: float = 0.0
    comm_s_per_token: float = 0.0
    attn_s_per_pair: float = 0.0
    step_overhead_s: float = 0.0

    def step(
        self, tokens: float, decode_kv: float, prefill_kv: float = 0.0, prefill_pairs: float = 0.0
    ) -> float:
        """Time of a step carrying `tokens` whose decodes read `decode_kv` tokens of KV and whose prefill
        chunks read `prefill_kv` and attend `prefill_pairs` (query, context) pairs."""
        return self.step_of_floats(tokens, decode_kv, prefill_kv, prefill_pairs)

    @cached_property
    def step_of_floats(self) -> Callable[[float, float, float, float], float]:
        return step_clock(self)

    @cached_property
    def step_of_arrays(self) -> Callable[[Any, Any, Any, Any], Any]:
        """`step` over numpy arrays (element by element)."""
        return step_clock(self, arrays=True)

    def comm(self, tokens: float) -> float:
        """Interconnect time of a step carrying `tokens` (decodes and prefill chunks)."""
        return self.comm_s_per_step + self.comm_s_per_token * tokens

    def tpot(self, batch: float, context_tokens: float) -> float:
        """Step time of a replica decoding `batch` sequences of `context_tokens` each, nothing prefilling."""
        return self.step(batch, batch * context_tokens)


def layers_and_width(p: dict[str, Any]) -> tuple[float, float]:
    """The model's layers L and width d: as given, else from n_params ≈ 12·L·d² with d ≈ 128·L (the shape of
    the Llama and GPT families: 7-8B ≈ 32 × 4096, 70B ≈ 80 × 8192)."""
    layers = p["n_layers"] or max(1.0, round((p["n_params"] / (12.0 * 128.0**2)) ** (1.0 / 3.0)))
    width = p["hidden_size"] or math.sqrt(p["n_params"] / (12.0 * layers))
    return layers, width


def allreduce_costs(p: dict[str, Any], layers: float, width: float) -> tuple[float, float]:
    """(seconds a step, seconds a token) of a tensor-parallel group's two all-reduces a layer: each a fixed
    latency plus a ring's 2·(g−1)/g of the token's activations (d × 2 bytes) over the link, NVLink inside a
    node, the network when the group spans nodes; nothing for one GPU."""
    gpus = p["gpus_per_replica"]
    if gpus <= 1:
        return 0.0, 0.0
    inside = gpus <= p["gpus_per_node"]
    bandwidth = p["nvlink_bw"] if inside else p["network_bw"]
    latency = p["allreduce_latency_s"] if inside else p["network_latency_s"]
    count = 2.0 * layers
    return count * latency, count * 2.0 * (gpus - 1.0) / gpus * width * ACTIVATION_BYTES / bandwidth


def replica_model(p: dict[str, Any]) -> ReplicaModel:
    """Prefill and decode timing of one replica, derived from the model and GPU when `n_params` > 0 (README:
    the step model); with `n_params` 0 a step is max(tpot_s, tokens / prefill_tok_s) plus the interconnect."""
    comm = (p["interconnect_latency_s"], p["interconnect_bytes_per_token"] / p["interconnect_bw"])
    if p["n_params"] <= 0:
        kv = p["kv_capacity_tokens"] if p["kv_capacity_tokens"] > 0 else math.inf
        return ReplicaModel(p["prefill_tok_s"], p["tpot_s"], 0.0, kv, *comm)
    gpus = p["gpus_per_replica"]
    weights = p["n_params"] * p["bytes_per_param"]
    compute = gpus * p["flops"] * p["mfu"]
    kv = p["kv_capacity_tokens"]
    if kv <= 0:
        kv = (gpus * p["hbm_bytes"] * (1.0 - p["hbm_overhead_frac"]) - weights) / p["kv_bytes_per_token"]
        if kv <= 0:
            raise ValueError(
                f"serving: the weights (n_params = {p['n_params']:.6g} × bytes_per_param = "
                f"{p['bytes_per_param']:.6g} B) do not fit in the replica's HBM (gpus_per_replica = "
                f"{gpus:.6g} × hbm_bytes = {p['hbm_bytes']:.6g} B, less hbm_overhead_frac)"
            )
    layers, width = layers_and_width(p)
    per_step, per_token = allreduce_costs(p, layers, width)
    return ReplicaModel(
        prefill_tok_s=compute / (2.0 * p["n_params"]),
        tpot_base_s=weights / (gpus * p["hbm_bw"] * p["mbu"]),
        tpot_per_kv_token_s=p["kv_bytes_per_token"] / (gpus * p["hbm_bw"] * p["kv_mbu"]),
        kv_capacity_tokens=kv,
        comm_s_per_step=comm[0] + per_step,
        comm_s_per_token=comm[1] + per_token,
        attn_s_per_pair=4.0 * layers * width / compute,
        step_overhead_s=p["step_overhead_s"],
    )


def base_arrival_rate(p: dict[str, Any], model: ReplicaModel) -> float:
    """Open-loop rate, or for `users` > 0 the response-time law X = N / (Z + R), R the response time the
    engine gives at X (`engine_response`): the largest X with X·(Z + R(X)) ≤ N, found by bisection (X·(Z + R)
    grows with X). Users that fill the fleet's slots or KV before that send N / (Z + R) at the edge."""
    if p["users"] <= 0:
        return float(p["arrival_rate"])
    if p["mu"] > 0:
        return float(p["users"] / (p["think_time_s"] + 1.0 / p["mu"]))  # 1/mu > 0, so the sum is positive
    prompts = length_quantiles(p["prompt_tokens"], p["prompt_cv"])
    outputs = length_quantiles(p["output_tokens"], p["output_cv"])
    users, think = float(p["users"]), float(p["think_time_s"])
    lightest = engine_response(p, model, 0.0, prompts, outputs)
    if not math.isfinite(lightest):  # not even one request fits a replica: the engine refuses them all
        lightest = float(prompts.mean() / model.prefill_tok_s + outputs.mean() * model.tpot_base_s)
    if not think + lightest > 0:
        raise ValueError("serving: users with think_time_s 0 and an instant response make the rate unbounded")
    low, high = 0.0, users / (think + lightest)  # R(X) ≥ R(0), so X ≤ N / (Z + R(0))
    for _ in range(48):
        mid = 0.5 * (low + high)
        response = engine_response(p, model, mid, prompts, outputs)
        if math.isfinite(response) and mid * (think + response) <= users:
            low = mid
        else:
            high = mid
    edge = engine_response(p, model, low, prompts, outputs)
    if low * (think + edge) < users * (1.0 - 1e-6):
        # more users than the fleet keeps up with (its batch slots or KV are full at `low`): they send at the
        # law's rate for the response at that edge, more than the fleet serves, and the queue grows
        return users / (think + edge)
    return low


def length_quantiles(mean: float, cv: float) -> np.ndarray:
    """The length distribution as CLOSED_LOOP_SAMPLE equal-probability bins (each bin's mean, from a fixed
    sorted sample, so the closed-loop rate is the same for every seed)."""
    sample = np.sort(gamma_lengths(mean, cv, 128 * CLOSED_LOOP_SAMPLE, np.random.default_rng(0)))
    return sample.reshape(CLOSED_LOOP_SAMPLE, -1).mean(axis=1)


def engine_response(
    p: dict[str, Any], model: ReplicaModel, rate: float, prompts: np.ndarray, outputs: np.ndarray
) -> float:
    """Mean response time (arrival to last token) when `rate` arrives at the fleet, from the engine's own step
    rule with nothing queued (`engine.py`); inf when the replicas cannot keep up. `prompts` and `outputs`
    stand for the length distributions (equal-probability bins).

    Per replica λ = rate / replicas. With b requests decoding (Little's law: b = λ·(output − 1)·τ) of mean
    context L̄ a decode-only step lasts d = S(b, b·L̄), S the engine's step time (`engine.step_clock`). A
    prompt's chunks ride in steps S(b + chunk, b·L̄) and add its attention, the larger of its KV read and its
    compute over the whole prompt (chunked prefill; with serial prefill one step of the whole prompt that
    carries no decode), λ·E[their time] of every second; the decodes ride in the prefill steps and in
    (1 − that) / d decode-only steps a second, so the mean step a decode sees, τ, is one over their sum. R =
    the wait for the prefills ahead + E[prefill steps] + τ / 2 (the step in progress on arrival) +
    E[output − 1]·τ.
    """
    lam = rate / max(p["replicas"], 1.0)
    budget = token_budget(p)
    steps = np.maximum(outputs - 1.0, 0.0)
    decodes = float(steps.mean())
    # the KV of a decoding request, averaged over its decode steps (a long answer decodes for longer)
    grown = float((steps * steps).mean()) / (2.0 * decodes) if decodes > 0 else 0.0
    context = float(prompts.mean()) + grown
    most = min(p["max_batch"], model.kv_capacity_tokens / context)
    step_of = model.step_of_arrays
    pairs = prompts * (prompts + 1.0) / 2.0  # (query, context) pairs of a prompt's causal attention
    tau = model.tpot(0.0, context)
    prefilling = 0.0
    for _ in range(200):
        batch = lam * decodes * tau
        if batch > most:
            return math.inf
        decode_kv = batch * context
        step = model.tpot(batch, context)
        if p["chunked_prefill"]:
            room = max(budget - batch, 1.0)
            full = np.floor(prompts / room)
            rest = prompts - full * room
            read = room * full * (full + 1.0) / 2.0 + np.where(rest > 0.0, prompts, 0.0)
            attention = step_of(0.0, 0.0, read, pairs) - step_of(0.0, 0.0, 0.0, 0.0)
            whole = step_of(batch + room, decode_kv, 0.0, 0.0)
            alone = full * whole + np.where(rest > 0.0, step_of(batch + rest, decode_kv, 0.0, 0.0), 0.0)
            # a prompt's last, partial chunk shares its step with the next prompt's first when one is
            # prefilling (probability `prefilling`, from the last round): then it costs its share of a step
            prefill = (1.0 - prefilling) * alone + prefilling * (prompts / room) * whole + attention
        else:
            prefill = step_of(prompts, 0.0, prompts, pairs)
        prefilling = lam * float(prefill.mean())  # share of the replica's time in steps with prefill work
        if prefilling >= 1.0:
            return math.inf
        if p["chunked_prefill"]:
            # a prompt that arrives while another prefills (probability `prefilling`, Poisson arrivals see
            # time averages) shares its steps: its chunks fill the budget left; alone it takes its own steps
            chunks = (1.0 - prefilling) * float((full + (rest > 0.0)).mean())
            chunks += prefilling * float(prompts.mean()) / room
        else:
            chunks = 0.0  # a serial prefill step carries no decodes
        new = 1.0 / (lam * chunks + (1.0 - prefilling) / step)  # the steps a second that carry the decodes
        if abs(new - tau) <= 1e-12 * new:
            break
        tau = new
    else:
        return math.inf  # no fixed point: the step time grows with the batch it lengthens
    # the wait for the prefills ahead (Pollaczek–Khinchine, the prefills an FCFS server) and for the step in
    # progress, the prompt's own prefill steps, then one decode step a token
    wait = lam * float((prefill * prefill).mean()) / (2.0 * (1.0 - prefilling))
    response = wait + float(prefill.mean()) + tau / 2.0 + decodes * tau
    return response if lam * response <= p["max_batch"] else math.inf


def split(total: int, parts: int) -> list[int]:
    """`total` spread over `parts` as evenly as possible, the larger shares first."""
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def build_requests(
    p: dict[str, Any],
    events: Sequence[dict[str, Any]],
    model: ReplicaModel,
    rate: float,
    duration_s: float,
    seed: int,
) -> Requests:
    """Arrival times and per-request work, drawn from independent streams of `seed`."""
    arrival_rng, length_rng, region_rng, _ = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4)
    )
    shape = (events, p["diurnal_amplitude"], p["diurnal_period_s"])
    source = "users" if p["users"] > 0 else "arrival_rate"
    expected = expected_arrivals(rate, duration_s, *shape)
    check_arrival_cap(
        expected,
        MAX_REQUESTS,
        "serving",
        f"{source} = {p[source]:.6g} ({rate:.6g} req/s) with the scenario's bursts and steps",
    )
    if p["mu"] <= 0:
        check_engine_size(p, events, model, expected, duration_s)
    arrival = poisson_arrivals(rate, duration_s, arrival_rng, *shape)
    n = arrival.size
    if n > MAX_REQUESTS:
        raise ValueError(f"serving: {n:,} requests is more than the {MAX_REQUESTS:,} one replay may simulate")
    regions = int(p["regions"])
    home = region_rng.integers(0, regions, n) if regions > 1 else np.zeros(n, dtype=np.int64)
    if p["mu"] > 0:
        zeros = np.zeros(n)
        service = service_times(1.0 / p["mu"], p["service_cv2"], n, length_rng)
        again = service_times(1.0 / p["mu"], p["service_cv2"], n, length_rng)
        return Requests(arrival, home, service, zeros, zeros, zeros, again)
    prompt = gamma_lengths(p["prompt_tokens"], p["prompt_cv"], n, length_rng)
    output = gamma_lengths(p["output_tokens"], p["output_cv"], n, length_rng)
    for event in events:
        if event["type"] == "kv_pressure":
            inside = (arrival >= event["at"]) & (arrival < event["at"] + event["duration"])
            prompt[inside] = gamma_lengths(
                event["prompt_tokens"], p["prompt_cv"], int(inside.sum()), length_rng
            )
    prefill = prompt / model.prefill_tok_s
    return Requests(arrival, home, prefill, prefill, output, prompt + output, prompt_tokens=prompt)


def fleet_config(p: dict[str, Any], model: ReplicaModel) -> FleetConfig:
    """The engine's configuration from resolved parameters."""
    regions = int(p["regions"])
    replicas = int(p["replicas"])
    min_total = int(p["min_replicas"]) or replicas
    max_total = max(int(p["max_replicas"]) or replicas, replicas)
    return FleetConfig(
        replicas=split(replicas, regions),
        max_batch=int(p["max_batch"]),
        kv_capacity=math.inf if p["mu"] > 0 else model.kv_capacity_tokens,
        queue_limit=p["queue_limit"],
        queue_timeout_s=p["queue_timeout_s"] if math.isfinite(p["queue_timeout_s"]) else 0.0,  # 0: none
        tpot_base_s=0.0 if p["mu"] > 0 else model.tpot_base_s,
        tpot_per_kv_token_s=0.0 if p["mu"] > 0 else model.tpot_per_kv_token_s,
        routing=int(p["routing"]),
        retry_lost=bool(p["retry_lost"]),
        autoscale=max_total > replicas or min_total < replicas,
        min_replicas=split(min(min_total, replicas), regions),
        max_replicas=split(max_total, regions),
        scale_signal=int(p["scale_signal"]),
        scale_threshold=p["scale_threshold"],
        scale_interval_s=p["scale_interval_s"],
        cooldown_s=p["cooldown_s"],
        scale_down_cooldown_s=p["scale_down_cooldown_s"],
        cold_start_s=p["cold_start_s"],
        warm_pool=int(p["warm_pool"]),
        warm_start_s=p["warm_start_s"],
        fallback_rate=p["fallback_rate"],
        fallback_ttft_s=p["fallback_ttft_s"],
        fallback_tpot_s=p["fallback_tpot_s"],
        chunked_prefill=bool(p["chunked_prefill"]),
        token_budget=token_budget(p),
        prefill_tok_s=model.prefill_tok_s,
        preempt_swap=bool(p["preemption"]),
        swap_s_per_token=p["kv_bytes_per_token"] / (p["gpus_per_replica"] * p["swap_bw"]),
        comm_s_per_step=0.0 if p["mu"] > 0 else model.comm_s_per_step,
        comm_s_per_token=0.0 if p["mu"] > 0 else model.comm_s_per_token,
        attn_s_per_pair=model.attn_s_per_pair,
        step_overhead_s=model.step_overhead_s,
        kv_block_tokens=math.floor(p["kv_block_tokens"]),
        kv_watermark_frac=p["kv_watermark_frac"],
    )


def token_budget(p: dict[str, Any]) -> float:
    """Whole tokens in an engine step's budget, at least one."""
    return max(1.0, float(math.floor(p["max_batched_tokens"])))


def check_engine_size(
    p: dict[str, Any],
    events: Sequence[dict[str, Any]],
    model: ReplicaModel,
    arrivals: float,
    duration_s: float,
) -> None:
    """Refuse, before anything is drawn, a fleet of engines too big to step: too many replicas, or more engine
    steps than MAX_ENGINE_STEPS (each step does at least one token: no more steps than tokens, nor than the
    replicas can run at the shortest step)."""
    added = sum(e["count"] for e in events if e["type"] == "add_replicas")
    replicas = max(p["replicas"], p["max_replicas"]) + added
    if replicas > MAX_ENGINE_REPLICAS:
        raise ValueError(
            f"serving: replicas = {p['replicas']:.6g} (max_replicas = {p['max_replicas']:.6g}, "
            f"{added:.6g} added) gives about {about(replicas)} replicas, more than the "
            f"{MAX_ENGINE_REPLICAS:,} one replay may simulate (each replica's engine is stepped)"
        )
    prompt = max([p["prompt_tokens"]] + [e["prompt_tokens"] for e in events if e["type"] == "kv_pressure"])
    by_work = arrivals * (p["output_tokens"] + prompt / token_budget(p) + 2.0)
    shortest_step = max(model.tpot_base_s, 1.0 / model.prefill_tok_s) + model.comm(1.0)
    by_time = replicas * duration_s / shortest_step if shortest_step > 0 else math.inf
    steps = min(by_work, by_time)
    if not steps <= MAX_ENGINE_STEPS:
        raise ValueError(
            f"serving: prompt_tokens = {prompt:.6g}, output_tokens = {p['output_tokens']:.6g}, "
            f"max_batched_tokens = {p['max_batched_tokens']:.6g} and tpot_s / prefill_tok_s at this load "
            f"gives about {about(steps)} engine steps, more than the {MAX_ENGINE_STEPS:,} one replay may "
            "simulate"
        )


def _pcts(values: np.ndarray, qs: tuple[float, ...] = (50.0, 95.0, 99.0)) -> list[float]:
    return [float(x) for x in np.percentile(values, qs)] if values.size else [math.nan] * len(qs)


def summarise(
    p: dict[str, Any], req: Requests, out: FleetRun, model: ReplicaModel, rate: float, duration_s: float
) -> dict[str, Any]:
    """Overall metrics from per-request records (percentiles) and the engine's integrals."""
    n = req.arrival.size
    status = out.status
    served_mask = (status == SERVED) | (status == FALLBACK)
    # an engine's request still prefilling or decoding at the end has no first token or finish yet
    ttft = (out.first_token - req.arrival)[served_mask & np.isfinite(out.first_token)]
    e2e = (out.finish - req.arrival)[served_mask & np.isfinite(out.finish)]
    tpot = out.tpot[served_mask & np.isfinite(out.tpot)] if p["mu"] <= 0 else np.array([])
    wait = (out.start - req.arrival)[status == SERVED]
    counts = {
        "served": int(served_mask.sum()),
        "rejected": int((status == REJECTED).sum()),
        "timed_out": int((status == TIMED_OUT).sum()),
        "failed": int((status == FAILED).sum()),
        "fallback_served": int((status == FALLBACK).sum()),
        "unfinished": int((status == WAITING).sum()),
    }
    frac = {f"{key}_frac": value / n if n else 0.0 for key, value in counts.items()}
    # not served within target: every arrival that got no answer, whatever stopped it
    dropped = counts["rejected"] + counts["timed_out"] + counts["failed"] + counts["unfinished"]
    occupancy = out.samples["gpu_busy_frac"][out.samples["replicas_running"] > 0]
    gpu_hours = out.replica_seconds * p["gpus_per_replica"] / 3600.0
    cost = gpu_hours * p["price_gpu_hour"] + counts["fallback_served"] * p["fallback_price_per_req"]
    nominal_context = p["prompt_tokens"] + p["output_tokens"] / 2.0
    return {
        "arrivals": n,
        **counts,
        **frac,
        "completed": int((served_mask & (out.finish <= duration_s)).sum()),
        "retried": int((out.retries > 0).sum()),
        "dropped": dropped,
        "dropped_frac": dropped / n if n else 0.0,
        **dict(zip(("ttft_p50_s", "ttft_p95_s", "ttft_p99_s"), _pcts(ttft), strict=True)),
        "ttft_mean_s": float(ttft.mean()) if ttft.size else math.nan,
        **dict(zip(("tpot_p50_s", "tpot_p95_s", "tpot_p99_s"), _pcts(tpot), strict=True)),
        **dict(zip(("e2e_p50_s", "e2e_p95_s", "e2e_p99_s"), _pcts(e2e), strict=True)),
        "e2e_mean_s": float(e2e.mean()) if e2e.size else math.nan,
        "wait_mean_s": float(wait.mean()) if wait.size else math.nan,
        "p_wait": float((wait > 1e-12).mean()) if wait.size else math.nan,
        "throughput_rps": counts["served"] / duration_s,
        "in_system_mean": out.area / duration_s,
        "queue_max": float(out.samples["queue"].max()) if out.samples["queue"].size else 0.0,
        "replicas_max": float(out.samples["replicas_running"].max()) if out.samples["t"].size else 0.0,
        "gpu_busy_frac": float(occupancy.mean()) if occupancy.size else 0.0,
        "gpu_hours": gpu_hours,
        "cost_usd": cost,
        "arrival_rate": rate,
        "tpot_nominal_s": model.tpot(p["max_batch"] / 2.0, nominal_context) if p["mu"] <= 0 else math.nan,
        "prefill_nominal_s": p["prompt_tokens"] / model.prefill_tok_s if p["mu"] <= 0 else math.nan,
        "kv_capacity_tokens": model.kv_capacity_tokens if p["mu"] <= 0 else math.inf,
        **engine_counts(out),
    }


def engine_counts(out: FleetRun) -> dict[str, Any]:
    """Preemptions (each time a request lost its KV to a growing batch), requests preempted, swaps and the
    engine steps run."""
    preempted = out.preempted if out.preempted is not None else np.zeros(0, dtype=np.int64)
    return {
        "preemptions": int(preempted.sum()),
        "preempted_requests": int((preempted > 0).sum()),
        "swaps": out.swaps,
        "engine_steps": out.engine_steps,
    }


def binned_percentile(values: np.ndarray, bounds: np.ndarray, q: float) -> np.ndarray:
    """The q-th percentile (numpy's linear rule) of each slice values[bounds[k]:bounds[k+1]], nan if empty."""
    out = np.full(bounds.size - 1, np.nan)
    for k in range(bounds.size - 1):
        chunk = values[bounds[k] : bounds[k + 1]]
        if chunk.size == 0:
            continue
        position = (chunk.size - 1) * q / 100.0
        low = int(position)
        high = min(low + 1, chunk.size - 1)
        part = np.partition(chunk, (low, high))
        out[k] = part[low] + (part[high] - part[low]) * (position - low)
    return out


def time_series(p: dict[str, Any], req: Requests, out: FleetRun, duration_s: float) -> dict[str, list[float]]:
    """Chart series on a common `t` axis (bin starts), at most ~300 points."""
    samples = downsample(
        {key: value for key, value in out.samples.items()},
        {"queue": "first", "in_service": "first", "replicas_running": "first", "replicas_starting": "first"},
    )
    t = np.array(samples["t"])
    edges = np.append(t, duration_s)
    width = np.diff(edges)
    arrivals = np.diff(np.searchsorted(req.arrival, edges, side="left"))
    ended = out.finish
    rejected, _ = np.histogram(ended[out.status == REJECTED], edges)
    timed_out, _ = np.histogram(ended[out.status == TIMED_OUT], edges)
    served = ((out.status == SERVED) | (out.status == FALLBACK)) & np.isfinite(out.first_token)
    ttft = out.first_token - req.arrival
    served_arrival = req.arrival[served]  # sorted, so each bin is one slice
    bounds = np.searchsorted(served_arrival, edges, side="left")
    bounds[-1] = served_arrival.size
    ttft_p95 = binned_percentile(ttft[served], bounds, 95.0)
    preempt_times = out.preempt_times if out.preempt_times is not None else np.zeros(0)
    preemptions, _ = np.histogram(preempt_times, edges)
    paid = np.array(samples.pop("replicas_paid"))
    cost = np.cumsum(paid * width) * p["gpus_per_replica"] * p["price_gpu_hour"] / 3600.0
    samples.update(
        {
            "arrival_rps": (arrivals / np.maximum(width, 1e-12)).tolist(),
            "ttft_p95_s": ttft_p95.tolist(),
            "rejected": rejected.astype(float).tolist(),
            "timed_out": timed_out.astype(float).tolist(),
            "preemptions": preemptions.astype(float).tolist(),
            "cost_usd": cost.tolist(),
        }
    )
    return samples


def slo_actuals(summary: dict[str, Any]) -> dict[str, float]:
    """The value each serving SLO key is checked against."""
    return {
        "ttft_p50_s": summary["ttft_p50_s"],
        "ttft_p95_s": summary["ttft_p95_s"],
        "ttft_p99_s": summary["ttft_p99_s"],
        "tpot_p95_s": summary["tpot_p95_s"],
        "tpot_p99_s": summary["tpot_p99_s"],
        "e2e_p95_s": summary["e2e_p95_s"],
        "e2e_p99_s": summary["e2e_p99_s"],
        # A share-of-requests SLO counts every request not served, however it was lost: a run where a
        # quarter of the requests timed out cannot pass "rejected ≤ 1%" because none was rejected.
        "rejected_max_frac": summary["dropped_frac"],
        "timed_out_max_frac": summary["dropped_frac"],
        "failed_max_frac": summary["dropped_frac"],
        "dropped_max_frac": summary["dropped_frac"],
        "queue_max": summary["queue_max"],
        "cost_max_usd": summary["cost_usd"],
        "gpu_busy_min_frac": summary["gpu_busy_frac"],
        "wait_mean_max_s": summary["wait_mean_s"],
    }


def simulate_serving(
    p: dict[str, Any],
    resolved: list[dict[str, Any]],
    model: ReplicaModel,
    rate: float,
    duration_s: float,
    seed: int,
    progress: Callable[[float], None] | None = None,
    *,
    fast: bool = True,
    engine: str | None = None,
) -> tuple[Requests, FleetRun]:
    """The requests of one serving run and the fleet's records for them (run_serving's simulation)."""
    req = build_requests(p, resolved, model, rate, duration_s, seed)
    cfg = fleet_config(p, model)
    if cfg.autoscale and duration_s / cfg.scale_interval_s > MAX_CONTROL_EVENTS:
        raise ValueError(
            f"serving: scale_interval_s is {cfg.scale_interval_s:.6g} s: the autoscaler would look more than "
            f"{MAX_CONTROL_EVENTS:,} times in {duration_s:.6g} s"
        )
    fleet_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(4)[3])
    # what both loops take first: the fleet, its requests and events, the run, the stream, sampling, progress
    run = (cfg, req, resolved, duration_s, fleet_rng, duration_s / INTERNAL_SAMPLES, progress)
    if p["mu"] > 0:
        return req, simulate_fleet(*run, duration_s / PROGRESS_CHUNKS, fast=fast)
    steps = 2 * MAX_ENGINE_STEPS
    return req, simulate_engines(*run, duration_s / PROGRESS_CHUNKS, max_steps=steps, engine=engine)


def run_serving(
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seed: int,
    progress: Callable[[float], None] | None = None,
    *,
    fast: bool = True,
    engine: str | None = None,
) -> ScenarioResult:
    """Run one serving scenario (see README.md, family `serving`); `fast` False keeps the generic queue
    (`mu` > 0) to its event loop (the benchmark times both paths); `engine` picks the engine's step loop,
    `compiled` or `python` (the reference), by default `engines.chosen_engine()`."""
    p = resolve_params(SERVING, params)
    if p["servers"] > 0:
        p["replicas"], p["max_batch"] = p["servers"], 1.0
    resolved = resolve_events(SERVING, events)
    check_slo_keys(SERVING, slo)
    model = replica_model(p)
    rate = base_arrival_rate(p, model)
    run = (p, resolved, model, rate, duration_s, seed, progress)
    req, out = simulate_serving(*run, fast=fast, engine=engine)
    if progress is not None:
        progress(1.0)
    summary = summarise(p, req, out, model, rate, duration_s)
    checks = check_slos(SERVING, slo, slo_actuals(summary))
    series = time_series(p, req, out, duration_s)
    narrative = serving_narrative(p, resolved, req, out, summary, checks, rate, duration_s)
    return ScenarioResult("serving", all(c["passed"] for c in checks), checks, summary, series, narrative)
