"""Plain-words account of a serving replay: what happened, when, and how many requests it cost."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from grading.core.sim.arrivals import rate_multiplier
from grading.core.sim.narrative import at, counted, episodes, num, seconds
from grading.core.sim.queueing import FAILED, REJECTED, TIMED_OUT, FleetRun, Requests
from grading.core.sim.slo_words import slo_sentence

MAX_SCALE_SENTENCES = 4


def _setup(p: dict[str, Any], summary: dict[str, Any], rate: float, duration_s: float) -> str:
    head = (
        f"Base load {num(rate)} req/s ({num(summary['arrivals'])} arrivals in {num(duration_s)} s) "
        f"on {counted(p['replicas'], 'replica')} × {num(p['max_batch'])} slots"
    )
    if p["mu"] > 0:
        return head + f"; mean service time {num(1.0 / p['mu'])} s."
    prefill = (
        f"chunked prefill sharing a {num(p['max_batched_tokens'])}-token step with the decodes"
        if p["chunked_prefill"]
        else "serial prefill (a prefill step stalls decoding)"
    )
    return head + (
        f"; nominal prefill {num(summary['prefill_nominal_s'])} s and TPOT "
        f"{num(summary['tpot_nominal_s'] * 1000)} ms, {prefill}."
    )


def _preemption_sentence(summary: dict[str, Any], p: dict[str, Any], out: FleetRun) -> str | None:
    if not summary["preemptions"]:
        return None
    times = out.preempt_times if out.preempt_times is not None else np.zeros(0)
    how = (
        "swapped their KV to host memory and back"
        if p["preemption"]
        else "lost their KV and prefilled again (recompute)"
    )
    return (
        f"The KV cache ran out as batches grew: {num(summary['preemptions'])} preemptions of "
        f"{num(summary['preempted_requests'])} requests between {at(float(times.min()))} and "
        f"{at(float(times.max()))}; they {how}."
    )


def _scenario_sentence(
    event: dict[str, Any], p: dict[str, Any], rate: float, summary: dict[str, Any]
) -> str | None:
    kind = event["type"]
    before = rate * float(rate_multiplier(np.array([event["at"] - 1e-9]), [], p["diurnal_amplitude"])[0])
    if kind == "burst":
        return (
            f"At {at(event['at'])} a burst multiplied arrivals by {num(event['factor'])} for "
            f"{num(event['duration'])} s (about {num(before)} → {num(before * event['factor'])} req/s)."
        )
    if kind == "step":
        return f"At {at(event['at'])} arrivals stepped ×{num(event['factor'])}."
    if kind == "kv_pressure":
        tokens = event["prompt_tokens"] + p["output_tokens"]
        fits = summary["kv_capacity_tokens"] / tokens
        fit_text = (
            f"; a replica's KV cache holds {num(math.floor(fits))} of them" if math.isfinite(fits) else ""
        )
        return (
            f"From {at(event['at'])} for {num(event['duration'])} s prompts averaged "
            f"{num(event['prompt_tokens'])} tokens{fit_text} (max batch {num(p['max_batch'])})."
        )
    return None


def _log_sentence(t: float, kind: str, info: dict[str, Any], p: dict[str, Any]) -> str | None:
    if kind == "scale_up":
        parts = []
        if info["warm"]:
            parts.append(f"{info['warm']} from the warm pool (ready at {at(info['ready_warm'])})")
        if info["cold"]:
            parts.append(f"{info['cold']} cold (ready at {at(info['ready_cold'])})")
        return (
            f"At {at(t)} the autoscaler saw signal {num(info['signal'])} on "
            f"{counted(info['from'], 'replica')} and "
            f"added {' and '.join(parts)}."
        )
    if kind == "add":
        ordered = counted(info["count"], "replica")
        return f"At {at(t)} {ordered} ordered, ready at {at(info['ready_at'])}."
    if kind == "replica_loss":
        fate = "retried from the front of the queue" if p["retry_lost"] else "lost"
        died = counted(info["count"], "replica")
        return f"At {at(t)} {died} died with {info['in_flight']} requests in flight, {fate}."
    if kind == "region_loss":
        return (
            f"At {at(t)} region {info['region']} went down with {counted(info['replicas'], 'replica')}, "
            f"{info['in_flight']} requests in flight and {info['queued']} queued: "
            f"{info['moved']} moved to other regions, {info['failed']} failed."
        )
    if kind == "region_back":
        return f"At {at(t)} region {info['region']} came back with {counted(info['replicas'], 'replica')}."
    if kind == "outage":
        return (
            f"At {at(t)} the provider went down for {num(info['duration'])} s; "
            f"{info['in_flight'] + info['queued']} requests in flight or queued went to the fallback "
            f"({num(p['fallback_rate'])} req/s)."
        )
    if kind == "outage_end":
        return f"At {at(t)} the provider was back."
    if kind == "scale_down":
        return (
            f"At {at(t)} the autoscaler scaled down from {info['from']} to {counted(info['to'], 'replica')}."
        )
    return None


def _episode_sentences(
    req: Requests,
    out: FleetRun,
    log: Sequence[tuple[float, str, dict[str, Any]]],
    p: dict[str, Any],
    duration_s: float,
) -> list[tuple[float, str]]:
    gap = max(10.0, duration_s / 100.0)
    outages = [(t, t + info["duration"]) for t, kind, info in log if kind == "outage"]
    readies = [(t, info["count"]) for t, kind, info in log if kind == "ready"]
    lines: list[tuple[float, str]] = []
    for first, last, count in episodes(out.finish[out.status == REJECTED], gap):
        if any(a <= first < b for a, b in outages):
            text = (
                f"From {at(first)} to {at(last)} the fallback was full: {num(count)} requests were rejected"
            )
        elif math.isfinite(p["queue_limit"]):
            text = (
                f"The queue hit its limit of {num(p['queue_limit'])} at {at(first)} and {num(count)} "
                f"requests were rejected until {at(last)}"
            )
        else:
            text = f"From {at(first)} to {at(last)} {num(count)} requests were rejected"
        ready = next(((t, c) for t, c in reversed(readies) if first <= t <= last + gap), None)
        if ready:
            text += f"; it ended after {counted(ready[1], 'new replica')} became ready at {at(ready[0])}"
        lines.append((first, text + "."))
    for first, last, count in episodes(out.finish[out.status == TIMED_OUT], gap):
        lines.append(
            (
                first,
                f"From {at(first)} to {at(last)} {num(count)} requests timed out after waiting "
                f"{num(p['queue_timeout_s'])} s in the queue.",
            )
        )
    failed = out.finish[out.status == FAILED]
    if failed.size:
        lines.append(
            (float(failed.min()), f"{num(failed.size)} requests failed outright (lost, not retried).")
        )
    return lines


def serving_narrative(
    p: dict[str, Any],
    events: Sequence[dict[str, Any]],
    req: Requests,
    out: FleetRun,
    summary: dict[str, Any],
    checks: Sequence[dict[str, Any]],
    rate: float,
    duration_s: float,
) -> list[str]:
    """Sentences in time order, then the peaks and the SLO verdicts."""
    timed: list[tuple[float, str]] = []
    for event in events:
        sentence = _scenario_sentence(event, p, rate, summary)
        if sentence:
            timed.append((event["at"], sentence))
    scale_ups = 0
    for t, kind, info in out.log:
        if kind in ("scale_up", "ready", "scale_down"):
            scale_ups += kind == "scale_up"
            if scale_ups > MAX_SCALE_SENTENCES or kind == "ready":
                continue
        sentence = _log_sentence(t, kind, info, p)
        if sentence:
            timed.append((t, sentence))
    timed.extend(_episode_sentences(req, out, out.log, p, duration_s))
    lines = [_setup(p, summary, rate, duration_s)]
    lines.extend(text for _, text in sorted(timed, key=lambda item: item[0]))
    if scale_ups > MAX_SCALE_SENTENCES:
        lines.append(
            f"The autoscaler scaled up {scale_ups} times in all (first {MAX_SCALE_SENTENCES} shown)."
        )
    queue = out.samples["queue"]
    if queue.size and queue.max() > 0:
        k = int(np.argmax(queue))
        lines.append(f"The queue peaked at {num(queue[k])} requests at {at(out.samples['t'][k])}.")
    preemption = _preemption_sentence(summary, p, out)
    if preemption:
        lines.append(preemption)
    if summary["retried"]:
        lines.append(f"{num(summary['retried'])} requests were retried after losing their replica.")
    lines.append(
        f"Served {num(summary['served'])} of {num(summary['arrivals'])} requests: TTFT p95 "
        f"{seconds(summary['ttft_p95_s'])}, p99 {seconds(summary['ttft_p99_s'])}; end-to-end p95 "
        f"{seconds(summary['e2e_p95_s'])}; cost ${num(summary['cost_usd'])}."
    )
    if summary["dropped"]:
        parts = [
            (summary["rejected"], "rejected"),
            (summary["timed_out"], "timed out in the queue"),
            (summary["failed"], "lost"),
            (summary["unfinished"], "still waiting at the end"),
        ]
        lines.append(
            f"{num(summary['dropped'])} of {num(summary['arrivals'])} requests "
            f"({num(100 * summary['dropped_frac'])}%) were not served: "
            + ", ".join(f"{num(count)} {what}" for count, what in parts if count)
            + "."
        )
    lines.extend(slo_sentence(check) for check in checks)
    return lines
