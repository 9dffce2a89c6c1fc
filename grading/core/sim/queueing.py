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
from typing import Any

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
    # the per-step engine (engine.py): a step's token budget, chunked or serial prefill, prefill throughput,
    # and what a preempted request's KV costs to swap out and in (recompute when `preempt_swap` is false)
    chunked_prefill: bool = True
    token_budget: float = 2048.0
    prefill_tok_s: float = INF
    preempt_swap: bool = False
    swap_s_per_token: float = 0.0
    # the time a step spends on the interconnect between a replica's GPUs (tensor-parallel all-reduces over
    # a link slower than NVLink), after its memory and compute: a fixed latency, and a share per token carried
    comm_s_per_step: float = 0.0
    comm_s_per_token: float = 0.0
    # attention's compute a (query, context) token pair, the fixed CPU time of a step, and the KV allocator:
    # blocks of kv_block_tokens, and the share of blocks an admission leaves free
    attn_s_per_pair: float = 0.0
    step_overhead_s: float = 0.0
    kv_block_tokens: int = 1
    kv_watermark_frac: float = 0.0


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
    prompt_tokens: np.ndarray | None = None


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
    log: list[tuple[float, str, dict[str, Any]]]
    preempted: np.ndarray | None = None  # per request, by the engine
    preempt_times: np.ndarray | None = None
    swaps: int = 0
    engine_steps: int = 0


def simulate_fleet(
    cfg: FleetConfig,
    req: Requests,
    events: Sequence[dict[str, Any]],
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

    The parts: `Fleet` holds the state and its operations (start, queue, time out, lose, route); `Controls`
    applies the control events (samples, failures, outages, replicas ready); `Autoscaler` decides scale-ups
    and downs; `FastPath` advances quiet stretches with numpy; `run_event_loop` interleaves arrivals,
    departures and control events.
    """
    fleet = Fleet(cfg, req, duration_s, sample_dt)
    controls = Controls(fleet, rng, progress, progress_dt)
    controls.schedule(events)
    fast_path = FastPath(fleet) if fast and FastPath.pays(fleet) else None
    run_event_loop(fleet, controls, fast_path)
    return fleet.result()


class Fleet:
    """The fleet's state: per-request records (array.array, with numpy views), per-region replicas, slots, KV
    in use and FCFS queues, the heaps of departures and control events, and the running integrals."""

    def __init__(self, cfg: FleetConfig, req: Requests, duration_s: float, sample_dt: float) -> None:
        n = len(req.arrival)
        self.cfg, self.req, self.n = cfg, req, n
        self.duration_s, self.sample_dt = duration_s, sample_dt
        self.records(req)

        self.n_regions = len(cfg.replicas)
        self.batch = cfg.max_batch
        self.run = list(cfg.replicas)
        self.pending = [0] * self.n_regions
        self.alive = [True] * self.n_regions
        self.epoch = [0] * self.n_regions
        self.busy = [0] * self.n_regions
        self.kvu = [0.0] * self.n_regions
        self.slots = [0] * self.n_regions
        self.kvcap = [0.0] * self.n_regions
        self.queues: list[deque[int]] = [deque() for _ in range(self.n_regions)]
        self.warm_avail = cfg.warm_pool
        self.timeout = cfg.queue_timeout_s
        self.tbase = cfg.tpot_base_s
        self.tkv = cfg.tpot_per_kv_token_s
        self.outage = False
        self.fb_tokens = max(1.0, cfg.fallback_rate)
        self.fb_last = 0.0
        self.log: list[tuple[float, str, dict[str, Any]]] = []
        for r in range(self.n_regions):
            self.resize(r)

        self.dep: list[tuple[float, int]] = []
        self.ctl: list[tuple[float, int, int, tuple[Any, ...]]] = []
        self.seq = 0
        self.nsys = 0  # requests queued or in service
        self.area = 0.0  # ∫ nsys dt
        self.tlast = 0.0
        self.replica_seconds = 0.0
        self.sample_rows: list[tuple[float, int, int, int, int, float, int]] = []

    def records(self, req: Requests) -> None:
        """The per-request inputs and records the loops read and write. Here array.array state: quick element
        access in the event loop, numpy views for the fast path and results (a fleet on arrays of its own,
        `engine_compiled`'s, sets its own: these copies of millions of requests would go unused)."""
        n = self.n
        self.arr = _doubles(req.arrival)
        self.enq = _doubles(req.arrival)  # when each request (re)entered its queue: a retry's wait restarts
        self.home = req.home.tolist()
        self.fixed = _doubles(req.fixed_s)
        self.pre = _doubles(req.prefill_s)
        self.outt = _doubles(req.out_tokens)
        self.kvt = _doubles(req.kv_tokens)
        self.refixed = _doubles(req.retry_fixed_s) if req.retry_fixed_s is not None else None
        self.status = array("b", bytes(n))
        self.start, self.first, self.finish, self.tpot = (_doubles(np.full(n, math.nan)) for _ in range(4))
        self.retries = array("q", bytes(8 * n))
        self.where = array("q", bytes(8 * n))

    def resize(self, r: int) -> None:
        self.slots[r] = self.run[r] * self.batch
        kv = self.cfg.kv_capacity
        self.kvcap[r] = self.run[r] * kv if math.isfinite(kv) else INF

    def push(self, t: float, kind: int, payload: tuple[Any, ...] = ()) -> None:
        """Schedule a control event; `seq` keeps events of the same time and kind in the order pushed."""
        self.seq += 1
        heapq.heappush(self.ctl, (t, kind, self.seq, payload))

    def purge(self, r: int, t: float) -> None:
        """Time out the requests at the front of region r's queue that have waited longer than the timeout."""
        q, enq, timeout = self.queues[r], self.enq, self.timeout
        limit = t - timeout
        while q and enq[q[0]] < limit:
            rid = q.popleft()
            self.status[rid] = TIMED_OUT
            self.finish[rid] = enq[rid] + timeout
            self.nsys -= 1

    def admit(self, r: int, t: float) -> None:
        """Start queued requests in FCFS order while a slot and the KV budget allow; a started request holds
        its slot and KV until it finishes (written inline: this runs for every request that waited)."""
        q = self.queues[r]
        if self.timeout > 0.0 and q:
            self.purge(r, t)
        busy, slots, kvu, kvcap, kvt = self.busy, self.slots, self.kvu, self.kvcap, self.kvt
        fixed, outt, pre, dep = self.fixed, self.outt, self.pre, self.dep
        tbase, tkv, replicas = self.tbase, self.tkv, self.run[r]
        start, first, finish, tpot, status, where = (
            self.start,
            self.first,
            self.finish,
            self.tpot,
            self.status,
            self.where,
        )
        while q and busy[r] < slots[r]:
            rid = q[0]
            k = kvu[r] + kvt[rid]
            if k > kvcap[r]:
                break
            q.popleft()
            busy[r] += 1
            kvu[r] = k
            tp = tbase + tkv * k / replicas
            f = t + fixed[rid] + outt[rid] * tp
            start[rid] = t
            first[rid] = t + pre[rid]
            finish[rid] = f
            tpot[rid] = tp
            status[rid] = SERVED
            where[rid] = r
            heapq.heappush(dep, (f, rid))

    def least_loaded(self, extra: dict[int, int] | None = None) -> int:
        """The live region with the lowest (queued + busy) / slots, counting `extra` pending moves; -1 if
        none is alive."""
        best, best_load = -1, INF
        for r in range(self.n_regions):
            if not self.alive[r]:
                continue
            load = (len(self.queues[r]) + self.busy[r] + (extra or {}).get(r, 0)) / max(self.slots[r], 1)
            if load < best_load:
                best, best_load = r, load
        return best

    def fallback(self, rid: int, t: float) -> None:
        """Send a request to the fallback provider (a token bucket of `fallback_rate`), else reject it."""
        cfg = self.cfg
        self.fb_tokens = min(
            max(1.0, cfg.fallback_rate), self.fb_tokens + (t - self.fb_last) * cfg.fallback_rate
        )
        self.fb_last = t
        if cfg.fallback_rate > 0.0 and self.fb_tokens >= 1.0:
            self.fb_tokens -= 1.0
            self.status[rid] = FALLBACK
            self.start[rid] = t
            self.first[rid] = t + cfg.fallback_ttft_s
            self.tpot[rid] = cfg.fallback_tpot_s
            self.finish[rid] = t + cfg.fallback_ttft_s + self.outt[rid] * cfg.fallback_tpot_s
        else:
            self.status[rid] = REJECTED
            self.finish[rid] = t

    def fail(self, rid: int, t: float) -> None:
        self.status[rid] = FAILED
        self.finish[rid] = t

    def in_flight(self, r: int | None, t: float) -> list[int]:
        """Requests in service (on region r, or anywhere) at t, by id."""
        status, finish, where = self.status, self.finish, self.where
        return sorted(
            rid
            for f, rid in self.dep
            if status[rid] == SERVED and finish[rid] == f and f > t and (r is None or where[rid] == r)
        )

    def requeue(self, rids: list[int], r: int, t: float) -> None:
        """Put retried requests back in arrival order; their queue timeout counts from t."""
        for rid in rids:
            self.enq[rid] = t
        q = self.queues[r]
        merged = sorted(list(q) + rids, key=self.arr.__getitem__)
        q.clear()
        q.extend(merged)

    def lose(self, rids: list[int], t: float, retry: bool) -> None:
        """Take requests out of service/queues: reset them for a retry or mark them failed."""
        for rid in rids:
            if self.status[rid] == SERVED:
                r = self.where[rid]
                self.busy[r] -= 1
                self.kvu[r] -= self.kvt[rid]
                self.retries[rid] += 1
            if retry:
                self.status[rid] = WAITING
                self.start[rid] = self.first[rid] = self.finish[rid] = self.tpot[rid] = math.nan
                if self.refixed is not None:
                    self.fixed[rid] = self.refixed[rid]
            else:
                self.fail(rid, t)
                self.nsys -= 1

    def record_sample(self, t: float, queued: int, busy: int) -> None:
        """One row of the sampled state at t; the paid replicas are billed until the next sample."""
        total_slots = sum(self.slots)
        paid = sum(self.run) + sum(self.pending) + self.warm_avail
        occupancy = busy / total_slots if total_slots else 0.0
        self.sample_rows.append((t, queued, busy, sum(self.run), sum(self.pending), occupancy, paid))
        self.replica_seconds += paid * min(self.sample_dt, self.duration_s - t)

    def samples(self) -> dict[str, np.ndarray]:
        rows = np.array(self.sample_rows, dtype=float).reshape(-1, 7)
        names = ("t", "queue", "in_service", "replicas_running", "replicas_starting", "gpu_busy_frac")
        samples = {name: rows[:, k] for k, name in enumerate(names)}
        samples["replicas_paid"] = rows[:, 6]
        return samples

    def result(self) -> FleetRun:
        samples = self.samples()
        return FleetRun(
            status=np.frombuffer(self.status, dtype=np.int8),
            start=np.frombuffer(self.start, dtype=np.float64),
            first_token=np.frombuffer(self.first, dtype=np.float64),
            finish=np.frombuffer(self.finish, dtype=np.float64),
            tpot=np.frombuffer(self.tpot, dtype=np.float64),
            retries=np.frombuffer(self.retries, dtype=np.int64),
            samples=samples,
            area=self.area,
            replica_seconds=self.replica_seconds,
            log=self.log,
        )


_HANDLERS = {  # each control event's handler, a method of Controls
    _SAMPLE: "sample",
    _PROGRESS: "report_progress",
    _READY: "ready",
    _WARM_REFILL: "warm_refill",
    _AUTOSCALE: "autoscale_tick",
    _ADD: "add_replicas",
    _REPLICA_LOSS: "replica_loss",
    _REGION_LOSS: "region_loss",
    _REGION_BACK: "region_back",
    _OUTAGE_START: "outage_start",
    _OUTAGE_END: "outage_end",
}


class Controls:
    """The control events: samples, progress, replicas ready, failures, outages, manual adds and the
    autoscaler's ticks, each applied to the fleet by its own handler."""

    _KIND_OF_EVENT = {
        "replica_loss": _REPLICA_LOSS,
        "region_loss": _REGION_LOSS,
        "provider_outage": _OUTAGE_START,
        "add_replicas": _ADD,
    }

    def __init__(
        self,
        fleet: Fleet,
        rng: np.random.Generator,
        progress: Callable[[float], None] | None,
        progress_dt: float,
    ) -> None:
        self.fleet, self.rng = fleet, rng
        self.progress, self.progress_dt = progress, progress_dt
        self.autoscaler = Autoscaler(fleet) if fleet.cfg.autoscale else None

    def schedule(self, events: Sequence[dict[str, Any]]) -> None:
        fleet = self.fleet
        fleet.push(fleet.duration_s, _END)
        fleet.push(0.0, _SAMPLE, (0,))
        if self.progress is not None and math.isfinite(self.progress_dt):
            fleet.push(self.progress_dt, _PROGRESS)
        if self.autoscaler is not None:
            fleet.push(fleet.cfg.scale_interval_s, _AUTOSCALE)
        for event in events:
            kind = self._KIND_OF_EVENT.get(event["type"])
            if kind is not None and event["at"] < fleet.duration_s:
                fleet.push(event["at"], kind, (event,))

    def handle(self, t: float, kind: int, payload: tuple[Any, ...]) -> None:
        # by name, not a dict of bound methods: that would be a cycle through self, keeping the fleet (a run's
        # rows) alive until the cyclic garbage collector ran
        getattr(self, _HANDLERS[kind])(t, payload)

    def sample(self, t: float, payload: tuple[Any, ...]) -> None:
        fleet = self.fleet
        if fleet.timeout > 0.0:
            for r in range(fleet.n_regions):
                if fleet.queues[r]:
                    fleet.purge(r, t)
        fleet.record_sample(t, sum(len(q) for q in fleet.queues), sum(fleet.busy))
        following = (payload[0] + 1) * fleet.sample_dt  # by index, so sample instants are exact multiples
        if following < fleet.duration_s:
            fleet.push(following, _SAMPLE, (payload[0] + 1,))

    def report_progress(self, t: float, payload: tuple[Any, ...]) -> None:
        assert self.progress is not None  # `schedule` pushes _PROGRESS only with a progress callback
        self.progress(min(1.0, t / self.fleet.duration_s))
        self.fleet.push(t + self.progress_dt, _PROGRESS)

    def ready(self, t: float, payload: tuple[Any, ...]) -> None:
        fleet = self.fleet
        r, count, ep, how = payload
        if fleet.alive[r] and ep == fleet.epoch[r] and count > 0:
            fleet.run[r] += count
            fleet.pending[r] -= count
            fleet.resize(r)
            fleet.log.append((t, "ready", {"region": r, "count": count, "how": how, "running": fleet.run[r]}))
            fleet.admit(r, t)

    def warm_refill(self, t: float, payload: tuple[Any, ...]) -> None:
        self.fleet.warm_avail += payload[0]

    def autoscale_tick(self, t: float, payload: tuple[Any, ...]) -> None:
        if not self.fleet.outage:
            assert self.autoscaler is not None  # `schedule` pushes _AUTOSCALE only with an autoscaler
            self.autoscaler.look(t)
        self.fleet.push(t + self.fleet.cfg.scale_interval_s, _AUTOSCALE)

    def add_replicas(self, t: float, payload: tuple[Any, ...]) -> None:
        fleet, event = self.fleet, payload[0]
        r = int(event["region"]) % fleet.n_regions
        count = int(event["count"])
        ready_at = t + fleet.cfg.cold_start_s
        fleet.pending[r] += count
        fleet.push(ready_at, _READY, (r, count, fleet.epoch[r], "cold"))
        fleet.log.append((t, "add", {"region": r, "count": count, "ready_at": ready_at}))

    def replica_loss(self, t: float, payload: tuple[Any, ...]) -> None:
        """`count` replicas die; their share of the in-flight requests (chosen at random) is retried or
        lost."""
        fleet, event = self.fleet, payload[0]
        r = int(event["region"]) % fleet.n_regions
        k = min(int(event["count"]), fleet.run[r])
        victims: list[int] = []
        if k > 0:
            running = fleet.in_flight(r, t)
            m = round(len(running) * k / fleet.run[r])
            m = min(len(running), max(m, len(running) - (fleet.run[r] - k) * fleet.batch))
            if m:
                chosen = self.rng.choice(len(running), size=m, replace=False)
                victims = sorted(running[int(j)] for j in chosen)
            fleet.lose(victims, t, fleet.cfg.retry_lost)
            fleet.run[r] -= k
            fleet.resize(r)
            if fleet.cfg.retry_lost:
                fleet.requeue(victims, r, t)
            fleet.admit(r, t)
        fleet.log.append((t, "replica_loss", {"region": r, "count": k, "in_flight": len(victims)}))

    def region_loss(self, t: float, payload: tuple[Any, ...]) -> None:
        """The region goes: its queued and in-flight requests move to the least-loaded live regions (or
        fail)."""
        fleet, event = self.fleet, payload[0]
        r = int(event["region"]) % fleet.n_regions
        retry = bool(event["retry"]) if event.get("retry", -1) >= 0 else fleet.cfg.retry_lost
        lost_replicas = fleet.run[r]
        running = fleet.in_flight(r, t)
        queued = list(fleet.queues[r])
        fleet.queues[r].clear()
        moved = sorted(running + queued, key=fleet.arr.__getitem__)
        fleet.alive[r] = False
        fleet.epoch[r] += 1
        fleet.pending[r] = 0
        fleet.run[r] = 0
        fleet.resize(r)
        fleet.lose(running, t, retry)
        fleet.busy[r] = 0
        fleet.kvu[r] = 0.0
        failed = 0
        if retry:
            targets: dict[int, list[int]] = {}
            extra: dict[int, int] = {}
            for rid in moved:
                target = fleet.least_loaded(extra)
                if target < 0:
                    fleet.fail(rid, t)
                    fleet.nsys -= 1
                    failed += 1
                    continue
                targets.setdefault(target, []).append(rid)
                extra[target] = extra.get(target, 0) + 1
            for target, rids in targets.items():
                fleet.requeue(rids, target, t)
                fleet.admit(target, t)
        else:
            for rid in queued:
                fleet.fail(rid, t)
                fleet.nsys -= 1
            failed = len(moved)
        info = {
            "region": r,
            "replicas": lost_replicas,
            "in_flight": len(running),
            "queued": len(queued),
            "moved": len(moved) - failed,
            "failed": failed,
        }
        fleet.log.append((t, "region_loss", info))
        if event["duration"] > 0:
            fleet.push(t + event["duration"], _REGION_BACK, (r, lost_replicas))

    def region_back(self, t: float, payload: tuple[Any, ...]) -> None:
        fleet = self.fleet
        r, count = payload
        fleet.alive[r] = True
        fleet.epoch[r] += 1
        fleet.run[r] = count
        fleet.resize(r)
        fleet.log.append((t, "region_back", {"region": r, "replicas": count}))

    def outage_start(self, t: float, payload: tuple[Any, ...]) -> None:
        """The whole fleet is unavailable: in-flight (if retried) and queued requests go to the fallback."""
        fleet, event = self.fleet, payload[0]
        fleet.outage = True
        running = fleet.in_flight(None, t)
        queued = sorted((rid for q in fleet.queues for rid in q), key=fleet.arr.__getitem__)
        for q in fleet.queues:
            q.clear()
        fleet.lose(running, t, fleet.cfg.retry_lost)
        for r in range(fleet.n_regions):
            fleet.busy[r] = 0
            fleet.kvu[r] = 0.0
        moved = sorted(running + queued, key=fleet.arr.__getitem__) if fleet.cfg.retry_lost else queued
        for rid in moved:
            fleet.fallback(rid, t)
            fleet.nsys -= 1
        info = {"duration": event["duration"], "in_flight": len(running), "queued": len(queued)}
        fleet.log.append((t, "outage", info))
        fleet.push(t + event["duration"], _OUTAGE_END)

    def outage_end(self, t: float, payload: tuple[Any, ...]) -> None:
        self.fleet.outage = False
        self.fleet.log.append((t, "outage_end", {}))


class Autoscaler:
    """Each tick, per live region: scale up to ceil(n · signal / threshold) (warm pool first, then cold) when
    the signal is over the threshold and the cooldown has passed; scale down below half the threshold."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.last_up = [-INF] * fleet.n_regions
        self.last_act = [0.0] * fleet.n_regions

    def signal(self, r: int) -> float:
        fleet = self.fleet
        queued = len(fleet.queues[r])
        if fleet.cfg.scale_signal == 0:
            demand = fleet.busy[r] + queued
            return demand / fleet.slots[r] if fleet.slots[r] else (INF if demand else 0.0)
        return queued / fleet.run[r] if fleet.run[r] else (INF if queued else 0.0)

    def look(self, t: float) -> None:
        fleet, cfg = self.fleet, self.fleet.cfg
        for r in range(fleet.n_regions):
            if not fleet.alive[r]:
                continue
            signal = self.signal(r)
            capacity = fleet.run[r] + fleet.pending[r]
            if (
                signal > cfg.scale_threshold
                and t - self.last_up[r] >= cfg.cooldown_s
                and capacity < cfg.max_replicas[r]
            ):
                self.scale_up(r, t, signal, capacity)
            elif (
                signal < cfg.scale_threshold / 2
                and t - self.last_act[r] >= cfg.scale_down_cooldown_s
                and fleet.pending[r] == 0
                and fleet.run[r] > cfg.min_replicas[r]
            ):
                self.scale_down(r, t, signal)

    def scale_up(self, r: int, t: float, signal: float, capacity: int) -> None:
        fleet, cfg = self.fleet, self.fleet.cfg
        desired = cfg.max_replicas[r]
        if math.isfinite(signal):
            desired = min(desired, math.ceil(max(fleet.run[r], 1) * signal / cfg.scale_threshold))
        add = desired - capacity
        if add <= 0:
            return
        warm = min(add, fleet.warm_avail)
        cold = add - warm
        fleet.warm_avail -= warm
        fleet.pending[r] += add
        if warm:
            fleet.push(t + cfg.warm_start_s, _READY, (r, warm, fleet.epoch[r], "warm"))
            fleet.push(t + cfg.cold_start_s, _WARM_REFILL, (warm,))
        if cold:
            fleet.push(t + cfg.cold_start_s, _READY, (r, cold, fleet.epoch[r], "cold"))
        # The cooldown guards against piling cold replicas on top of pending ones; replicas taken from the
        # warm pool are live within warm_start_s, so after a warm-only scale-up the autoscaler may act again
        # as soon as they serve.
        self.last_up[r] = t if cold else t - cfg.cooldown_s + cfg.warm_start_s
        self.last_act[r] = t
        info = {
            "region": r,
            "signal": signal,
            "warm": warm,
            "cold": cold,
            "from": fleet.run[r],
            "ready_warm": t + cfg.warm_start_s,
            "ready_cold": t + cfg.cold_start_s,
        }
        fleet.log.append((t, "scale_up", info))

    def scale_down(self, r: int, t: float, signal: float) -> None:
        fleet, cfg = self.fleet, self.fleet.cfg
        desired = max(cfg.min_replicas[r], math.ceil(fleet.run[r] * signal / cfg.scale_threshold), 1)
        if desired < fleet.run[r]:
            fleet.log.append((t, "scale_down", {"region": r, "from": fleet.run[r], "to": desired}))
            fleet.run[r] = desired
            fleet.resize(r)
            self.last_act[r] = t


class FastPath:
    """Advances stretches where nobody would queue with numpy (one region, constant TPOT).

    In fast mode the in-flight requests live in arrays sorted by finish instead of the departure heap. A
    window runs to the next control event other than a sample (at most FAST_WINDOW_S); it stops at the first
    arrival that would wait (no free slot or KV), and the event loop takes over from there. Windows that
    consume few arrivals cost more than the event loop would, so after such a window the fast path backs off
    for longer and longer (it is chosen only where it is faster; the records are the same either way).
    """

    MIN_USEFUL = 64  # arrivals a window must consume to beat the event loop

    @classmethod
    def pays(cls, fleet: Fleet) -> bool:
        """Whether the fast path can be faster: one region, constant TPOT, and windows that hold on average at
        least MIN_USEFUL arrivals. Windows of fewer arrivals that nobody waits in are all run with numpy and
        cost more than the event loop (measured in bench/README.md: 20 or 40 a window 1.5x slower, 64 faster);
        where some wait, the windows back off instead (`blocked`)."""
        per_window = fleet.n / fleet.duration_s * FAST_WINDOW_S if fleet.duration_s > 0 else 0.0
        return fleet.n_regions == 1 and fleet.tkv == 0.0 and per_window >= cls.MIN_USEFUL

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.active = False
        self.blocked_until = -INF
        self.backoff = 1.0
        self.live_f = np.zeros(0)
        self.live_rid = np.zeros(0, dtype=np.int64)
        self.live_kv = np.zeros(0)
        self.start_v = np.frombuffer(fleet.start, dtype=np.float64)
        self.first_v = np.frombuffer(fleet.first, dtype=np.float64)
        self.finish_v = np.frombuffer(fleet.finish, dtype=np.float64)
        self.tpot_v = np.frombuffer(fleet.tpot, dtype=np.float64)
        self.status_v = np.frombuffer(fleet.status, dtype=np.int8)
        self.where_v = np.frombuffer(fleet.where, dtype=np.int64)

    def may_enter(self, t: float) -> bool:
        fleet = self.fleet
        return t >= self.blocked_until and not fleet.outage and not fleet.queues[0] and fleet.alive[0]

    def enter(self) -> None:
        fleet = self.fleet
        status, finish = fleet.status, fleet.finish
        valid = sorted((fin, rid) for fin, rid in fleet.dep if status[rid] == SERVED and finish[rid] == fin)
        self.live_f = np.array([fin for fin, _ in valid], dtype=float)
        self.live_rid = np.array([rid for _, rid in valid], dtype=np.int64)
        self.live_kv = fleet.req.kv_tokens[self.live_rid]
        fleet.dep = []
        self.active = True

    def leave(self) -> None:
        self.fleet.dep = list(
            zip(self.live_f.tolist(), self.live_rid.tolist(), strict=True)
        )  # sorted: a heap
        self.active = False

    def _keep(self, f: np.ndarray, rid: np.ndarray, kv: np.ndarray, t: float) -> None:
        fleet = self.fleet
        self.live_f, self.live_rid, self.live_kv = f, rid, kv
        fleet.busy[0] = int(f.size)
        fleet.kvu[0] = float(kv.sum())
        fleet.nsys = fleet.busy[0]
        fleet.tlast = t

    def advance(self, t: float) -> None:
        """Let the in-flight requests that finish by t leave."""
        fleet = self.fleet
        fleet.area += float(np.maximum(np.minimum(self.live_f, t) - fleet.tlast, 0.0).sum())
        k = int(np.searchsorted(self.live_f, t, side="right"))
        self._keep(self.live_f[k:], self.live_rid[k:], self.live_kv[k:], t)

    def window_end(self, t: float) -> float:
        """End of the next fast window: the next control event other than a sample, ≤ FAST_WINDOW_S on."""
        following = min((entry[0] for entry in self.fleet.ctl if entry[1] != _SAMPLE), default=INF)
        return min(following, t + FAST_WINDOW_S)

    def forward(self, i0: int, t_end: float) -> tuple[int, bool]:
        """Start arrivals i0.. (before t_end) on arrival while none would wait; (how many, stopped early)."""
        fleet, req = self.fleet, self.fleet.req
        i1 = int(np.searchsorted(req.arrival, t_end, side="left"))
        if i1 <= i0:
            return 0, False
        a = req.arrival[i0:i1]
        f = a + req.fixed_s[i0:i1] + req.out_tokens[i0:i1] * fleet.tbase
        f0 = self.live_f
        f_sorted = np.sort(f)
        done_before = np.searchsorted(f_sorted, a, side="right")
        in_use = f0.size - np.searchsorted(f0, a, side="right") + np.arange(a.size) - done_before
        ok = in_use < fleet.slots[0]
        if math.isfinite(fleet.kvcap[0]):
            k = req.kv_tokens[i0:i1]
            kv0 = np.concatenate(([0.0], np.cumsum(self.live_kv)))
            held0 = kv0[-1] - kv0[np.searchsorted(f0, a, side="right")]
            by_finish = np.concatenate(([0.0], np.cumsum(k[np.argsort(f, kind="stable")])))
            held = held0 + np.cumsum(k) - k - by_finish[done_before]
            ok &= held + k <= fleet.kvcap[0]
        bad = np.flatnonzero(~ok)
        m = int(bad[0]) if bad.size else a.size
        if m == 0:
            return 0, True
        t_stop = float(a[m]) if bad.size else t_end
        if bad.size:
            a, f = a[:m], f[:m]
            f_sorted = np.sort(f)
        j1 = i0 + m
        self.start_v[i0:j1] = a
        self.first_v[i0:j1] = a + req.prefill_s[i0:j1]
        self.finish_v[i0:j1] = f
        self.tpot_v[i0:j1] = fleet.tbase
        self.status_v[i0:j1] = SERVED
        self.where_v[i0:j1] = 0
        self._samples_until(t_stop, f0, a, f_sorted)
        fleet.area += float(np.maximum(np.minimum(f0, t_stop) - fleet.tlast, 0.0).sum())
        fleet.area += float((np.minimum(f, t_stop) - a).sum())
        keep0 = f0 > t_stop
        keep = f > t_stop
        merged_f = np.concatenate((f0[keep0], f[keep]))
        merged_rid = np.concatenate((self.live_rid[keep0], np.arange(i0, j1, dtype=np.int64)[keep]))
        merged_kv = np.concatenate((self.live_kv[keep0], req.kv_tokens[i0:j1][keep]))
        order = np.lexsort((merged_rid, merged_f))
        self._keep(merged_f[order], merged_rid[order], merged_kv[order], t_stop)
        return m, bool(bad.size)

    def _samples_until(self, t_stop: float, f0: np.ndarray, a: np.ndarray, f_sorted: np.ndarray) -> None:
        """Write the samples due before t_stop from the window's arrays (nothing queues in a window)."""
        fleet = self.fleet
        pending_sample = next((entry for entry in fleet.ctl if entry[1] == _SAMPLE), None)
        if pending_sample is None or pending_sample[0] >= t_stop:
            return
        fleet.ctl.remove(pending_sample)
        heapq.heapify(fleet.ctl)
        k0 = k1 = pending_sample[3][0]
        while k1 * fleet.sample_dt < min(t_stop, fleet.duration_s):
            k1 += 1
        times = np.arange(k0, k1) * fleet.sample_dt
        busy_at = (
            f0.size
            - np.searchsorted(f0, times, side="right")
            + np.searchsorted(a, times, side="left")
            - np.searchsorted(f_sorted, times, side="right")
        )
        for t_s, b_s in zip(times.tolist(), busy_at.tolist(), strict=True):
            fleet.record_sample(t_s, 0, b_s)
        if k1 * fleet.sample_dt < fleet.duration_s:
            fleet.push(k1 * fleet.sample_dt, _SAMPLE, (k1,))

    def blocked(self, t_end: float, consumed: int) -> None:
        """A window stopped at an arrival that would wait: hand over to the event loop until t_end, longer
        (doubling) while windows keep consuming fewer than MIN_USEFUL arrivals."""
        self.backoff = 1.0 if consumed >= self.MIN_USEFUL else self.backoff * 2.0
        self.blocked_until = t_end if self.backoff == 1.0 else t_end + self.backoff * FAST_WINDOW_S
        self.leave()


def run_event_loop(fleet: Fleet, controls: Controls, fast: FastPath | None) -> None:
    """Interleave arrivals, departures and control events in time order until the end event.

    The arrival and departure branches are written inline with local names, the request count in the system
    (`nsys`), its integral (`area`) and the last event time included: they run once per request. The locals
    are handed to the fleet around every call that reads or changes them.
    """
    heappush, heappop = heapq.heappush, heapq.heappop
    arr, kvt, fixed, pre, outt = fleet.arr, fleet.kvt, fleet.fixed, fleet.pre, fleet.outt
    status, start, first, finish, tpot, where = (
        fleet.status,
        fleet.start,
        fleet.first,
        fleet.finish,
        fleet.tpot,
        fleet.where,
    )
    busy, kvu, slots, kvcap, run = fleet.busy, fleet.kvu, fleet.slots, fleet.kvcap, fleet.run
    queues, ctl, home = fleet.queues, fleet.ctl, fleet.home
    n, timeout, qlimit = fleet.n, fleet.timeout, fleet.cfg.queue_limit
    tbase, tkv, routing = fleet.tbase, fleet.tkv, fleet.cfg.routing
    single = fleet.n_regions == 1
    nsys, area, tlast = fleet.nsys, fleet.area, fleet.tlast
    outage, dep = fleet.outage, fleet.dep
    fast_after = fast.blocked_until if fast is not None else INF  # the fast path may start at this arrival
    i = 0
    while True:
        if fast is not None and fast.active:
            fleet.nsys, fleet.area, fleet.tlast = nsys, area, tlast
            ta = arr[i] if i < n else INF
            tc = ctl[0][0]
            if tc <= ta:
                if ctl[0][1] in _HEAP_FREE:
                    fast.advance(tc)
                    t, kind, _, payload = heappop(ctl)
                    if kind != _END:
                        controls.handle(t, kind, payload)
                    nsys, area, tlast, outage = fleet.nsys, fleet.area, fleet.tlast, fleet.outage
                    if kind == _END:
                        break
                    continue
                fast.leave()
                dep = fleet.dep
            else:
                t_end = fast.window_end(ta)
                consumed, stopped = fast.forward(i, t_end)
                i += consumed
                nsys, area, tlast = fleet.nsys, fleet.area, fleet.tlast
                if not stopped:
                    continue
                fast.blocked(t_end, consumed)
                dep, fast_after = fleet.dep, fast.blocked_until
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
                fleet.nsys = nsys
                fleet.admit(r, f)
                nsys = fleet.nsys
        elif tc <= ta:
            t, kind, _, payload = heappop(ctl)
            area += nsys * (t - tlast)
            tlast = t
            if kind == _END:
                break
            fleet.nsys, fleet.area, fleet.tlast = nsys, area, tlast
            controls.handle(t, kind, payload)
            nsys, outage = fleet.nsys, fleet.outage
        else:
            # fast_after stays INF without a fast path: the None test runs only when one may enter
            if ta >= fast_after and fast is not None and fast.may_enter(ta):
                fleet.nsys, fleet.area, fleet.tlast = nsys, area, tlast
                fast.enter()
                continue
            rid = i
            i += 1
            area += nsys * (ta - tlast)
            tlast = ta
            if outage:
                fleet.fallback(rid, ta)
                continue
            r = 0 if single else home[rid]
            if not single and (routing == 1 or not fleet.alive[r]):
                r = fleet.least_loaded()
                if r < 0:
                    fleet.fail(rid, ta)
                    continue
            q = queues[r]
            if q and timeout > 0.0:
                fleet.nsys = nsys
                fleet.purge(r, ta)
                nsys = fleet.nsys
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
    fleet.nsys, fleet.area, fleet.tlast = nsys, area, tlast


def _doubles(values: np.ndarray) -> array[float]:
    """A float64 array.array copy of `values`."""
    return array("d", np.ascontiguousarray(values, dtype=np.float64).tobytes())
