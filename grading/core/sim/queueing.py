"""Exact event-driven FCFS fleet: regions of replicas with batch slots, a KV budget and an admission queue.

Each region has one FCFS admission queue served by `replicas × max_batch` slots; a request starts when a
slot is free and the region's KV cache has room for its reserved tokens. With one region, one slot per
replica and no KV limit this is the textbook M/G/c queue, so the same code is checked against Erlang C and
Pollaczek–Khinchine.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

WAITING, SERVED, REJECTED, TIMED_OUT, FAILED, FALLBACK = 0, 1, 2, 3, 4, 5
INF = math.inf
FAST_WINDOW_S = 20.0

# control-event kinds, in the order they run when they share a time: a sample shows the state just before t
_END, _SAMPLE, _READY, _WARM_REFILL, _REPLICA_LOSS, _REGION_LOSS, _REGION_BACK = 0, 1, 2, 3, 4, 5, 6
_OUTAGE_START, _OUTAGE_END, _ADD, _AUTOSCALE, _PROGRESS = 7, 8, 9, 10, 11
_HEAP_FREE = frozenset(
    {_END, _SAMPLE, _READY, _WARM_REFILL, _ADD, _AUTOSCALE, _PROGRESS}
)  # fast mode may stay


@dataclass
class FleetConfig:
    """Static description of the fleet; see README.md (serving family) for the meaning of each field."""

    replicas: list[int]
    max_batch: int = 1
    kv_capacity: float = INF
    queue_limit: float = INF
    queue_timeout_s: float = 0.0
    tpot_base_s: float = 0.0
    tpot_per_kv_token_s: float = 0.0
    routing: int = 0
    retry_lost: bool = True
    autoscale: bool = False
    min_replicas: list[int] = field(default_factory=list)
    max_replicas: list[int] = field(default_factory=list)
    scale_signal: int = 0
    scale_threshold: float = 0.8
    scale_interval_s: float = 15.0
    cooldown_s: float = 60.0
    scale_down_cooldown_s: float = 600.0
    cold_start_s: float = 70.0
    warm_pool: int = 0
    warm_start_s: float = 5.0
    fallback_rate: float = 0.0
    fallback_ttft_s: float = 1.0
    fallback_tpot_s: float = 0.03


@dataclass
class Requests:
    """Per-request inputs: arrival time, home region, fixed service part, prefill time, output and KV tokens.

    Service time = `fixed_s + out_tokens × TPOT(batch)`; in the generic queue `fixed_s` is the whole service
    time and `out_tokens` is 0. `retry_fixed_s`, when given, replaces `fixed_s` for a retried request (a fresh
    draw, as a new arrival would get).
    """

    arrival: np.ndarray
    home: np.ndarray
    fixed_s: np.ndarray
    prefill_s: np.ndarray
    out_tokens: np.ndarray
    kv_tokens: np.ndarray
    retry_fixed_s: np.ndarray | None = None


@dataclass
class FleetRun:
    """Per-request records, sampled state and a log of notable happenings."""

    status: np.ndarray
    start: np.ndarray
    first_token: np.ndarray
    finish: np.ndarray
    tpot: np.ndarray
    retries: np.ndarray
    samples: dict[str, np.ndarray]
    area: float
    replica_seconds: float
    log: list[tuple[float, str, dict]]


def simulate_fleet(
    cfg: FleetConfig,
    req: Requests,
    events: Sequence[dict],
    duration_s: float,
    rng: np.random.Generator,
    sample_dt: float,
    progress: Callable[[float], None] | None = None,
    progress_dt: float = INF,
    fast: bool = True,
) -> FleetRun:
    """Run the fleet for `duration_s` and return per-request records.

    `events` are resolved serving events (replica_loss, region_loss, provider_outage, add_replicas);
    arrival-rate events are already in `req.arrival`. `progress(fraction)` is called every `progress_dt`
    simulated seconds.

    With `fast`, stretches where nobody would queue (one region, constant TPOT) are advanced with numpy: every
    arrival starts on arrival, which is checked for each request against the slots and KV budget first, so the
    records are the same as the event loop's.
    """
    n = len(req.arrival)
    # array.array state: quick element access in the event loop, and numpy views for the fast path and results
    arr = _doubles(req.arrival)
    enq = _doubles(req.arrival)  # when each request (re)entered its queue: a retry's wait starts again
    home = req.home.tolist()
    fixed = _doubles(req.fixed_s)
    pre = _doubles(req.prefill_s)
    outt = _doubles(req.out_tokens)
    kvt = _doubles(req.kv_tokens)
    refixed = _doubles(req.retry_fixed_s) if req.retry_fixed_s is not None else None
    status = array("b", bytes(n))
    start, first, finish, tpot = (_doubles(np.full(n, math.nan)) for _ in range(4))
    retries = array("q", bytes(8 * n))
    where = array("q", bytes(8 * n))
    status_v = np.frombuffer(status, dtype=np.int8)
    start_v, first_v, finish_v, tpot_v = (
        np.frombuffer(x, dtype=np.float64) for x in (start, first, finish, tpot)
    )
    where_v = np.frombuffer(where, dtype=np.int64)

    n_regions = len(cfg.replicas)
    batch = cfg.max_batch
    kv_rep = cfg.kv_capacity
    run = list(cfg.replicas)
    pending = [0] * n_regions
    alive = [True] * n_regions
    epoch = [0] * n_regions
    busy = [0] * n_regions
    kvu = [0.0] * n_regions
    slots = [0] * n_regions
    kvcap = [0.0] * n_regions
    queues: list[deque[int]] = [deque() for _ in range(n_regions)]
    last_up = [-INF] * n_regions
    last_act = [0.0] * n_regions
    warm_avail = cfg.warm_pool
    timeout = cfg.queue_timeout_s
    qlimit = cfg.queue_limit
    tbase = cfg.tpot_base_s
    tkv = cfg.tpot_per_kv_token_s
    outage = False
    fb_rate = cfg.fallback_rate
    fb_cap = max(1.0, fb_rate)
    fb_tokens = fb_cap
    fb_last = 0.0
    log: list[tuple[float, str, dict]] = []

    def resize(r: int) -> None:
        slots[r] = run[r] * batch
        kvcap[r] = run[r] * kv_rep if math.isfinite(kv_rep) else INF

    for r in range(n_regions):
        resize(r)

    dep: list[tuple[float, int]] = []
    ctl: list[tuple[float, int, int, tuple]] = []
    seq = 0

    def push(t: float, kind: int, payload: tuple = ()) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(ctl, (t, kind, seq, payload))

    push(duration_s, _END)
    push(0.0, _SAMPLE, (0,))
    if progress is not None and math.isfinite(progress_dt):
        push(progress_dt, _PROGRESS)
    if cfg.autoscale:
        push(cfg.scale_interval_s, _AUTOSCALE)
    for event in events:
        kind = {
            "replica_loss": _REPLICA_LOSS,
            "region_loss": _REGION_LOSS,
            "provider_outage": _OUTAGE_START,
            "add_replicas": _ADD,
        }.get(event["type"])
        if kind is not None and event["at"] < duration_s:
            push(event["at"], kind, (event,))

    nsys = 0
    area = 0.0
    tlast = 0.0
    replica_seconds = 0.0
    sample_rows: list[tuple[float, int, int, int, int, float, int]] = []

    def begin(rid: int, r: int, t: float) -> None:
        nonlocal nsys
        busy[r] += 1
        k = kvu[r] + kvt[rid]
        kvu[r] = k
        tp = tbase + tkv * k / run[r]
        f = t + fixed[rid] + outt[rid] * tp
        start[rid] = t
        first[rid] = t + pre[rid]
        finish[rid] = f
        tpot[rid] = tp
        status[rid] = SERVED
        where[rid] = r
        heapq.heappush(dep, (f, rid))

    def purge(r: int, t: float) -> None:
        nonlocal nsys
        q = queues[r]
        limit = t - timeout
        while q and enq[q[0]] < limit:
            rid = q.popleft()
            status[rid] = TIMED_OUT
            finish[rid] = enq[rid] + timeout
            nsys -= 1

    def admit(r: int, t: float) -> None:
        q = queues[r]
        if timeout > 0.0 and q:
            purge(r, t)
        while q and busy[r] < slots[r]:
            rid = q[0]
            if kvu[r] + kvt[rid] > kvcap[r]:
                break
            q.popleft()
            begin(rid, r, t)

    def least_loaded(extra: dict[int, int] | None = None) -> int:
        best, best_load = -1, INF
        for r in range(n_regions):
            if not alive[r]:
                continue
            load = (len(queues[r]) + busy[r] + (extra or {}).get(r, 0)) / max(slots[r], 1)
            if load < best_load:
                best, best_load = r, load
        return best

    def fallback(rid: int, t: float) -> None:
        nonlocal fb_tokens, fb_last
        fb_tokens = min(fb_cap, fb_tokens + (t - fb_last) * fb_rate)
        fb_last = t
        if fb_rate > 0.0 and fb_tokens >= 1.0:
            fb_tokens -= 1.0
            status[rid] = FALLBACK
            start[rid] = t
            first[rid] = t + cfg.fallback_ttft_s
            tpot[rid] = cfg.fallback_tpot_s
            finish[rid] = t + cfg.fallback_ttft_s + outt[rid] * cfg.fallback_tpot_s
        else:
            status[rid] = REJECTED
            finish[rid] = t

    def in_flight(r: int | None, t: float) -> list[int]:
        return sorted(
            rid
            for f, rid in dep
            if status[rid] == SERVED and finish[rid] == f and f > t and (r is None or where[rid] == r)
        )

    def requeue(rids: list[int], r: int, t: float) -> None:
        """Put retried requests back in arrival order; their queue timeout counts from t."""
        for rid in rids:
            enq[rid] = t
        q = queues[r]
        merged = sorted(list(q) + rids, key=arr.__getitem__)
        q.clear()
        q.extend(merged)

    def lose(rids: list[int], t: float, retry: bool) -> None:
        """Take requests out of service/queues: reset them for a retry or mark them failed."""
        nonlocal nsys
        for rid in rids:
            if status[rid] == SERVED:
                r = where[rid]
                busy[r] -= 1
                kvu[r] -= kvt[rid]
                retries[rid] += 1
            if retry:
                status[rid] = WAITING
                start[rid] = first[rid] = finish[rid] = tpot[rid] = math.nan
                if refixed is not None:
                    fixed[rid] = refixed[rid]
            else:
                status[rid] = FAILED
                finish[rid] = t
                nsys -= 1

    def control(t: float, kind: int, payload: tuple) -> None:
        nonlocal warm_avail, outage, replica_seconds, nsys
        if kind == _SAMPLE:
            if timeout > 0.0:
                for r in range(n_regions):
                    if queues[r]:
                        purge(r, t)
            total_slots = sum(slots)
            paid = sum(run) + sum(pending) + warm_avail
            sample_rows.append(
                (
                    t,
                    sum(len(q) for q in queues),
                    sum(busy),
                    sum(run),
                    sum(pending),
                    sum(busy) / total_slots if total_slots else 0.0,
                    paid,
                )
            )
            replica_seconds += paid * min(sample_dt, duration_s - t)
            following = (payload[0] + 1) * sample_dt  # by index, so sample instants are exact multiples
            if following < duration_s:
                push(following, _SAMPLE, (payload[0] + 1,))
        elif kind == _PROGRESS:
            progress(min(1.0, t / duration_s))  # type: ignore[misc]
            push(t + progress_dt, _PROGRESS)
        elif kind == _READY:
            r, count, ep, how = payload
            if alive[r] and ep == epoch[r] and count > 0:
                run[r] += count
                pending[r] -= count
                resize(r)
                log.append((t, "ready", {"region": r, "count": count, "how": how, "running": run[r]}))
                admit(r, t)
        elif kind == _WARM_REFILL:
            warm_avail += payload[0]
        elif kind == _AUTOSCALE:
            if not outage:
                autoscale(t)
            push(t + cfg.scale_interval_s, _AUTOSCALE)
        elif kind == _ADD:
            event = payload[0]
            r = int(event["region"]) % n_regions
            count = int(event["count"])
            pending[r] += count
            push(t + cfg.cold_start_s, _READY, (r, count, epoch[r], "cold"))
            log.append((t, "add", {"region": r, "count": count, "ready_at": t + cfg.cold_start_s}))
        elif kind == _REPLICA_LOSS:
            event = payload[0]
            r = int(event["region"]) % n_regions
            k = min(int(event["count"]), run[r])
            victims: list[int] = []
            if k > 0:
                running = in_flight(r, t)
                m = round(len(running) * k / run[r])
                m = min(len(running), max(m, len(running) - (run[r] - k) * batch))
                if m:
                    chosen = rng.choice(len(running), size=m, replace=False)
                    victims = sorted(running[int(j)] for j in chosen)
                lose(victims, t, cfg.retry_lost)
                run[r] -= k
                resize(r)
                if cfg.retry_lost:
                    requeue(victims, r, t)
                admit(r, t)
            log.append((t, "replica_loss", {"region": r, "count": k, "in_flight": len(victims)}))
        elif kind == _REGION_LOSS:
            event = payload[0]
            r = int(event["region"]) % n_regions
            retry = bool(event["retry"]) if event.get("retry", -1) >= 0 else cfg.retry_lost
            lost_replicas = run[r]
            running = in_flight(r, t)
            queued = list(queues[r])
            queues[r].clear()
            moved = sorted(running + queued, key=arr.__getitem__)
            alive[r] = False
            epoch[r] += 1
            pending[r] = 0
            run[r] = 0
            resize(r)
            lose(running, t, retry)
            busy[r] = 0
            kvu[r] = 0.0
            targets: dict[int, list[int]] = {}
            failed = 0
            if retry:
                extra: dict[int, int] = {}
                for rid in moved:
                    target = least_loaded(extra)
                    if target < 0:
                        status[rid] = FAILED
                        finish[rid] = t
                        nsys -= 1
                        failed += 1
                        continue
                    targets.setdefault(target, []).append(rid)
                    extra[target] = extra.get(target, 0) + 1
                for target, rids in targets.items():
                    requeue(rids, target, t)
                    admit(target, t)
            else:
                for rid in queued:
                    status[rid] = FAILED
                    finish[rid] = t
                    nsys -= 1
                failed = len(moved)
            log.append(
                (
                    t,
                    "region_loss",
                    {
                        "region": r,
                        "replicas": lost_replicas,
                        "in_flight": len(running),
                        "queued": len(queued),
                        "moved": len(moved) - failed,
                        "failed": failed,
                    },
                )
            )
            if event["duration"] > 0:
                push(t + event["duration"], _REGION_BACK, (r, lost_replicas))
        elif kind == _REGION_BACK:
            r, count = payload
            alive[r] = True
            epoch[r] += 1
            run[r] = count
            resize(r)
            log.append((t, "region_back", {"region": r, "replicas": count}))
        elif kind == _OUTAGE_START:
            event = payload[0]
            outage = True
            running = in_flight(None, t)
            queued = sorted((rid for q in queues for rid in q), key=arr.__getitem__)
            for q in queues:
                q.clear()
            lose(running, t, cfg.retry_lost)
            for r in range(n_regions):
                busy[r] = 0
                kvu[r] = 0.0
            moved = sorted(running + queued, key=arr.__getitem__) if cfg.retry_lost else queued
            for rid in moved:
                fallback(rid, t)
                nsys -= 1
            log.append(
                (
                    t,
                    "outage",
                    {"duration": event["duration"], "in_flight": len(running), "queued": len(queued)},
                )
            )
            push(t + event["duration"], _OUTAGE_END)
        elif kind == _OUTAGE_END:
            outage = False
            log.append((t, "outage_end", {}))

    def autoscale(t: float) -> None:
        nonlocal warm_avail
        thr = cfg.scale_threshold
        for r in range(n_regions):
            if not alive[r]:
                continue
            demand = busy[r] + len(queues[r])
            if cfg.scale_signal == 0:
                signal = demand / slots[r] if slots[r] else (INF if demand else 0.0)
            else:
                signal = len(queues[r]) / run[r] if run[r] else (INF if queues[r] else 0.0)
            capacity = run[r] + pending[r]
            if signal > thr and t - last_up[r] >= cfg.cooldown_s and capacity < cfg.max_replicas[r]:
                desired = cfg.max_replicas[r]
                if math.isfinite(signal):
                    desired = min(desired, math.ceil(max(run[r], 1) * signal / thr))
                add = desired - capacity
                if add <= 0:
                    continue
                warm = min(add, warm_avail)
                cold = add - warm
                warm_avail -= warm
                pending[r] += add
                if warm:
                    push(t + cfg.warm_start_s, _READY, (r, warm, epoch[r], "warm"))
                    push(t + cfg.cold_start_s, _WARM_REFILL, (warm,))
                if cold:
                    push(t + cfg.cold_start_s, _READY, (r, cold, epoch[r], "cold"))
                # The cooldown guards against piling cold replicas on top of pending ones; replicas taken
                # from the warm pool are live within warm_start_s, so after a warm-only scale-up the
                # autoscaler may act again as soon as they serve.
                last_up[r] = t if cold else t - cfg.cooldown_s + cfg.warm_start_s
                last_act[r] = t
                log.append(
                    (
                        t,
                        "scale_up",
                        {
                            "region": r,
                            "signal": signal,
                            "warm": warm,
                            "cold": cold,
                            "from": run[r],
                            "ready_warm": t + cfg.warm_start_s,
                            "ready_cold": t + cfg.cold_start_s,
                        },
                    )
                )
            elif (
                signal < thr / 2
                and t - last_act[r] >= cfg.scale_down_cooldown_s
                and pending[r] == 0
                and run[r] > cfg.min_replicas[r]
            ):
                desired = max(cfg.min_replicas[r], math.ceil(run[r] * signal / thr), 1)
                if desired < run[r]:
                    log.append((t, "scale_down", {"region": r, "from": run[r], "to": desired}))
                    run[r] = desired
                    resize(r)
                    last_act[r] = t

    arr_np = req.arrival
    fixed_np = req.fixed_s
    pre_np = req.prefill_s
    out_np = req.out_tokens
    kv_np = req.kv_tokens
    # in fast mode the in-flight requests of region 0 live in these arrays (sorted by finish) instead of `dep`
    live_f: np.ndarray | None = None
    live_rid = np.zeros(0, dtype=np.int64)
    live_kv = np.zeros(0)

    def fast_enter() -> None:
        nonlocal live_f, live_rid, live_kv, dep
        valid = sorted((fin, rid) for fin, rid in dep if status[rid] == SERVED and finish[rid] == fin)
        live_f = np.array([fin for fin, _ in valid], dtype=float)
        live_rid = np.array([rid for _, rid in valid], dtype=np.int64)
        live_kv = kv_np[live_rid]
        dep = []

    def fast_leave() -> None:
        nonlocal live_f, dep
        dep = list(zip(live_f.tolist(), live_rid.tolist(), strict=True))  # sorted, so already a heap
        live_f = None

    def fast_advance(t: float) -> None:
        """Let the in-flight requests that finish by t leave (fast mode)."""
        nonlocal area, tlast, nsys, live_f, live_rid, live_kv
        area += float(np.maximum(np.minimum(live_f, t) - tlast, 0.0).sum())
        k = int(np.searchsorted(live_f, t, side="right"))
        live_f, live_rid, live_kv = live_f[k:], live_rid[k:], live_kv[k:]
        busy[0] = int(live_f.size)
        kvu[0] = float(live_kv.sum())
        nsys = busy[0]
        tlast = t

    def window_end(t: float) -> float:
        """End of the next fast window: the next control event other than a sample, ≤ FAST_WINDOW_S on."""
        following = min((entry[0] for entry in ctl if entry[1] != _SAMPLE), default=INF)
        return min(following, t + FAST_WINDOW_S)

    def fast_forward(i0: int, t_end: float) -> tuple[int, bool]:
        """Start arrivals i0.. (before t_end) on arrival while none would wait; (how many, stopped early)."""
        nonlocal area, tlast, nsys, live_f, live_rid, live_kv, replica_seconds
        i1 = int(np.searchsorted(arr_np, t_end, side="left"))
        if i1 <= i0:
            return 0, False
        a = arr_np[i0:i1]
        f = a + fixed_np[i0:i1] + out_np[i0:i1] * tbase
        f0 = live_f
        f_sorted = np.sort(f)
        done_before = np.searchsorted(f_sorted, a, side="right")
        in_use = f0.size - np.searchsorted(f0, a, side="right") + np.arange(a.size) - done_before
        ok = in_use < slots[0]
        if math.isfinite(kvcap[0]):
            k = kv_np[i0:i1]
            kv0 = np.concatenate(([0.0], np.cumsum(live_kv)))
            held0 = kv0[-1] - kv0[np.searchsorted(f0, a, side="right")]
            by_finish = np.concatenate(([0.0], np.cumsum(k[np.argsort(f, kind="stable")])))
            held = held0 + np.cumsum(k) - k - by_finish[done_before]
            ok &= held + k <= kvcap[0]
        bad = np.flatnonzero(~ok)
        m = int(bad[0]) if bad.size else a.size
        if m == 0:
            return 0, True
        t_stop = float(a[m]) if bad.size else t_end
        if bad.size:
            a, f = a[:m], f[:m]
            f_sorted = np.sort(f)
        j1 = i0 + m
        start_v[i0:j1] = a
        first_v[i0:j1] = a + pre_np[i0:j1]
        finish_v[i0:j1] = f
        tpot_v[i0:j1] = tbase
        status_v[i0:j1] = SERVED
        where_v[i0:j1] = 0
        pending_sample = next((entry for entry in ctl if entry[1] == _SAMPLE), None)
        if pending_sample is not None and pending_sample[0] < t_stop:
            ctl.remove(pending_sample)
            heapq.heapify(ctl)
            k0 = k1 = pending_sample[3][0]
            while k1 * sample_dt < min(t_stop, duration_s):
                k1 += 1
            times = np.arange(k0, k1) * sample_dt
            busy_at = (
                f0.size
                - np.searchsorted(f0, times, side="right")
                + np.searchsorted(a, times, side="left")
                - np.searchsorted(f_sorted, times, side="right")
            )
            paid = run[0] + pending[0] + warm_avail
            for t_s, b_s in zip(times.tolist(), busy_at.tolist(), strict=True):
                sample_rows.append(
                    (t_s, 0, b_s, run[0], pending[0], b_s / slots[0] if slots[0] else 0.0, paid)
                )
                replica_seconds += paid * min(sample_dt, duration_s - t_s)
            if k1 * sample_dt < duration_s:
                push(k1 * sample_dt, _SAMPLE, (k1,))
        area += float(np.maximum(np.minimum(f0, t_stop) - tlast, 0.0).sum())
        area += float((np.minimum(f, t_stop) - a).sum())
        keep0 = f0 > t_stop
        keep = f > t_stop
        merged_f = np.concatenate((f0[keep0], f[keep]))
        merged_rid = np.concatenate((live_rid[keep0], np.arange(i0, j1, dtype=np.int64)[keep]))
        merged_kv = np.concatenate((live_kv[keep0], kv_np[i0:j1][keep]))
        order = np.lexsort((merged_rid, merged_f))
        live_f, live_rid, live_kv = merged_f[order], merged_rid[order], merged_kv[order]
        busy[0] = int(live_f.size)
        kvu[0] = float(live_kv.sum())
        nsys = busy[0]
        tlast = t_stop
        return m, bool(bad.size)

    heappush, heappop = heapq.heappush, heapq.heappop
    routing = cfg.routing
    single = n_regions == 1
    fast_ready = fast and single and tkv == 0.0
    fast_blocked_until = -INF
    i = 0
    while True:
        if live_f is not None:
            ta = arr[i] if i < n else INF
            tc = ctl[0][0]
            if tc <= ta:
                if ctl[0][1] in _HEAP_FREE:
                    fast_advance(tc)
                    t, kind, _, payload = heappop(ctl)
                    if kind == _END:
                        break
                    control(t, kind, payload)
                    continue
                fast_leave()
            else:
                t_end = window_end(ta)
                consumed, stopped = fast_forward(i, t_end)
                i += consumed
                if not stopped:
                    continue
                fast_blocked_until = t_end
                fast_leave()
        ta = arr[i] if i < n else INF
        td = dep[0][0] if dep else INF
        tc = ctl[0][0]
        if td <= ta and td <= tc:
            f, rid = heappop(dep)
            if status[rid] != SERVED or finish[rid] != f:
                continue  # a request lost to a failure: its old departure is void
            area += nsys * (f - tlast)
            tlast = f
            nsys -= 1
            r = where[rid]
            busy[r] -= 1
            kvu[r] -= kvt[rid]
            if queues[r]:
                admit(r, f)
        elif tc <= ta:
            t, kind, _, payload = heappop(ctl)
            area += nsys * (t - tlast)
            tlast = t
            if kind == _END:
                break
            control(t, kind, payload)
        else:
            if fast_ready and ta >= fast_blocked_until and not outage and not queues[0] and alive[0]:
                fast_enter()
                continue
            rid = i
            i += 1
            area += nsys * (ta - tlast)
            tlast = ta
            if outage:
                fallback(rid, ta)
                continue
            r = 0 if single else home[rid]
            if not single and (routing == 1 or not alive[r]):
                r = least_loaded()
                if r < 0:
                    status[rid] = FAILED
                    finish[rid] = ta
                    continue
            q = queues[r]
            if q and timeout > 0.0:
                purge(r, ta)
            if not q and busy[r] < slots[r] and kvu[r] + kvt[rid] <= kvcap[r]:
                nsys += 1
                busy[r] += 1
                k = kvu[r] + kvt[rid]
                kvu[r] = k
                tp = tbase + tkv * k / run[r]
                f = ta + fixed[rid] + outt[rid] * tp
                start[rid] = ta
                first[rid] = ta + pre[rid]
                finish[rid] = f
                tpot[rid] = tp
                status[rid] = SERVED
                where[rid] = r
                heappush(dep, (f, rid))
            elif len(q) >= qlimit:
                status[rid] = REJECTED
                finish[rid] = ta
            else:
                nsys += 1
                q.append(rid)

    rows = np.array(sample_rows, dtype=float).reshape(-1, 7)
    samples = {
        "t": rows[:, 0],
        "queue": rows[:, 1],
        "in_service": rows[:, 2],
        "replicas_running": rows[:, 3],
        "replicas_starting": rows[:, 4],
        "gpu_busy_frac": rows[:, 5],
        "replicas_paid": rows[:, 6],
    }
    return FleetRun(
        status=status_v,
        start=start_v,
        first_token=first_v,
        finish=finish_v,
        tpot=tpot_v,
        retries=np.frombuffer(retries, dtype=np.int64),
        samples=samples,
        area=area,
        replica_seconds=replica_seconds,
        log=log,
    )


def _doubles(values: np.ndarray) -> array:
    """A float64 array.array copy of `values`."""
    return array("d", np.ascontiguousarray(values, dtype=np.float64).tobytes())
