"""The fleet of engines on the compiled step loop (`engine_kernel.py`): the state in flat arrays, the loop
compiled, the control events (samples, failures, outages, the autoscaler) applied by the same Python
`Controls` as the reference (`engine.py`), through the methods below that work on the arrays."""

from __future__ import annotations

import heapq
import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from numba import typeof

from grading.core.sim import engine_kernel as k
from grading.core.sim.engine import too_long
from grading.core.sim.engine_kernel import State
from grading.core.sim.queueing import _END, INF, Controls, Fleet, FleetConfig, FleetRun, Requests

numba_type: Callable[[object], object] = typeof  # numba's typeof, typed
HEAP_START = 16  # a replica's finish heap starts this long; the rows grow with the most a replica held


class Entry:
    """A kernel called from Python with one signature: after the first call (which compiles it or loads it
    from numba's cache), through its compiled entry point, skipping the dispatcher's typing of a State on
    every call (300 µs against 1.5, and the loop returns to Python at each of a replay's 1,200 samples).
    Callers pass the same types every time (float t, int r, int64 arrays)."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.entry: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.entry is not None:
            return self.entry(*args)
        answer = self.kernel(*args)
        self.entry = self.kernel.overloads[tuple(numba_type(arg) for arg in args)].entry_point
        return answer


run_until, purge, admit, lose = Entry(k.run_until), Entry(k.purge), Entry(k.admit), Entry(k.lose)
set_queue, held_by, walk, drop = Entry(k.set_queue), Entry(k.held_by), Entry(k.walk), Entry(k.drop)


class IntRow:
    """A row of counts seen by the Python controls as a list of ints (`busy`)."""

    def __init__(self, row: np.ndarray) -> None:
        self.row = row

    def __getitem__(self, r: int) -> int:
        return int(self.row[r])

    def __setitem__(self, r: int, value: int) -> None:
        self.row[r] = value

    def __iter__(self) -> Iterator[int]:
        return iter(self.row.tolist())

    def __len__(self) -> int:
        return len(self.row)


class QueueView:
    """Region r's FCFS queue (a linked list in the arrays) as the controls see a deque. It holds its fleet
    weakly: a cycle between them would keep a run's rows (hundreds of MB for a million requests) alive until
    the cyclic garbage collector happened to run, so a worker's memory grew by a run's rows every run and each
    run faulted in fresh pages."""

    def __init__(self, fleet: CompiledEngineFleet, r: int) -> None:
        self._fleet, self.r = weakref.ref(fleet), r

    @property
    def fleet(self) -> CompiledEngineFleet:
        fleet = self._fleet()
        assert fleet is not None  # a view lives only as long as its fleet's run
        return fleet

    def __len__(self) -> int:
        return int(self.fleet.GI[k.QLEN, self.r])

    def __iter__(self) -> Iterator[int]:
        return iter(walk(self.fleet.QI[k.QNEXT], int(self.fleet.GI[k.QHEAD, self.r])).tolist())

    def clear(self) -> None:
        set_queue(self.fleet.state, self.r, np.empty(0, np.int64))


def _scalar(array: str, index: int, kind: type) -> property:
    def get(self: Any) -> Any:
        return kind(getattr(self, array)[index])

    def put(self: Any, value: Any) -> None:
        getattr(self, array)[index] = value

    return property(get, put)


class CompiledEngineFleet(Fleet):
    """`engine.EngineFleet`'s rules on arrays; the loop between control events runs in `engine_kernel`."""

    nsys = _scalar("K", k.NSYS, int)
    outage = _scalar("K", k.OUTAGE, bool)
    area = _scalar("S", k.AREA, float)
    tlast = _scalar("S", k.TLAST, float)
    fb_tokens = _scalar("S", k.FB_TOKENS, float)
    fb_last = _scalar("S", k.FB_LAST, float)

    def __init__(
        self, cfg: FleetConfig, req: Requests, duration_s: float, sample_dt: float, max_steps: float
    ) -> None:
        regions = len(cfg.replicas)
        self.block = max(1, int(cfg.kv_block_tokens))
        blocks = math.floor(cfg.kv_capacity / self.block) if math.isfinite(cfg.kv_capacity) else INF
        self.kv_cap = blocks
        self.admit_cap = blocks - math.floor(cfg.kv_watermark_frac * blocks) if blocks < INF else INF
        self.S, self.K = np.zeros(k.N_S), np.zeros(k.N_K, np.int64)
        self.C = config_row(cfg, self.block, blocks, self.admit_cap, max_steps)
        self.reps, cap = 0, max(8, 2 * sum(cfg.replicas))
        self.RF, self.RI = np.zeros((k.N_RF, cap)), np.full((k.N_RI, cap), -1, np.int64)
        self.PH = np.zeros((cap, self.block), np.int64)
        self.HT, self.HR = np.zeros((cap, HEAP_START)), np.zeros((cap, HEAP_START), np.int64)
        self.GI = np.zeros((k.N_GI, regions), np.int64)
        self.GI[k.QHEAD] = self.GI[k.QTAIL] = -1
        self.MEM = np.zeros((regions, cap), np.int64)
        self.SHF, self.SHI, self.PT = np.empty(64), np.empty((3, 64), np.int64), np.empty(64)
        super().__init__(cfg, req, duration_s, sample_dt)
        self.QI[k.REFUSED] = too_long(req, self.block, self.admit_cap)
        # Views standing in for Fleet's list and deques (the controls only index, count and iterate them)
        self.busy = IntRow(self.GI[k.BUSY])  # type: ignore[assignment]  # not a list: a view of the row
        self.queues = [QueueView(self, r) for r in range(regions)]  # type: ignore[misc]  # deque stand-ins

    def records(self, req: Requests) -> None:
        """The per-request rows (`request_rows`), with the views the shared controls read by Fleet's names."""
        self.QF, self.QI = request_rows(req)
        self.arr, self.enq = self.QF[k.ARR], self.QF[k.ENQ]
        self.status, self.retries, self.where = self.QI[k.STATUS], self.QI[k.RETRIES], self.QI[k.WHERE]
        self.start, self.first = self.QF[k.START], self.QF[k.FIRST]
        self.finish, self.tpot, self.outt = self.QF[k.FINISH], self.QF[k.TPOT], self.QF[k.OUT]

    @property
    def state(self) -> State:
        return State(*(getattr(self, name) for name in State._fields))

    # -- replicas --------------------------------------------------------------------------------------

    def resize(self, r: int) -> None:
        """Match region r's serving replicas to `run[r]`: add fresh ones, or drain the least-held."""
        super().resize(r)
        serving = self.serving(r)
        for _ in range(self.run[r] - len(serving)):
            self.add_replica(r)
        if len(serving) > self.run[r]:
            held = self.RI[k.HELD]
            for rep in sorted(serving, key=lambda rep: (held[rep], -rep))[: len(serving) - self.run[r]]:
                self.RI[k.DRAINING, rep] = 1
                if held[rep] == 0:
                    drop(self.state, int(rep))
        self.list_members()

    def add_replica(self, r: int) -> None:
        if self.reps == self.RI.shape[1]:
            self.widen()
        rep = self.reps
        self.reps += 1
        self.RI[:, rep] = -1
        self.RI[: k.WHEAD, rep] = 0
        self.RI[k.REGION, rep], self.RI[k.ALIVE, rep] = r, 1
        self.RF[:, rep] = 0.0
        self.PH[rep] = 0

    def widen(self) -> None:
        """Twice the room for replicas."""
        cap = 2 * self.RI.shape[1]
        self.RF = np.concatenate((self.RF, np.zeros_like(self.RF)), axis=1)
        self.RI = np.concatenate((self.RI, np.full_like(self.RI, -1)), axis=1)
        self.PH = np.concatenate((self.PH, np.zeros_like(self.PH)))
        self.HT = np.concatenate((self.HT, np.zeros_like(self.HT)))
        self.HR = np.concatenate((self.HR, np.zeros_like(self.HR)))
        self.MEM = np.zeros((self.MEM.shape[0], cap), np.int64)

    def list_members(self) -> None:
        """Each region's serving replicas (alive, not draining), by number: where arrivals may go."""
        live = np.flatnonzero((self.RI[k.ALIVE, : self.reps] == 1) & (self.RI[k.DRAINING, : self.reps] == 0))
        regions = self.RI[k.REGION, live]
        for r in range(self.n_regions):
            ids = live[regions == r]
            self.MEM[r, : ids.size] = ids
            self.GI[k.MCOUNT, r] = ids.size

    def alive_replicas(self, r: int) -> list[int]:
        reps = slice(0, self.reps)
        return np.flatnonzero((self.RI[k.ALIVE, reps] == 1) & (self.RI[k.REGION, reps] == r)).tolist()

    def serving(self, r: int) -> list[int]:
        return [rep for rep in self.alive_replicas(r) if not self.RI[k.DRAINING, rep]]

    def holding(self, reps: Sequence[int]) -> list[int]:
        """The requests waiting or running on `reps`, by id."""
        rids: list[int] = held_by(self.state, np.asarray(reps, np.int64)).tolist()
        return rids

    def retire(self, reps: Sequence[int]) -> None:
        for rep in reps:
            if self.RI[k.ALIVE, rep]:
                drop(self.state, int(rep))
        self.list_members()

    # -- what the shared controls ask of the fleet ------------------------------------------------------

    def sync(self) -> None:
        """Hand the kernel what the Python controls change: slots and live regions; room for its buffers."""
        self.GI[k.SLOTS] = self.slots
        self.GI[k.RALIVE] = self.alive
        if self.K[k.HEAPN] + self.reps + 2 >= self.SHF.size:
            size = 2 * (self.K[k.HEAPN] + self.reps + 2)
            self.SHF = np.resize(self.SHF, size)
            self.SHI = np.concatenate((self.SHI, np.empty((3, size - self.SHI.shape[1]), np.int64)), axis=1)
        if self.K[k.MAXHELD] >= self.HT.shape[1]:
            more = 2 * int(self.K[k.MAXHELD]) - self.HT.shape[1]
            self.HT = np.concatenate((self.HT, np.zeros((self.HT.shape[0], more))), axis=1)
            self.HR = np.concatenate((self.HR, np.zeros((self.HR.shape[0], more), np.int64)), axis=1)
        if self.K[k.NPRE] + self.K[k.NSYS] + 2 > self.PT.size:
            self.PT = np.resize(self.PT, 2 * (self.K[k.NPRE] + self.K[k.NSYS] + 2))

    def purge(self, r: int, t: float) -> None:
        self.sync()
        purge(self.state, int(r), float(t))

    def admit(self, r: int, t: float) -> None:
        self.sync()
        admit(self.state, int(r), float(t))

    def requeue(self, rids: list[int], r: int, t: float) -> None:
        """Put retried requests back in arrival order; their queue timeout counts from t."""
        self.QF[k.ENQ, rids] = t
        merged = np.array(list(self.queues[r]) + list(rids), np.int64)
        set_queue(self.state, int(r), merged[np.argsort(self.arr[merged], kind="stable")])

    def in_flight(self, r: int | None, t: float) -> list[int]:
        regions = range(self.n_regions) if r is None else (r,)
        return self.holding([rep for g in regions for rep in self.alive_replicas(g)])

    def lose(self, rids: list[int], t: float, retry: bool) -> None:
        self.sync()
        lose(self.state, np.asarray(rids, np.int64), float(t), bool(retry))

    def run_loop(self, controls: Controls) -> None:
        """Interleave the kernel's stretches with the control events, in the reference's order."""
        while True:
            self.sync()
            answer = run_until(self.state, float(self.ctl[0][0]))
            if answer == k.GROW:
                continue  # sync made the room
            if answer == k.TOO_MANY_STEPS:
                raise ValueError(
                    f"serving: the engines ran more than {self.C[k.MAX_STEPS]:,.0f} steps, more than one "
                    "replay may simulate (tpot_s, prefill_tok_s, max_batched_tokens or the load are too "
                    "extreme)"
                )
            tc, kind, _, payload = heapq.heappop(self.ctl)
            self.area += self.nsys * (tc - self.tlast)
            self.tlast = tc
            if kind == _END:
                return
            controls.handle(tc, kind, payload)

    def result(self) -> FleetRun:
        QF, QI = self.QF, self.QI  # the float rows as they are (the run is over: nothing writes them again)
        return FleetRun(
            status=QI[k.STATUS].astype(np.int8),
            start=QF[k.START],
            first_token=QF[k.FIRST],
            finish=QF[k.FINISH],
            tpot=QF[k.TPOT],
            retries=QI[k.RETRIES].astype(np.int64),
            samples=self.samples(),
            area=self.area,
            replica_seconds=self.replica_seconds,
            log=self.log,
            preempted=QI[k.PREEMPTED].astype(np.int64),
            preempt_times=self.PT[: self.K[k.NPRE]].copy(),
            swaps=int(self.K[k.SWAPS]),
            engine_steps=int(self.K[k.ENGINE_STEPS]),
        )


def config_row(cfg: FleetConfig, block: int, kv_cap: float, admit_cap: float, max_steps: float) -> np.ndarray:
    C = np.zeros(k.N_C)
    C[k.BATCH], C[k.ADMIT_CAP], C[k.KV_CAP], C[k.BLOCK] = cfg.max_batch, admit_cap, kv_cap, block
    C[k.BUDGET], C[k.CHUNKED], C[k.LIMITED] = cfg.token_budget, cfg.chunked_prefill, kv_cap < INF
    C[k.SWAP_S], C[k.PREEMPT_SWAP], C[k.TIMEOUT] = cfg.swap_s_per_token, cfg.preempt_swap, cfg.queue_timeout_s
    C[k.QLIMIT], C[k.ROUTING], C[k.SINGLE] = cfg.queue_limit, cfg.routing, len(cfg.replicas) == 1
    C[k.FB_RATE], C[k.FB_TTFT], C[k.FB_TPOT] = cfg.fallback_rate, cfg.fallback_ttft_s, cfg.fallback_tpot_s
    C[k.MAX_STEPS], C[k.OVERHEAD], C[k.WEIGHTS] = max_steps, cfg.step_overhead_s, cfg.tpot_base_s
    C[k.SPEED], C[k.KV_READ], C[k.PAIR] = cfg.prefill_tok_s, cfg.tpot_per_kv_token_s, cfg.attn_s_per_pair
    C[k.LINK_STEP], C[k.LINK_TOKEN] = cfg.comm_s_per_step, cfg.comm_s_per_token
    return C


def request_rows(req: Requests) -> tuple[np.ndarray, np.ndarray]:
    """The per-request rows. A run is up to millions of requests, so the int rows are int32 (ids, counts and
    step numbers all stay below 2³¹) and the rows a kernel writes before it reads them are left unset."""
    n = len(req.arrival)
    QF, QI = np.empty((k.N_F, n)), np.empty((k.N_I, n), np.int32)
    QF[k.ARR] = QF[k.ENQ] = req.arrival
    QF[k.PROMPT] = QF[k.NEED] = req.prompt_tokens if req.prompt_tokens is not None else 0.0
    QF[k.OUT] = req.out_tokens
    QF[k.LEFT] = np.maximum(req.out_tokens - 1.0, 0.0)
    QF[k.START] = QF[k.FIRST] = QF[k.FINISH] = QF[k.TPOT] = math.nan
    for row in (k.PREEMPTED, k.RETRIES, k.WHERE, k.STATE, k.STATUS, k.INPF):
        QI[row] = 0
    QI[k.ON] = QI[k.HPOS] = -1
    QI[k.HOME] = req.home
    return QF, QI
