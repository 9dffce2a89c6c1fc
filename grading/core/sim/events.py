"""The events family: at-least-once usage streams, idempotency keys and reserve-then-settle rate limits."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grading.core.sim.arrivals import check_arrival_cap, expected_arrivals, poisson_arrivals
from grading.core.sim.family_specs import (
    EventSpec,
    FamilySpec,
    ParamSpec,
    SloSpec,
    check_slo_keys,
    resolve_events,
    resolve_params,
    with_domains,
)
from grading.core.sim.narrative import at, num
from grading.core.sim.result import MAX_POINTS, ScenarioResult, check_slos
from grading.core.sim.slo_words import slo_sentence

P = ParamSpec
MAX_EVENTS = 5_000_000

EVENTS = FamilySpec(
    name="events",
    description="Event streams (billing, token rate limits): drops, duplicates, retries, idempotency keys, "
    "reservations settled later.",
    params=with_domains(
        (
            P("event_rate", "event/s", 100.0, "usage events (requests) per second"),
            P("tokens_per_event", "tok", 1000.0, "mean tokens per event (exponential)"),
            P("price_per_event", "USD", 0.002, "mean charge of one event"),
            P("drop_prob", "", 0.001, "probability a delivery attempt is lost"),
            P("dup_prob", "", 0.01, "probability a delivered event is delivered twice"),
            P("retry_prob", "", 1.0, "probability a lost attempt is retried"),
            P("max_retries", "", 3.0, "retries per event"),
            P("retry_delay_s", "s", 5.0, "delay before a retry"),
            P("redelivery_delay_s", "s", 30.0, "mean delay of a duplicate copy"),
            P("idempotency", "", 1.0, "1 = dedupe by idempotency key"),
            P("key_ttl_s", "s", 0.0, "how long keys are kept; 0 = forever"),
            P("limit_tok_s", "tok/s", 0.0, "token rate limit; 0 = no limiter"),
            P("bucket_s", "s", 60.0, "bucket depth in seconds of the limit"),
            P("reserve_tokens", "tok", 2000.0, "tokens reserved at admission"),
            P("settle_delay_s", "s", 10.0, "time from admission to settlement"),
        ),
        {
            "positive": ["tokens_per_event"],
            "fraction": ["drop_prob", "dup_prob", "retry_prob"],
            "count": ["max_retries"],
            "flag": ["idempotency"],
        },
        max_retries=100.0,
    ),
    events=(
        EventSpec("outage", {"duration": None}, "every delivery attempt in the window is lost"),
        EventSpec("replay", {"duration": None}, "events consumed in [at − duration, at) are delivered again"),
    ),
    slo=(
        SloSpec("ledger_error_max_frac", True, "|billed − true| / true"),
        SloSpec("lost_max_frac", True, "events never delivered / events"),
        SloSpec("duplicates_max_frac", True, "duplicates applied / events"),
        SloSpec("over_admission_max_frac", True, "tokens admitted above the limit / allowed tokens"),
        SloSpec("under_admission_max_frac", True, "tokens wrongly refused / tokens an exact limiter admits"),
    ),
)


@dataclass
class Delivery:
    """Fate of each message: first delivery time (inf = lost), retries, times of applied duplicates."""

    first: np.ndarray
    retries: np.ndarray
    dup_applied: list[np.ndarray]
    dup_blocked: int


def loss_probability(drop: float, retry: float, max_retries: int) -> float:
    """P(a message is never delivered): every attempt dropped, each retry taken with probability `retry`."""
    lost = 0.0
    reach = 1.0  # probability of making attempt j
    for j in range(max_retries + 1):
        if j == max_retries:
            lost += reach * drop
        else:
            lost += reach * drop * (1.0 - retry)
            reach *= drop * retry
    return lost


def _in_windows(t: np.ndarray, windows: Sequence[tuple[float, float]]) -> np.ndarray:
    inside = np.zeros(t.shape, dtype=bool)
    for a, b in windows:
        inside |= (t >= a) & (t < b)
    return inside


def deliver(
    sent: np.ndarray, p: dict[str, Any], events: Sequence[dict[str, Any]], rng: np.random.Generator
) -> Delivery:
    """At-least-once delivery of messages sent at `sent`: drops with retries, duplicates, replays, dedupe."""
    n = sent.size
    outages = [(e["at"], e["at"] + e["duration"]) for e in events if e["type"] == "outage"]
    first = np.full(n, math.inf)
    retries = np.zeros(n, dtype=np.int64)
    attempt_t = sent.copy()
    trying = np.ones(n, dtype=bool)
    for j in range(int(p["max_retries"]) + 1):
        dropped = (rng.random(n) < p["drop_prob"]) | _in_windows(attempt_t, outages)
        ok = trying & ~dropped
        first[ok] = attempt_t[ok]
        retry = trying & dropped & (rng.random(n) < p["retry_prob"]) & (j < p["max_retries"])
        retries += retry
        trying = retry
        attempt_t = attempt_t + p["retry_delay_s"]
    delivered = np.isfinite(first)
    copies = []
    dup = delivered & (rng.random(n) < p["dup_prob"])
    dup_t = (
        first + rng.exponential(p["redelivery_delay_s"], n) if p["redelivery_delay_s"] > 0 else first.copy()
    )
    copies.append(np.where(dup, dup_t, math.inf))
    for e in events:
        if e["type"] == "replay":
            replayed = delivered & (first >= e["at"] - e["duration"]) & (first < e["at"])
            copies.append(np.where(replayed, e["at"], math.inf))
    applied, blocked = [], 0
    for copy in copies:
        present = np.isfinite(copy)
        if p["idempotency"]:
            remembered = np.ones(n, dtype=bool) if p["key_ttl_s"] <= 0 else (copy - first) <= p["key_ttl_s"]
            stop = present & remembered
            blocked += int(stop.sum())
            present &= ~stop
        applied.append(np.where(present, copy, math.inf))
    return Delivery(first, retries, applied, blocked)


def rate_limit(
    sent: np.ndarray, tokens: np.ndarray, p: dict[str, Any], settle: Delivery, edges: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Token-bucket admission with reservations; settlements refund reserve − actual when they arrive.

    Returns the admitted mask and the bucket level at each of `edges`.
    """
    cap = p["limit_tok_s"] * p["bucket_s"]
    reserve = p["reserve_tokens"]
    rate = p["limit_tok_s"]
    bucket, last = cap, 0.0
    due: list[tuple[float, float]] = []
    admitted = np.zeros(sent.size, dtype=bool)
    levels = np.zeros(edges.size)
    edge = 0
    first = settle.first.tolist()
    dups = [copy.tolist() for copy in settle.dup_applied]
    refunds = (reserve - tokens).tolist()
    times = sent.tolist()
    for i, t in enumerate(times):
        while edge < edges.size and edges[edge] <= t:
            levels[edge] = min(cap, bucket + (edges[edge] - last) * rate)
            edge += 1
        while due and due[0][0] <= t:
            bucket = min(cap, bucket + heapq.heappop(due)[1])
        bucket = min(cap, bucket + (t - last) * rate)
        last = t
        if bucket >= reserve:
            bucket -= reserve
            admitted[i] = True
            if first[i] != math.inf:
                heapq.heappush(due, (first[i], refunds[i]))
            for copy in dups:
                if copy[i] != math.inf:
                    heapq.heappush(due, (copy[i], refunds[i]))
    levels[edge:] = bucket
    return admitted, levels


def run_events(
    params: dict[str, Any],
    events: list[dict[str, Any]],
    slo: dict[str, float],
    duration_s: float,
    seed: int,
    progress: Callable[[float], None] | None = None,
) -> ScenarioResult:
    """Run one event-stream scenario (see README.md, family `events`)."""
    p = resolve_params(EVENTS, params)
    resolved = resolve_events(EVENTS, events)
    check_slo_keys(EVENTS, slo)
    rng = np.random.default_rng(seed)
    check_arrival_cap(
        expected_arrivals(p["event_rate"], duration_s),
        MAX_EVENTS,
        "events",
        f"event_rate = {p['event_rate']:.6g} event/s",
    )
    sent = poisson_arrivals(p["event_rate"], duration_s, rng)
    n = sent.size
    if n > MAX_EVENTS:
        raise ValueError(f"events: {n:,} events is more than the {MAX_EVENTS:,} one replay may simulate")
    tokens = np.maximum(1.0, np.round(rng.exponential(p["tokens_per_event"], n)))
    value = p["price_per_event"] * tokens / p["tokens_per_event"]
    usage = deliver(sent, p, resolved, rng)
    if progress is not None:
        progress(0.5)
    edges = np.linspace(0.0, duration_s, MAX_POINTS, endpoint=False)
    delivered = np.isfinite(usage.first)
    dup_applied = sum(int(np.isfinite(c).sum()) for c in usage.dup_applied)
    true_usd = float(value.sum())
    billed = float(value[delivered].sum() + sum(value[np.isfinite(c)].sum() for c in usage.dup_applied))
    summary: dict[str, Any] = {
        "events": n,
        "true_usd": true_usd,
        "billed_usd": billed,
        "ledger_error_usd": billed - true_usd,
        "ledger_error_frac": (billed - true_usd) / true_usd if true_usd else 0.0,
        "lost": int((~delivered).sum()),
        "lost_frac": float((~delivered).mean()) if n else 0.0,
        "duplicates_applied": dup_applied,
        "duplicates_frac": dup_applied / n if n else 0.0,
        "duplicates_blocked": usage.dup_blocked,
        "retries": int(usage.retries.sum()),
        "expected_loss_frac": loss_probability(p["drop_prob"], p["retry_prob"], int(p["max_retries"])),
    }
    series = {
        "t": edges.tolist(),
        "true_usd": np.cumsum(np.histogram(sent, np.append(edges, duration_s), weights=value)[0]).tolist(),
        "billed_usd": _billed_curve(usage, value, edges, duration_s).tolist(),
    }
    if p["limit_tok_s"] > 0:
        settle = deliver(sent + p["settle_delay_s"], p, resolved, rng)
        admitted, levels = rate_limit(sent, tokens, p, settle, edges)
        summary.update(_limiter_summary(p, tokens, admitted, settle, duration_s))
        series["bucket_tokens"] = levels.tolist()
        counts = np.histogram(sent[admitted], np.append(edges, duration_s))[0]
        series["admitted_rps"] = (counts / np.diff(np.append(edges, duration_s))).tolist()
    checks = check_slos(EVENTS, slo, _actuals(summary))
    if progress is not None:
        progress(1.0)
    narrative = events_narrative(p, resolved, summary, checks)
    return ScenarioResult("events", all(c["passed"] for c in checks), checks, summary, series, narrative)


def _billed_curve(usage: Delivery, value: np.ndarray, edges: np.ndarray, duration_s: float) -> np.ndarray:
    bins = np.append(edges, duration_s)
    total = np.histogram(
        usage.first[np.isfinite(usage.first)], bins, weights=value[np.isfinite(usage.first)]
    )[0]
    for copy in usage.dup_applied:
        ok = np.isfinite(copy)
        total = total + np.histogram(copy[ok], bins, weights=value[ok])[0]
    return np.cumsum(total)


def _limiter_summary(
    p: dict[str, Any], tokens: np.ndarray, admitted: np.ndarray, settle: Delivery, duration_s: float
) -> dict[str, Any]:
    allowed = p["limit_tok_s"] * (duration_s + p["bucket_s"])
    admitted_tokens = float(tokens[admitted].sum())
    exact = min(float(tokens.sum()), allowed)
    lost_settlements = int((admitted & ~np.isfinite(settle.first)).sum())
    doubles = sum(int((admitted & np.isfinite(c)).sum()) for c in settle.dup_applied)
    return {
        "admitted": int(admitted.sum()),
        "rejected": int((~admitted).sum()),
        "admitted_tokens": admitted_tokens,
        "demand_tokens": float(tokens.sum()),
        "allowed_tokens": allowed,
        "over_admission_frac": max(0.0, admitted_tokens - allowed) / allowed,
        "under_admission_frac": max(0.0, exact - admitted_tokens) / exact if exact else 0.0,
        "lost_settlements": lost_settlements,
        "double_settlements": doubles,
    }


def _actuals(s: dict[str, Any]) -> dict[str, float]:
    return {
        "ledger_error_max_frac": abs(s["ledger_error_frac"]),
        "lost_max_frac": s["lost_frac"],
        "duplicates_max_frac": s["duplicates_frac"],
        "over_admission_max_frac": s.get("over_admission_frac", math.nan),
        "under_admission_max_frac": s.get("under_admission_frac", math.nan),
    }


def events_narrative(
    p: dict[str, Any], events: Sequence[dict[str, Any]], s: dict[str, Any], checks: Sequence[dict[str, Any]]
) -> list[str]:
    """Plain-words account of the ledger and the limiter."""
    keys = "with idempotency keys" if p["idempotency"] else "without idempotency keys"
    lines = [
        f"{num(s['events'])} usage events worth ${num(s['true_usd'])}, sent at-least-once {keys} "
        f"(drop {p['drop_prob']:.3g} per attempt, duplicate {p['dup_prob']:.3g})."
    ]
    for e in events:
        if e["type"] == "outage":
            lines.append(f"At {at(e['at'])} the broker lost every message for {num(e['duration'])} s.")
        else:
            lines.append(f"At {at(e['at'])} the consumer replayed the last {num(e['duration'])} s of events.")
    lines.append(
        f"{num(s['lost'])} events were never delivered after {num(s['retries'])} retries; "
        f"{num(s['duplicates_applied'])} duplicates were billed and {num(s['duplicates_blocked'])} blocked."
    )
    direction = "over-billed" if s["ledger_error_usd"] > 0 else "under-billed"
    lines.append(
        f"The ledger {direction} by ${num(abs(s['ledger_error_usd']))} ({abs(s['ledger_error_frac']):.3%})."
    )
    if "admitted" in s:
        lines.append(
            f"The limiter admitted {num(s['admitted_tokens'])} tokens against "
            f"{num(s['allowed_tokens'])} allowed (over-admission {s['over_admission_frac']:.2%}, "
            f"under-admission {s['under_admission_frac']:.2%}); {num(s['lost_settlements'])} settlements "
            f"were lost and {num(s['double_settlements'])} applied twice."
        )
    lines.extend(slo_sentence(check) for check in checks)
    return lines
