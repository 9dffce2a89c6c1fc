"""A vLLM-style engine per replica, stepped one engine step at a time, behind the fleet's regions and queues.

Each replica runs steps. A step carries one decode token for every decoding sequence and, with chunked
prefill, prefill chunks of the waiting prompts in the token budget left (FCFS); without it a step with prefill
work prefills whole prompts alone and decoding stalls. A step lasts the larger of its memory time (weights +
the KV it reads, over the replica's bandwidth) and its compute time (its tokens over the prefill throughput),
plus its time on the interconnect between the replica's GPUs (a fixed latency and a share per token it
carries: the all-reduces of a tensor-parallel group split over a slow link). A sequence's first token comes at
the end of its last prefill chunk; then one token per decode step. KV is held per token: a prompt's at
admission, one more per decode step. A replica admits a sequence when its KV fits; when a growing batch would
overflow, the newest sequence is preempted (recompute: its KV is freed and it prefills prompt and generated
tokens again; swap: its KV goes to host memory and comes back).

Routing: an arrival goes to the replica of its region holding the fewest requests that has a free slot and
KV for its prompt (lowest index on ties); when none has, it waits in the region's FCFS queue and goes to the
first replica that frees room at the end of a step. The fleet's other machinery (timeouts, failures,
outages, the autoscaler, samples) is `queueing.py`'s, shared with the generic queue.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from grading.core.sim.queueing import (
    _END,
    INF,
    REJECTED,
    SERVED,
    WAITING,
    Controls,
    Fleet,
    FleetConfig,
    FleetRun,
    Requests,
)

QUEUED, PREFILL, DECODE, SWAPPED = 0, 1, 2, 3  # where a request stands on its replica
NOTHING: tuple[()] = ()  # a step's chunks or swap-ins when it has none (never appended to)
ACTIVATION_BYTES = 2.0  # a token's activations are 16-bit: d × 2 bytes through each all-reduce


class StepTiming(Protocol):
    """What `step_clock` reads (read-only: a frozen `ReplicaModel` or a `FleetConfig`)."""

    @property
    def step_overhead_s(self) -> float: ...
    @property
    def tpot_base_s(self) -> float: ...
    @property
    def prefill_tok_s(self) -> float: ...
    @property
    def tpot_per_kv_token_s(self) -> float: ...
    @property
    def attn_s_per_pair(self) -> float: ...
    @property
    def comm_s_per_step(self) -> float: ...
    @property
    def comm_s_per_token(self) -> float: ...


def step_clock(timing: StepTiming, arrays: bool = False) -> Callable[[Any, Any, Any, Any], Any]:
    """The time of one engine step, `seconds(tokens, decode_kv, prefill_kv, prefill_pairs)`: the sum of its
    operations, each as long as the larger of its memory time and its compute time, all layers together:

    - the matmuls: max(the weights read once, the step's tokens at the prefill rate) (attention projections
      and MLP alike: each layer's weights are read once and do 2 FLOP a parameter a token);
    - the decodes' attention: each decode token reads its sequence's KV (`decode_kv` tokens in all) and does
      4·L·d FLOP per context token: max of the two per token of context;
    - the prefill chunks' attention: max(their KV read, `prefill_pairs` (query, context) pairs of causal
      attention, quadratic in a chunk's context);
    - the interconnect: a fixed time a step (the all-reduces' latencies) and a time a token it carries;
    - a fixed overhead (scheduling, sampling).

    With `arrays` the arguments may be numpy arrays (element by element); without, floats (the engine's
    per-step call, comparisons instead of max())."""
    overhead, weights, speed = timing.step_overhead_s, timing.tpot_base_s, timing.prefill_tok_s
    kv_read, pair = timing.tpot_per_kv_token_s, timing.attn_s_per_pair
    decode_rate = kv_read if kv_read > pair else pair  # a decode attends one query to each context token
    link_step, link_token = timing.comm_s_per_step, timing.comm_s_per_token

    if arrays:

        def over_arrays(tokens: Any, decode_kv: Any, prefill_kv: Any, prefill_pairs: Any) -> Any:
            return (
                overhead
                + np.maximum(weights, tokens / speed)
                + decode_kv * decode_rate
                + np.maximum(prefill_kv * kv_read, prefill_pairs * pair)
                + link_step
                + link_token * tokens
            )

        return over_arrays

    def seconds(tokens: float, decode_kv: float, prefill_kv: float, prefill_pairs: float) -> float:
        compute = tokens / speed
        read, attend = prefill_kv * kv_read, prefill_pairs * pair
        return (
            overhead
            + (compute if compute > weights else weights)
            + decode_kv * decode_rate
            + (attend if attend > read else read)
            + link_step
            + link_token * tokens
        )

    return seconds


class Replica:
    """One replica's engine state. `running` holds prefilling and decoding requests in admission order (the
    newest is preempted first); a decoding request finishes when `steps` reaches its target."""

    __slots__ = (
        "index",
        "region",
        "alive",
        "draining",
        "epoch",
        "waiting",
        "waiting_kv",
        "decode_kv",
        "by_phase",
        "prefilling",
        "running",
        "finishes",
        "decoding",
        "held",
        "entry",
        "steps",
        "kv",
        "stepping",
        "step_decodes",
        "step_chunks",
        "step_swapins",
    )

    def __init__(self, index: int, region: int) -> None:
        self.index, self.region = index, region
        self.alive, self.draining, self.epoch = True, False, 0
        self.waiting: deque[int] = deque()
        self.waiting_kv = 0.0  # KV blocks the waiting requests need when admitted
        self.decode_kv = 0.0  # KV tokens the decoding requests hold (what their attention reads)
        self.by_phase: list[int] = []  # decoding requests by (KV tokens - step count) mod block size
        self.prefilling: list[int] = []
        self.running: dict[int, None] = {}
        self.finishes: list[tuple[float, int]] = []
        self.decoding = 0
        self.held = 0  # waiting + running
        self.entry = 0  # the number of its live entry in the region's heap
        self.steps = 0  # decode steps done
        self.kv = 0.0  # KV blocks held by the running requests
        self.stepping = False
        self.step_decodes = 0
        self.step_chunks: Sequence[tuple[int, float]] = []
        self.step_swapins: Sequence[int] = []


class EngineFleet(Fleet):
    """The fleet with one `Replica` engine per replica instead of pooled slots (see the module docstring)."""

    def __init__(self, cfg: FleetConfig, req: Requests, duration_s: float, sample_dt: float) -> None:
        self.replicas: list[list[Replica]] = [[] for _ in cfg.replicas]
        # per region, (held, index, seq, replica) for every change of a replica's count: the least-held
        # replica is the first entry that is still current (older entries are skipped, and compacted away)
        self.by_held: list[list[tuple[int, int, int, Replica]]] = [[] for _ in cfg.replicas]
        self.held_seq = 0
        self.next_index = 0
        self.block = max(1, int(cfg.kv_block_tokens))
        super().__init__(cfg, req, duration_s, sample_dt)
        n = self.n
        self.prompt = req.prompt_tokens.tolist() if req.prompt_tokens is not None else [0.0] * n
        self.out = self.outt
        self.left = array("d", np.maximum(req.out_tokens - 1.0, 0.0).tobytes())  # decode steps to go
        self.need = array("d", np.asarray(self.prompt, dtype=float).tobytes())  # tokens to prefill next
        self.todo = array("d", bytes(8 * n))
        self.base = array("d", bytes(8 * n))  # KV held when decoding began
        self.began = array("q", bytes(8 * n))  # replica step count when decoding began
        self.target = array("d", bytes(8 * n))  # float: a typed output of 1e30 tokens stays a number
        self.state = array("b", bytes(n))
        self.on: list[Replica | None] = [None] * n
        self.preempted = array("q", bytes(8 * n))
        self.preempt_times = array("d")
        self.swaps = 0
        self.engine_steps = 0
        blocks = math.floor(cfg.kv_capacity / self.block) if math.isfinite(cfg.kv_capacity) else INF
        self.kv_cap = blocks  # KV blocks a replica has
        # what an admission may fill: all but the watermark's share of the blocks (vLLM's watermark)
        self.admit_cap = blocks - math.floor(cfg.kv_watermark_frac * blocks) if blocks < INF else INF
        self.limited = blocks < INF  # unlimited KV never fills: its blocks' growth need not be followed
        self.chunked = cfg.chunked_prefill
        self.step_seconds = step_clock(cfg)
        self.steps_heap: list[tuple[float, int, Replica, int]] = []
        self.step_seq = 0

    # -- replicas --------------------------------------------------------------------------------------

    def resize(self, r: int) -> None:
        """Match region r's serving replicas to `run[r]`: add fresh ones, or drain the least-held (they
        finish what they hold, take nothing new and go when empty)."""
        super().resize(r)
        serving = [rep for rep in self.replicas[r] if not rep.draining]
        for _ in range(self.run[r] - len(serving)):
            rep = Replica(self.next_index, r)
            rep.by_phase = [0] * self.block
            self.replicas[r].append(rep)
            self.next_index += 1
            self.note(rep)
        if len(serving) > self.run[r]:
            for rep in sorted(serving, key=lambda rep: (rep.held, -rep.index))[: len(serving) - self.run[r]]:
                rep.draining = True
                if rep.held == 0:
                    self.drop(rep)

    def drop(self, rep: Replica) -> None:
        rep.alive = False
        rep.epoch += 1
        self.replicas[rep.region].remove(rep)

    def note(self, rep: Replica) -> None:
        """Give a replica whose count went down a fresh entry in its region's heap (a count that went up is
        corrected when its entry comes to the top: an entry is never above the replica's count)."""
        heap = self.by_held[rep.region]
        self.held_seq += 1
        rep.entry = self.held_seq
        heapq.heappush(heap, (rep.held, rep.index, self.held_seq, rep))
        if len(heap) > 4 * len(self.replicas[rep.region]) + 64:
            heap.clear()
            for other in self.replicas[rep.region]:
                if not other.draining:
                    self.held_seq += 1
                    other.entry = self.held_seq
                    heap.append((other.held, other.index, self.held_seq, other))
            heapq.heapify(heap)

    def blocks(self, tokens: float) -> float:
        """KV blocks that hold `tokens` (a whole number)."""
        return -(-tokens // self.block)

    def room(self, rep: Replica, rid: int) -> bool:
        return (
            rep.held < self.batch
            and rep.kv + rep.waiting_kv + self.blocks(self.need[rid]) <= self.admit_cap
            and not rep.draining
        )

    def place(self, rid: int, rep: Replica, t: float) -> None:
        """Hand a request to a replica's waiting list; an idle replica starts a step at once."""
        rep.waiting.append(rid)
        rep.waiting_kv += -(-self.need[rid] // self.block)  # its blocks (ceil)
        self.on[rid] = rep
        self.state[rid] = QUEUED
        rep.held += 1
        self.busy[rep.region] += 1
        self.start[rid] = t
        self.status[rid] = SERVED
        self.where[rid] = rep.region
        if not rep.stepping:
            self.begin_step(rep, t)

    def route(self, rid: int, r: int, t: float) -> bool:
        """Place an arrival on the least-held replica of region r with room (lowest index on ties); False if
        none has room."""
        heap, batch, need = self.by_held[r], self.batch, -(-self.need[rid] // self.block)
        best: Replica | None = None
        skipped: list[tuple[int, int, int, Replica]] = []
        while heap:
            held, index, entry, rep = heap[0]
            if entry != rep.entry or not rep.alive or rep.draining:
                heapq.heappop(heap)
                continue
            if held != rep.held:
                self.held_seq += 1
                rep.entry = self.held_seq
                heapq.heapreplace(heap, (rep.held, index, self.held_seq, rep))
                continue
            if held >= batch:
                break
            if rep.kv + rep.waiting_kv + need <= self.admit_cap:
                best = rep
                break
            skipped.append(heapq.heappop(heap))  # no KV room: look at the next
        for stale in skipped:
            heapq.heappush(heap, stale)
        if best is None:
            return False
        self.place(rid, best, t)
        return True

    def pull(self, rep: Replica, t: float) -> None:
        """A replica with room takes requests from the front of its region's queue."""
        q = self.queues[rep.region]
        if q and self.timeout > 0.0:
            self.purge(rep.region, t)
        while q and self.room(rep, q[0]):
            self.place(q.popleft(), rep, t)

    def admit(self, r: int, t: float) -> None:
        """Give region r's queued requests to its replicas with room, least-held first."""
        if self.timeout > 0.0 and self.queues[r]:
            self.purge(r, t)
        for rep in sorted(self.replicas[r], key=lambda rep: (rep.held, rep.index)):
            if not self.queues[r]:
                return
            self.pull(rep, t)

    # -- one engine step -------------------------------------------------------------------------------

    def preempt(self, rep: Replica, t: float) -> float:
        """Preempt the newest running request; returns the swap-out time it costs (0 for recompute)."""
        rid = next(reversed(rep.running))
        del rep.running[rid]
        cfg = self.cfg
        if self.state[rid] == DECODE:
            done = rep.steps - self.began[rid]
            held = self.base[rid] + done
            self.left[rid] -= done
            self.stop_decoding(rid, rep, held)
        else:
            held = self.need[rid]
            if rid in rep.prefilling:
                rep.prefilling.remove(rid)
        rep.kv -= self.blocks(held)
        self.need[rid] = held  # recompute prefills what it had; a swap brings back the same KV
        swap = cfg.preempt_swap and self.state[rid] == DECODE
        self.state[rid] = SWAPPED if swap else QUEUED
        rep.waiting.appendleft(rid)
        rep.waiting_kv += self.blocks(held)
        self.preempted[rid] += 1
        self.preempt_times.append(t)
        if swap:
            self.swaps += 1
            return held * cfg.swap_s_per_token
        return 0.0

    def begin_step(self, rep: Replica, t: float) -> None:
        """Compose the replica's next step at t and schedule its end; an empty replica goes idle."""
        waiting = rep.waiting
        if (
            waiting
            and not self.chunked
            and self.state[waiting[0]] != SWAPPED
            and rep.kv + self.blocks(self.need[waiting[0]]) <= self.admit_cap
        ):
            tokens, prefill_kv, pairs = self.compose_prefill(rep)
            decodes, swap_time, decode_kv = 0, 0.0, 0.0
        elif (
            waiting
            or rep.prefilling
            or (self.limited and rep.kv + rep.by_phase[-rep.steps % self.block] > self.kv_cap)
        ):
            decodes, tokens, swap_time, prefill_kv, pairs = self.compose_mixed(rep, t)
            decode_kv = rep.decode_kv
        else:  # decodes alone, and their KV grows into room: what compose_mixed gives, without its loops
            decodes = rep.decoding
            tokens, swap_time, decode_kv, prefill_kv, pairs = float(decodes), 0.0, rep.decode_kv, 0.0, 0.0
            rep.step_chunks, rep.step_swapins = NOTHING, NOTHING
        if tokens <= 0.0 and not rep.step_swapins:
            rep.stepping = False
            if rep.draining and rep.held == 0:
                self.drop(rep)
            return
        dt = self.step_seconds(tokens, decode_kv, prefill_kv, pairs) + swap_time
        rep.stepping = True
        rep.step_decodes = decodes
        self.engine_steps += 1
        self.step_seq += 1
        heapq.heappush(self.steps_heap, (t + dt, self.step_seq, rep, rep.epoch))

    def start_prefill(self, rep: Replica, rid: int) -> None:
        """Move the waiting head onto the GPU: its KV is reserved, its prefill starts."""
        rep.waiting.popleft()
        blocks = -(-self.need[rid] // self.block)
        rep.waiting_kv -= blocks
        rep.kv += blocks
        rep.running[rid] = None
        self.todo[rid] = self.need[rid]
        self.state[rid] = PREFILL
        rep.prefilling.append(rid)

    def compose_prefill(self, rep: Replica) -> tuple[float, float, float]:
        """Serial prefill: whole prompts from the waiting list while they fit the budget (the first always)
        and the KV; decoding stalls for the step. Returns the step's tokens, the KV its attention reads and
        its (query, context) pairs."""
        need, cap, budget = self.need, self.admit_cap, self.cfg.token_budget
        chunks: list[tuple[int, float]] = []
        tokens = pairs = 0.0
        while rep.waiting:
            rid = rep.waiting[0]
            if (
                self.state[rid] == SWAPPED
                or rep.kv + self.blocks(need[rid]) > cap
                or (chunks and tokens + need[rid] > budget)
            ):
                break
            self.start_prefill(rep, rid)
            chunks.append((rid, need[rid]))
            tokens += need[rid]
            pairs += need[rid] * (need[rid] + 1.0) / 2.0
        rep.step_chunks, rep.step_swapins = chunks, []
        return tokens, tokens, pairs

    def compose_mixed(self, rep: Replica, t: float) -> tuple[int, float, float, float, float]:
        """A decode token for every decoding request (preempting the newest while the KV blocks cannot
        grow), then prefill chunks (chunked prefill) in the budget left, FCFS, admitted while they leave the
        watermark free; swapped requests come back when their KV fits. Returns (decodes, tokens, swap time,
        the KV the chunks' attention reads, their (query, context) pairs)."""
        cfg, need, todo, cap, phase = self.cfg, self.need, self.todo, self.kv_cap, rep.by_phase
        swap_time = 0.0
        decodes = rep.decoding
        grow = phase[-rep.steps % self.block] if decodes else 0  # decodes whose next token needs a block
        while decodes and rep.kv + grow > cap:
            swap_time += self.preempt(rep, t)
            decodes = rep.decoding
            grow = phase[-rep.steps % self.block]
        chunks: list[tuple[int, float]] = []
        swapins: list[int] = []
        budget = cfg.token_budget - decodes
        tokens = float(decodes)
        prefill_kv = pairs = 0.0
        if cfg.chunked_prefill:
            for rid in rep.prefilling:
                if budget <= 0.0:
                    break
                c = min(todo[rid], budget)
                done = need[rid] - todo[rid]
                chunks.append((rid, c))
                budget -= c
                tokens += c
                prefill_kv += done + c
                pairs += c * done + c * (c + 1.0) / 2.0
        while rep.waiting:
            rid = rep.waiting[0]
            blocks = self.blocks(need[rid])
            if rep.kv + grow + blocks > self.admit_cap:
                break
            if self.state[rid] == SWAPPED:
                rep.waiting.popleft()
                rep.waiting_kv -= blocks
                rep.kv += blocks
                rep.running[rid] = None
                self.state[rid] = PREFILL  # on its way back to the GPU; it decodes from the step's end
                swapins.append(rid)
                swap_time += need[rid] * cfg.swap_s_per_token
                continue
            if not cfg.chunked_prefill or budget <= 0.0:
                break
            self.start_prefill(rep, rid)
            c = min(need[rid], budget)
            chunks.append((rid, c))
            budget -= c
            tokens += c
            prefill_kv += c
            pairs += c * (c + 1.0) / 2.0
        rep.step_chunks, rep.step_swapins = chunks, swapins
        return decodes, tokens, swap_time, prefill_kv, pairs

    def end_step(self, rep: Replica, t: float) -> None:
        """Apply the step that ends at t: a token for each decode, prefill chunks, finishes."""
        state, todo = self.state, self.todo
        decodes = rep.step_decodes
        if decodes:
            if self.limited:  # a new block for each decode that filled its last
                rep.kv += rep.by_phase[-rep.steps % self.block]
            steps = rep.steps + 1
            rep.steps = steps
            rep.decode_kv += decodes
            finishes = rep.finishes
            while finishes and finishes[0][0] <= steps:
                target, rid = heapq.heappop(finishes)
                if self.on[rid] is rep and state[rid] == DECODE and self.target[rid] == target:
                    self.complete(rid, rep, t)
        if rep.step_chunks:
            for rid, c in rep.step_chunks:
                if self.on[rid] is rep and state[rid] == PREFILL:
                    todo[rid] -= c
                    if todo[rid] <= 0.0:
                        rep.prefilling.remove(rid)
                        self.decode_from(rid, rep, t)
        if rep.step_swapins:
            for rid in rep.step_swapins:
                if self.on[rid] is rep and state[rid] == PREFILL:
                    self.decode_from(rid, rep, t)

    def decode_from(self, rid: int, rep: Replica, t: float) -> None:
        """A request's prefill (or swap-in) is done at t: its first token, then decode steps."""
        if math.isnan(self.first[rid]):
            self.first[rid] = t
        self.state[rid] = DECODE
        rep.decoding += 1
        base = self.base[rid] = self.need[rid]
        self.began[rid] = rep.steps
        rep.decode_kv += base
        if self.limited:
            rep.by_phase[int(base - rep.steps) % self.block] += 1
        if self.left[rid] <= 0.0:
            self.complete(rid, rep, t)
            return
        target = rep.steps + self.left[rid]
        self.target[rid] = target
        heapq.heappush(rep.finishes, (target, rid))

    def stop_decoding(self, rid: int, rep: Replica, held: float) -> None:
        """A decoding request holding `held` KV tokens leaves the decoders (its blocks are freed apart)."""
        rep.decoding -= 1
        rep.decode_kv -= held
        if self.limited:
            rep.by_phase[int(self.base[rid] - self.began[rid]) % self.block] -= 1

    def complete(self, rid: int, rep: Replica, t: float) -> None:
        held = self.base[rid] + (rep.steps - self.began[rid])
        rep.kv -= -(-held // self.block)
        self.stop_decoding(rid, rep, held)
        del rep.running[rid]
        rep.held -= 1
        if not rep.draining:
            self.note(rep)
        self.on[rid] = None
        self.finish[rid] = t
        out = self.out[rid]
        self.tpot[rid] = (t - self.first[rid]) / (out - 1.0) if out > 1.0 else math.nan
        self.busy[rep.region] -= 1
        self.nsys -= 1

    # -- what the shared controls ask of the fleet ------------------------------------------------------

    def in_flight(self, r: int | None, t: float) -> list[int]:
        regions = range(self.n_regions) if r is None else (r,)
        return self.holding([rep for g in regions for rep in self.replicas[g]])

    def serving(self, r: int) -> list[Replica]:
        """Region r's replicas that take new requests (not draining), in the order they were added."""
        return [rep for rep in self.replicas[r] if not rep.draining]

    def holding(self, reps: Sequence[Replica]) -> list[int]:
        """The requests waiting or running on `reps`, by id."""
        return sorted(rid for rep in reps for rid in (*rep.waiting, *rep.running))

    def retire(self, reps: Sequence[Replica]) -> None:
        for rep in reps:
            if rep.alive:
                self.drop(rep)

    def lose(self, rids: list[int], t: float, retry: bool) -> None:
        """Take requests off their replicas (a lost replica, region or the provider); retry or fail them."""
        emptied: set[Replica] = set()
        for rid in rids:
            rep = self.on[rid]
            if rep is not None:
                self.release(rid, rep)
                rep.held -= 1
                if rep.alive and not rep.draining:
                    self.note(rep)
                emptied.add(rep)
                self.busy[rep.region] -= 1
                self.retries[rid] += 1
                self.on[rid] = None
            self.need[rid] = self.prompt[rid]
            self.left[rid] = max(self.out[rid] - 1.0, 0.0)
            self.state[rid] = QUEUED
            if retry:
                self.status[rid] = WAITING
                self.start[rid] = self.first[rid] = self.finish[rid] = self.tpot[rid] = math.nan
            else:
                self.fail(rid, t)
                self.nsys -= 1
        for rep in emptied:
            if rep.held == 0:
                rep.epoch += 1  # its step in flight is void
                rep.stepping = False
                rep.kv = rep.waiting_kv = rep.decode_kv = 0.0
                rep.by_phase = [0] * self.block
                if rep.draining and rep.alive:
                    self.drop(rep)

    def release(self, rid: int, rep: Replica) -> None:
        state = self.state[rid]
        if state == DECODE:
            held = self.base[rid] + (rep.steps - self.began[rid])
            rep.kv -= self.blocks(held)
            self.stop_decoding(rid, rep, held)
            del rep.running[rid]
        elif state == PREFILL:
            rep.kv -= self.blocks(self.need[rid])
            del rep.running[rid]
            if rid in rep.prefilling:
                rep.prefilling.remove(rid)
        else:
            rep.waiting.remove(rid)
            rep.waiting_kv -= self.blocks(self.need[rid])

    def result(self) -> FleetRun:
        run = super().result()
        run.preempted = np.frombuffer(self.preempted, dtype=np.int64)
        run.preempt_times = np.frombuffer(self.preempt_times, dtype=np.float64)
        run.swaps = self.swaps
        run.engine_steps = self.engine_steps
        return run


@runtime_checkable
class ReplicaFleet(Protocol):
    """What a replica loss asks of a fleet of engines (this module's, or the compiled one's)."""

    cfg: FleetConfig
    n_regions: int
    run: list[int]
    log: list[tuple[float, str, dict[str, Any]]]

    def lose(self, rids: list[int], t: float, retry: bool) -> None: ...

    def resize(self, r: int) -> None: ...

    def requeue(self, rids: list[int], r: int, t: float) -> None: ...

    def admit(self, r: int, t: float) -> None: ...

    def serving(self, r: int) -> Sequence[Any]: ...

    def holding(self, reps: Sequence[Any]) -> list[int]: ...

    def retire(self, reps: Sequence[Any]) -> None: ...


class EngineControls(Controls):
    """The shared controls, with a replica loss that takes whole replicas (chosen at random) and every
    request they hold (on either fleet of engines)."""

    def replica_loss(self, t: float, payload: tuple[Any, ...]) -> None:
        fleet, event = self.fleet, payload[0]
        assert isinstance(fleet, ReplicaFleet)
        r = int(event["region"]) % fleet.n_regions
        serving = fleet.serving(r)
        k = min(int(event["count"]), fleet.run[r], len(serving))
        victims: list[int] = []
        if k > 0:
            dead = [serving[int(j)] for j in sorted(self.rng.choice(len(serving), size=k, replace=False))]
            victims = fleet.holding(dead)
            fleet.lose(victims, t, fleet.cfg.retry_lost)
            fleet.retire(dead)
            fleet.run[r] -= k
            fleet.resize(r)
            if fleet.cfg.retry_lost:
                fleet.requeue(victims, r, t)
            fleet.admit(r, t)
        fleet.log.append((t, "replica_loss", {"region": r, "count": k, "in_flight": len(victims)}))


def too_long(req: Requests, block: int, admit_cap: float) -> np.ndarray:
    """Requests whose prompt and output cannot fit one replica's KV cache (`admit_cap` blocks of `block`
    tokens): an engine refuses them."""
    assert req.prompt_tokens is not None
    refused: np.ndarray = np.ceil((req.prompt_tokens + req.out_tokens) / block) > admit_cap
    return refused


def simulate_engine_fleet(
    cfg: FleetConfig,
    req: Requests,
    events: Sequence[dict[str, Any]],
    duration_s: float,
    rng: np.random.Generator,
    sample_dt: float,
    progress: Callable[[float], None] | None = None,
    progress_dt: float = INF,
    max_steps: float = INF,
    fleet_type: Callable[..., Fleet] | None = None,
) -> FleetRun:
    """Run the fleet of engines for `duration_s`; past `max_steps` engine steps it raises ValueError.
    `fleet_type` None runs this module's loop (the reference); else a fleet made as `fleet_type(cfg, req,
    duration_s, sample_dt, max_steps)` runs its own `run_loop(controls)` (engine_compiled's)."""
    if fleet_type is None:
        fleet = EngineFleet(cfg, req, duration_s, sample_dt)
        controls = EngineControls(fleet, rng, progress, progress_dt)
        controls.schedule(events)
        run_engine_loop(fleet, controls, too_long(req, fleet.block, fleet.admit_cap).tolist(), max_steps)
        return fleet.result()
    other = fleet_type(cfg, req, duration_s, sample_dt, max_steps)
    controls = EngineControls(other, rng, progress, progress_dt)
    controls.schedule(events)
    other.run_loop(controls)  # type: ignore[attr-defined]
    return other.result()


def run_engine_loop(fleet: EngineFleet, controls: Controls, refused: list[bool], max_steps: float) -> None:
    """Interleave arrivals, step ends and control events in time order (step ends first at a tie, then
    controls, then arrivals) until the end event."""
    heappop = heapq.heappop
    arr, n, steps, ctl = fleet.arr, fleet.n, fleet.steps_heap, fleet.ctl
    queues, home, qlimit = fleet.queues, fleet.home, fleet.cfg.queue_limit
    single, routing = fleet.n_regions == 1, fleet.cfg.routing
    end_step, pull, begin_step = fleet.end_step, fleet.pull, fleet.begin_step
    area, tlast = fleet.area, fleet.tlast  # ∫ nsys dt, kept here: only this loop reads or writes it
    i = 0
    ta = arr[0] if n else INF
    while True:
        ts = steps[0][0] if steps else INF
        tc = ctl[0][0]
        if ts <= tc and ts <= ta:
            area += fleet.nsys * (ts - tlast)
            tlast = ts
            _, _, rep, epoch = heappop(steps)
            if epoch != rep.epoch or not rep.alive:
                continue
            end_step(rep, ts)
            if queues[rep.region] and not rep.draining:
                pull(rep, ts)
            begin_step(rep, ts)
            if fleet.engine_steps > max_steps:
                raise ValueError(
                    f"serving: the engines ran more than {max_steps:,.0f} steps, more than one replay may "
                    "simulate (tpot_s, prefill_tok_s, max_batched_tokens or the load are too extreme)"
                )
        elif tc <= ta:
            area += fleet.nsys * (tc - tlast)
            tlast = tc
            _, kind, _, payload = heappop(ctl)
            if kind == _END:
                break
            controls.handle(tc, kind, payload)
        else:
            area += fleet.nsys * (ta - tlast)
            tlast = ta
            rid = i
            i += 1
            t, ta = ta, (arr[i] if i < n else INF)
            if fleet.outage:
                fleet.fallback(rid, t)
                continue
            if refused[rid]:
                fleet.status[rid] = REJECTED
                fleet.finish[rid] = t
                continue
            r = 0 if single else home[rid]
            if not single and (routing == 1 or not fleet.alive[r]):
                r = fleet.least_loaded()
                if r < 0:
                    fleet.fail(rid, t)
                    continue
            q = queues[r]
            if q and fleet.timeout > 0.0:
                fleet.purge(r, t)
            fleet.nsys += 1
            if q or not fleet.route(rid, r, t):
                if len(q) >= qlimit:
                    fleet.status[rid] = REJECTED
                    fleet.finish[rid] = t
                    fleet.nsys -= 1
                else:
                    q.append(rid)
    fleet.area, fleet.tlast = area, tlast
