"""The serving family's documented parameters, events and SLO keys (mirrored in README.md)."""

from __future__ import annotations

from grading.core.sim.spec import EventSpec, FamilySpec, ParamSpec, SloSpec

P = ParamSpec

SERVING = FamilySpec(
    name="serving",
    description="LLM serving fleet: arrivals, admission queue, continuous batching, KV budget, autoscaler, "
    "regions and fallback; with `mu` > 0 a generic M/G/c queue.",
    params=(
        P("arrival_rate", "req/s", 10.0, "mean open-loop arrival rate (Poisson)"),
        P(
            "users",
            "user",
            0.0,
            "closed-loop users; > 0 sets the rate to users / (think_time_s + nominal response)",
        ),
        P("think_time_s", "s", 20.0, "think time of a closed-loop user"),
        P("diurnal_amplitude", "", 0.0, "rate multiplier 1 + A·sin(2π t / diurnal_period_s)"),
        P("diurnal_period_s", "s", 86400.0, "period of the diurnal cycle"),
        P("prompt_tokens", "tok", 2000.0, "mean prompt length"),
        P("prompt_cv", "", 0.5, "coefficient of variation of prompt length (gamma; 0 = fixed)"),
        P("output_tokens", "tok", 250.0, "mean output length"),
        P("output_cv", "", 1.0, "coefficient of variation of output length (gamma; 0 = fixed)"),
        P("tpot_s", "s", 0.04, "time per output token when n_params is 0"),
        P("prefill_tok_s", "tok/s", 28035.0, "prefill throughput of one replica when n_params is 0"),
        P("n_params", "param", 0.0, "model parameters; > 0 derives prefill and TPOT from the hardware"),
        P("bytes_per_param", "B", 2.0, "weight bytes per parameter"),
        P("gpus_per_replica", "GPU", 8.0, "GPUs per replica (tensor-parallel group); also used for cost"),
        P("hbm_bw", "B/s", 3.35e12, "HBM bandwidth per GPU"),
        P("hbm_bytes", "B", 80e9, "HBM per GPU"),
        P("hbm_overhead_frac", "", 0.1, "HBM kept for activations, CUDA graphs, fragmentation"),
        P("flops", "FLOP/s", 989e12, "dense peak FLOP/s per GPU"),
        P("mfu", "", 0.5, "prefill FLOP efficiency"),
        P("mbu", "", 0.7, "decode bandwidth efficiency"),
        P("kv_bytes_per_token", "B/tok", 327680.0, "KV cache bytes per token"),
        P("replicas", "replica", 16.0, "replicas at t=0, split evenly across regions"),
        P("max_batch", "seq", 64.0, "batch slots per replica"),
        P("kv_capacity_tokens", "tok", 0.0, "KV tokens per replica; 0 = derived (n_params > 0) or unlimited"),
        P(
            "queue_limit",
            "req",
            1e6,
            "admission queue length per region; arrivals finding it full are rejected",
        ),
        P("queue_timeout_s", "s", 0.0, "a request waiting longer than this times out; 0 = never"),
        P("min_replicas", "replica", 0.0, "autoscaler floor; 0 = replicas"),
        P("max_replicas", "replica", 0.0, "autoscaler ceiling; 0 = replicas (no autoscaling)"),
        P("scale_signal", "", 0.0, "0 = load (running + queued) / slots; 1 = queued per replica"),
        P(
            "scale_threshold",
            "",
            0.8,
            "scale up above it (to ceil(n·signal/threshold)); down below half of it",
        ),
        P("scale_interval_s", "s", 15.0, "how often the autoscaler looks"),
        P("cooldown_s", "s", 60.0, "minimum time between scale-ups (pending replicas count as capacity)"),
        P("scale_down_cooldown_s", "s", 600.0, "minimum time after a scaling action before a scale-down"),
        P("cold_start_s", "s", 70.0, "time from a scale-up decision to a ready replica"),
        P(
            "warm_pool",
            "replica",
            0.0,
            "pre-loaded spare replicas, ready after warm_start_s; refilled after cold_start_s",
        ),
        P("warm_start_s", "s", 5.0, "start time of a warm-pool replica"),
        P("regions", "region", 1.0, "regions; arrivals are spread evenly over them"),
        P("routing", "", 0.0, "0 = home region, failover when it is lost; 1 = least-loaded region"),
        P("retry_lost", "", 1.0, "1 = in-flight requests on a lost replica are retried; 0 = they fail"),
        P("fallback_rate", "req/s", 0.0, "capacity of the fallback provider during a provider_outage"),
        P("fallback_ttft_s", "s", 1.0, "TTFT of a request served by the fallback"),
        P("fallback_tpot_s", "s", 0.03, "TPOT of a request served by the fallback"),
        P("fallback_price_per_req", "USD", 0.0, "cost of one fallback request"),
        P("price_gpu_hour", "USD", 2.0, "price of one GPU-hour (running, starting and warm-pool replicas)"),
        P("servers", "", 0.0, "generic queue: > 0 sets replicas = servers and max_batch = 1"),
        P("mu", "1/s", 0.0, "generic queue: > 0 draws service times with mean 1/mu (TTFT = queue wait)"),
        P("service_cv2", "", 1.0, "generic queue: squared CV of service time (1 exp, 0 det, else gamma)"),
    ),
    events=(
        EventSpec("burst", {"factor": None, "duration": None}, "arrival rate × factor in [at, at+duration)"),
        EventSpec("step", {"factor": None}, "arrival rate × factor from at on"),
        EventSpec(
            "replica_loss", {"count": None, "region": 0.0}, "count replicas die; in-flight retried or failed"
        ),
        EventSpec(
            "region_loss",
            {"region": None, "duration": 0.0, "retry": -1.0},
            "the region goes (duration 0 = for good); its requests move or fail (retry -1 = retry_lost)",
        ),
        EventSpec("provider_outage", {"duration": None}, "the fleet is unavailable; the fallback serves"),
        EventSpec("kv_pressure", {"prompt_tokens": None, "duration": None}, "arrivals have this mean prompt"),
        EventSpec(
            "add_replicas", {"count": None, "region": 0.0}, "manual scale-up, ready after cold_start_s"
        ),
    ),
    slo=(
        SloSpec("ttft_p50_s", True, "median time to first token of served requests"),
        SloSpec("ttft_p95_s", True, "p95 time to first token"),
        SloSpec("ttft_p99_s", True, "p99 time to first token"),
        SloSpec("tpot_p95_s", True, "p95 time per output token"),
        SloSpec("tpot_p99_s", True, "p99 time per output token"),
        SloSpec("e2e_p95_s", True, "p95 end-to-end latency"),
        SloSpec("e2e_p99_s", True, "p99 end-to-end latency"),
        SloSpec("rejected_max_frac", True, "rejected (queue full, no fallback capacity) / arrivals"),
        SloSpec("timed_out_max_frac", True, "timed out in the queue / arrivals"),
        SloSpec("failed_max_frac", True, "failed (lost and not retried) / arrivals"),
        SloSpec("dropped_max_frac", True, "rejected + timed out + failed / arrivals"),
        SloSpec("queue_max", True, "largest admission queue (requests, all regions)"),
        SloSpec("cost_max_usd", True, "GPU and fallback cost"),
        SloSpec("gpu_busy_min_frac", False, "mean batch occupancy of running replicas"),
        SloSpec("wait_mean_max_s", True, "mean queue wait"),
    ),
)
