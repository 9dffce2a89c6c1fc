"""Every SLO key in words, for candidates: "95th-percentile time to first token ≤ 2 s", not `ttft_p95_s`."""

from __future__ import annotations

import math
from typing import Any

from grading.core.sim.narrative import num

NOT_SERVED = "share of requests not served (rejected, timed out in the queue, lost, or waiting at the end)"

# key -> (what it measures, how its numbers read: "s", "share", "usd", "count", "hours")
PHRASES: dict[str, tuple[str, str]] = {
    "ttft_p50_s": ("median time to first token", "s"),
    "ttft_p95_s": ("95th-percentile time to first token", "s"),
    "ttft_p99_s": ("99th-percentile time to first token", "s"),
    "tpot_p95_s": ("95th-percentile time per output token", "s"),
    "tpot_p99_s": ("99th-percentile time per output token", "s"),
    "e2e_p95_s": ("95th-percentile end-to-end latency", "s"),
    "e2e_p99_s": ("99th-percentile end-to-end latency", "s"),
    "rejected_max_frac": (NOT_SERVED, "share"),
    "timed_out_max_frac": (NOT_SERVED, "share"),
    "failed_max_frac": (NOT_SERVED, "share"),
    "dropped_max_frac": (NOT_SERVED, "share"),
    "queue_max": ("longest admission queue, in requests", "count"),
    "cost_max_usd": ("cost of the run", "usd"),
    "gpu_busy_min_frac": ("mean share of batch slots busy", "share"),
    "wait_mean_max_s": ("mean wait in the queue", "s"),
    "goodput_min": ("goodput (useful work over wall time)", "share"),
    "ckpt_write_max_s": ("time to write one checkpoint", "s"),
    "finish_max_s": ("mean time for the job to finish", "s"),
    "lost_gpu_hours_max": ("GPU-hours of work recomputed after failures", "hours"),
    "completion_max_s": ("time until every item is through", "s"),
    "backlog_max": ("most items waiting in any buffer", "count"),
    "ledger_error_max_frac": ("billing error (billed against true usage)", "share"),
    "lost_max_frac": ("share of usage events never delivered", "share"),
    "duplicates_max_frac": ("share of usage events applied twice", "share"),
    "over_admission_max_frac": ("tokens admitted above the limit, over the tokens allowed", "share"),
    "under_admission_max_frac": ("tokens wrongly refused, over what an exact limiter admits", "share"),
}


def is_upper(key: str) -> bool:
    """Keys with `_min` in them are lower limits; every other key is an upper limit."""
    return not key.endswith("_min") and "_min_" not in key


def amount(value: float | None, how: str) -> str:
    """A value in words: 2 s, 350 ms, 1.2%, $38.4, 600 requests."""
    if value is None or not math.isfinite(value):
        return "undefined"
    if how == "s":
        if value != 0 and abs(value) < 1:
            return f"{num(value * 1000)} ms"
        if abs(value) >= 3600 * 2:
            return f"{num(value / 3600)} h"
        return f"{num(value)} s"
    if how == "share":
        return f"{num(value * 100)}%"
    if how == "usd":
        return f"${num(value)}"
    if how == "hours":
        return f"{num(value)} GPU-hours"
    return num(value)


def slo_words(key: str, target: float) -> str:
    """The SLO in words: "95th-percentile time to first token ≤ 2 s"."""
    phrase, how = PHRASES.get(key, (key, ""))
    return f"{phrase} {'≤' if is_upper(key) else '≥'} {amount(target, how)}"


def actual_words(key: str, actual: float | None) -> str:
    """A check's actual value in the SLO's own units."""
    return amount(actual, PHRASES.get(key, (key, ""))[1])


def slo_sentence(check: dict[str, Any]) -> str:
    """'SLO 95th-percentile time to first token ≤ 2 s: actual 8.41 s, missed.'"""
    verdict = "met" if check["passed"] else "missed"
    actual = actual_words(check["key"], check["actual"])
    why = f" ({check['reason']})" if check.get("reason") else ""
    return f"SLO {slo_words(check['key'], check['target'])}: actual {actual}{why}, {verdict}."
