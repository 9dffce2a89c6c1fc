"""The engine's step loop compiled with numba: the same rules as `engine.py` (the reference, kept in Python),
written over flat arrays so that numba compiles it.

State is a tuple of arrays (`State`), struct-of-arrays, rows named by the constants below:

- per request, `QF` (float64) and `QI` (int64) rows: the request's inputs and records, and the links of the
  three ordered lists it may be on: a queue (a region's FCFS queue or a replica's waiting list, `QNEXT`),
  a replica's running list in admission order (`RNEXT`) and its prefilling list (`PNEXT`); a step's chunks
  and swap-ins are lists too (`CNEXT`, `SNEXT`). Doubly linked where something leaves from the middle.
- per replica (`RF`, `RI`, by the replica's number; a dropped replica keeps its slot): counts, KV, the heads
  and tails of its lists, and `PH`, the decoding requests by KV phase within a block.
- per replica, a heap of (finish step, request) in `HT`/`HR` (a row each), with each request's place in it
  (`HPOS`), so a request leaving its decodes leaves the heap at once. A heap holds at most the replica's
  decoding requests, and only a step's end adds to it, so rows as long as the most requests a replica has
  held (`MAXHELD`) never overflow within an event; the loop asks for longer rows when that grows.
- per region (`GI`): the queue's head, tail and length, requests in service, slots, whether it is alive, and
  its serving replicas (`MEM`, kept by the Python side, which alone adds, drains or drops them).
- the fleet's scalars (`S`, `K`), the configuration (`C`), the heap of step ends (`SHF` time, `SHI` seq,
  replica, epoch) and the preemption times (`PT`).

`run_until` interleaves step ends and arrivals up to the next control event, which the Python side applies
(`engine_compiled.py`). Every operation is the reference's, in the reference's order, so the records are the
same bit for bit (tests/core/test_sim_compiled_engine.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from grading.core.sim.queueing import FAILED, FALLBACK, REJECTED, SERVED, TIMED_OUT, WAITING

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]
Links = NDArray[np.int32] | NDArray[np.int64]  # a list's links: per request (int32) or per replica


def kernel[Function: Callable[..., Any]](function: Function) -> Function:
    """Compile with numba, cached on disk, without reference counting: the loop only reads and writes arrays
    it is handed, and numba's atomic reference counts on every row view and State field took 60% of its time
    (perf; the loop ran no faster than the Python reference with them). It releases the GIL, so a scenario's
    seeds run in threads at once (`seeds.run_scenario_seeds`).

    Inlined into its callers by LLVM (`forceinline`): a State is 15 arrays passed by value, about 120 machine
    words pushed for every call LLVM chose not to inline, and those pushes were 35% of the loop's samples
    (perf, hit-rate-dips); inlined, a run's loop takes half the time, for a cold compile of ~22 s, not ~18 s.
    Division follows numpy's rules (`error_model`: no zero check before each one; no divisor here is zero)."""
    compile_ = njit(cache=True, _nrt=False, nogil=True, error_model="numpy", forceinline=True)  # type: ignore[call-overload]
    return cast(Function, compile_(function))


def allocating[Function: Callable[..., Any]](function: Function) -> Function:
    """Compile with numba, cached on disk, with reference counting: for the few calls that make arrays."""
    return cast(Function, njit(cache=True)(function))


class State(NamedTuple):
    """What the kernels read and write (the rows are named above)."""

    QF: Floats
    QI: NDArray[np.int32]
    RF: Floats
    RI: Ints
    PH: Ints
    HT: Floats
    HR: Ints
    GI: Ints
    MEM: Ints
    S: Floats
    K: Ints
    C: Floats
    SHF: Floats
    SHI: Ints
    PT: Floats


QUEUED, PREFILL, DECODE, SWAPPED = 0, 1, 2, 3

# QF rows (per request, float64)
ARR, ENQ, NEED, TODO, BASE, TARGET, LEFT, OUT, PROMPT, START, FIRST, FINISH, TPOT, CHUNK = range(14)
N_F = 14
# QI rows (per request, int64)
(BEGAN, PREEMPTED, RETRIES, WHERE, HOME, ON, STATE, STATUS, REFUSED, QNEXT, QPREV, RNEXT, RPREV) = range(13)
PNEXT, PPREV, INPF, CNEXT, SNEXT, HPOS = range(13, 19)
N_I = 19
# RF rows (per replica, float64)
WAITING_KV, DECODE_KV, KV = range(3)
N_RF = 3
# RI rows (per replica, int64)
(REGION, ALIVE, DRAINING, EPOCH, HELD, STEPS, DECODING, STEPPING, STEP_DECODES, HSIZE) = range(10)
WHEAD, WTAIL, RHEAD, RTAIL, PHEAD, PTAIL, CHEAD, CTAIL, SHEAD, STAIL = range(10, 20)
N_RI = 20
# GI rows (per region, int64)
QHEAD, QTAIL, QLEN, BUSY, SLOTS, RALIVE, MCOUNT = range(7)
N_GI = 7
# S (float64) and K (int64) scalars
AREA, TLAST, FB_TOKENS, FB_LAST = range(4)
N_S = 4
NSYS, ENGINE_STEPS, STEP_SEQ, SWAPS, OUTAGE, NPRE, NEXT_ARRIVAL, HEAPN, MAXHELD = range(9)
N_K = 9
# C: the configuration
BATCH, ADMIT_CAP, KV_CAP, BLOCK, BUDGET, CHUNKED, LIMITED, SWAP_S, PREEMPT_SWAP, TIMEOUT = range(10)
QLIMIT, ROUTING, SINGLE, FB_RATE, FB_TTFT, FB_TPOT, MAX_STEPS = range(10, 17)
OVERHEAD, WEIGHTS, SPEED, KV_READ, PAIR, LINK_STEP, LINK_TOKEN = range(17, 24)
N_C = 24

# run_until's answers
AT_CONTROL, GROW, TOO_MANY_STEPS = 0, 1, 2


@kernel
def blocks(tokens: float, block: float) -> float:
    """engine.Engine.blocks: the same for a whole number of tokens, without float floor division (a call to
    fmod, 6% of the loop)."""
    return float(math.ceil(tokens / block))


# -- lists ----------------------------------------------------------------------------------------------


@kernel
def push_back(nxt: Links, prv: Links, heads: Links, tails: Links, c: int, x: int) -> None:
    last = tails[c]
    nxt[x] = -1
    prv[x] = last
    if last < 0:
        heads[c] = x
    else:
        nxt[last] = x
    tails[c] = x


@kernel
def push_front(nxt: Links, prv: Links, heads: Links, tails: Links, c: int, x: int) -> None:
    first = heads[c]
    prv[x] = -1
    nxt[x] = first
    if first < 0:
        tails[c] = x
    else:
        prv[first] = x
    heads[c] = x


@kernel
def unlink(nxt: Links, prv: Links, heads: Links, tails: Links, c: int, x: int) -> None:
    before, after = prv[x], nxt[x]
    if before < 0:
        heads[c] = after
    else:
        nxt[before] = after
    if after < 0:
        tails[c] = before
    else:
        prv[after] = before


@kernel
def push_single(nxt: Links, heads: Links, tails: Links, c: int, x: int) -> None:
    """Append to a singly linked list (a step's chunks or swap-ins: read once, front to back)."""
    nxt[x] = -1
    if tails[c] < 0:
        heads[c] = x
    else:
        nxt[tails[c]] = x
    tails[c] = x


# -- heaps ----------------------------------------------------------------------------------------------


@kernel
def step_before(SHF: Floats, SHI: Ints, a: int, b: int) -> bool:
    return bool(SHF[a] < SHF[b] or (SHF[a] == SHF[b] and SHI[0, a] < SHI[0, b]))


@kernel
def step_swap(SHF: Floats, SHI: Ints, a: int, b: int) -> None:
    SHF[a], SHF[b] = SHF[b], SHF[a]
    for k in range(3):
        SHI[k, a], SHI[k, b] = SHI[k, b], SHI[k, a]


@kernel
def push_step(st: State, t: float, rep: int) -> None:
    SHF, SHI, K, RI = st.SHF, st.SHI, st.K, st.RI
    K[STEP_SEQ] += 1
    j = K[HEAPN]
    K[HEAPN] = j + 1
    SHF[j] = t
    SHI[0, j], SHI[1, j], SHI[2, j] = K[STEP_SEQ], rep, RI[EPOCH, rep]
    while j > 0:
        parent = (j - 1) // 2
        if not step_before(SHF, SHI, j, parent):
            break
        step_swap(SHF, SHI, j, parent)
        j = parent


@kernel
def pop_step(st: State) -> tuple[int, int]:
    """Remove the earliest step end; returns (replica, epoch)."""
    SHF, SHI, K = st.SHF, st.SHI, st.K
    rep, epoch = SHI[1, 0], SHI[2, 0]
    last = K[HEAPN] - 1
    K[HEAPN] = last
    if last > 0:
        step_swap(SHF, SHI, 0, last)
        j = 0
        while True:
            low, left, right = j, 2 * j + 1, 2 * j + 2
            if left < last and step_before(SHF, SHI, left, low):
                low = left
            if right < last and step_before(SHF, SHI, right, low):
                low = right
            if low == j:
                break
            step_swap(SHF, SHI, j, low)
            j = low
    return rep, epoch


@kernel
def finish_before(keys: Floats, rids: Ints, a: int, b: int) -> bool:
    return bool(keys[a] < keys[b] or (keys[a] == keys[b] and rids[a] < rids[b]))


@kernel
def finish_swap(keys: Floats, rids: Ints, hpos: Links, a: int, b: int) -> None:
    keys[a], keys[b] = keys[b], keys[a]
    rids[a], rids[b] = rids[b], rids[a]
    hpos[rids[a]] = a
    hpos[rids[b]] = b


@kernel
def finish_sift(keys: Floats, rids: Ints, hpos: Links, size: int, j: int) -> None:
    while j > 0:
        parent = (j - 1) // 2
        if not finish_before(keys, rids, j, parent):
            break
        finish_swap(keys, rids, hpos, j, parent)
        j = parent
    while True:
        low, left, right = j, 2 * j + 1, 2 * j + 2
        if left < size and finish_before(keys, rids, left, low):
            low = left
        if right < size and finish_before(keys, rids, right, low):
            low = right
        if low == j:
            return
        finish_swap(keys, rids, hpos, j, low)
        j = low


@kernel
def push_finish(st: State, rep: int, target: float, rid: int) -> None:
    size = st.RI[HSIZE, rep]
    keys, rids = st.HT[rep], st.HR[rep]
    keys[size], rids[size] = target, rid
    st.QI[HPOS, rid] = size
    st.RI[HSIZE, rep] = size + 1
    finish_sift(keys, rids, st.QI[HPOS], size + 1, size)


@kernel
def drop_finish(st: State, rep: int, rid: int) -> None:
    """Take a request out of its replica's finish heap (popped or leaving its decodes)."""
    hpos = st.QI[HPOS]
    j = hpos[rid]
    if j < 0:
        return
    keys, rids = st.HT[rep], st.HR[rep]
    last = st.RI[HSIZE, rep] - 1
    st.RI[HSIZE, rep] = last
    hpos[rid] = -1
    if j != last:
        keys[j], rids[j] = keys[last], rids[last]
        hpos[rids[j]] = j
        finish_sift(keys, rids, hpos, last, j)


# -- the step's time --------------------------------------------------------------------------------------


@kernel
def step_seconds(C: Floats, tokens: float, decode_kv: float, prefill_kv: float, pairs: float) -> float:
    """engine.step_clock's `seconds`, term for term in the same order (same rounding)."""
    weights, kv_read, pair = C[WEIGHTS], C[KV_READ], C[PAIR]
    decode_rate = kv_read if kv_read > pair else pair
    compute = tokens / C[SPEED]
    read, attend = prefill_kv * kv_read, pairs * pair
    return float(
        C[OVERHEAD]
        + (compute if compute > weights else weights)
        + decode_kv * decode_rate
        + (attend if attend > read else read)
        + C[LINK_STEP]
        + C[LINK_TOKEN] * tokens
    )


# -- replicas and queues ----------------------------------------------------------------------------------


@kernel
def drop(st: State, rep: int) -> None:
    st.RI[ALIVE, rep] = 0
    st.RI[EPOCH, rep] += 1


@kernel
def has_room(st: State, rep: int, rid: int) -> bool:
    RI, RF, C = st.RI, st.RF, st.C
    return bool(
        RI[HELD, rep] < C[BATCH]
        and RF[KV, rep] + RF[WAITING_KV, rep] + blocks(st.QF[NEED, rid], C[BLOCK]) <= C[ADMIT_CAP]
        and RI[DRAINING, rep] == 0
    )


@kernel
def place(st: State, rid: int, rep: int, t: float) -> None:
    """Hand a request to a replica's waiting list; an idle replica starts a step at once."""
    QF, QI, RI = st.QF, st.QI, st.RI
    push_back(QI[QNEXT], QI[QPREV], RI[WHEAD], RI[WTAIL], rep, rid)
    st.RF[WAITING_KV, rep] += blocks(QF[NEED, rid], st.C[BLOCK])
    QI[ON, rid] = rep
    QI[STATE, rid] = QUEUED
    RI[HELD, rep] += 1
    if RI[HELD, rep] > st.K[MAXHELD]:
        st.K[MAXHELD] = RI[HELD, rep]
    region = RI[REGION, rep]
    st.GI[BUSY, region] += 1
    QF[START, rid] = t
    QI[STATUS, rid] = SERVED
    QI[WHERE, rid] = region
    if RI[STEPPING, rep] == 0:
        begin_step(st, rep, t)


@kernel
def route(st: State, rid: int, r: int, t: float) -> bool:
    """Place an arrival on the least-held serving replica of region r with room (lowest number on ties)."""
    RI, RF, C = st.RI, st.RF, st.C
    need = blocks(st.QF[NEED, rid], C[BLOCK])
    best = -1
    for k in range(st.GI[MCOUNT, r]):
        rep = st.MEM[r, k]
        held = RI[HELD, rep]
        if (
            held < C[BATCH]
            and (best < 0 or held < RI[HELD, best])
            and RF[KV, rep] + RF[WAITING_KV, rep] + need <= C[ADMIT_CAP]
        ):
            best = rep
    if best < 0:
        return False
    place(st, rid, best, t)
    return True


@kernel
def queue_pop(st: State, r: int) -> int:
    QI, GI = st.QI, st.GI
    rid = int(GI[QHEAD, r])
    unlink(QI[QNEXT], QI[QPREV], GI[QHEAD], GI[QTAIL], r, rid)
    GI[QLEN, r] -= 1
    return rid


@kernel
def queue_push(st: State, r: int, rid: int) -> None:
    push_back(st.QI[QNEXT], st.QI[QPREV], st.GI[QHEAD], st.GI[QTAIL], r, rid)
    st.GI[QLEN, r] += 1


@kernel
def purge(st: State, r: int, t: float) -> None:
    """Time out the requests at the front of region r's queue that waited longer than the timeout."""
    QF, QI, GI = st.QF, st.QI, st.GI
    timeout = st.C[TIMEOUT]
    limit = t - timeout
    while GI[QLEN, r] > 0 and QF[ENQ, GI[QHEAD, r]] < limit:
        rid = queue_pop(st, r)
        QI[STATUS, rid] = TIMED_OUT
        QF[FINISH, rid] = QF[ENQ, rid] + timeout
        st.K[NSYS] -= 1


@kernel
def pull(st: State, rep: int, t: float) -> None:
    """A replica with room takes requests from the front of its region's queue."""
    r = st.RI[REGION, rep]
    GI = st.GI
    if GI[QLEN, r] > 0 and st.C[TIMEOUT] > 0.0:
        purge(st, r, t)
    while GI[QLEN, r] > 0 and has_room(st, rep, GI[QHEAD, r]):
        place(st, queue_pop(st, r), rep, t)


@allocating
def admit(st: State, r: int, t: float) -> None:
    """Give region r's queued requests to its serving replicas with room, least-held first."""
    if st.C[TIMEOUT] > 0.0 and st.GI[QLEN, r] > 0:
        purge(st, r, t)
    count = st.GI[MCOUNT, r]
    members = st.MEM[r, :count].copy()
    order = np.argsort(st.RI[HELD][members] * (members.max() + 1 if count else 1) + members)
    for k in range(count):
        if st.GI[QLEN, r] == 0:
            return
        pull(st, members[order[k]], t)


@kernel
def least_loaded(st: State) -> int:
    """The live region with the lowest (queued + in service) / slots; -1 if none is alive."""
    GI = st.GI
    best, best_load = -1, math.inf
    for r in range(GI.shape[1]):
        if GI[RALIVE, r] == 0:
            continue
        load = (GI[QLEN, r] + GI[BUSY, r]) / max(GI[SLOTS, r], 1)
        if load < best_load:
            best, best_load = r, load
    return best


@kernel
def fallback(st: State, rid: int, t: float) -> None:
    """Send a request to the fallback provider (a token bucket of the fallback rate), else reject it."""
    QF, QI, S, C = st.QF, st.QI, st.S, st.C
    rate = C[FB_RATE]
    S[FB_TOKENS] = min(max(1.0, rate), S[FB_TOKENS] + (t - S[FB_LAST]) * rate)
    S[FB_LAST] = t
    if rate > 0.0 and S[FB_TOKENS] >= 1.0:
        S[FB_TOKENS] -= 1.0
        QI[STATUS, rid] = FALLBACK
        QF[START, rid] = t
        QF[FIRST, rid] = t + C[FB_TTFT]
        QF[TPOT, rid] = C[FB_TPOT]
        QF[FINISH, rid] = t + C[FB_TTFT] + QF[OUT, rid] * C[FB_TPOT]
    else:
        QI[STATUS, rid] = REJECTED
        QF[FINISH, rid] = t


# -- one engine step --------------------------------------------------------------------------------------


@kernel
def stop_decoding(st: State, rid: int, rep: int, held: float) -> None:
    """A decoding request holding `held` KV tokens leaves the decoders (its blocks are freed apart)."""
    RI = st.RI
    RI[DECODING, rep] -= 1
    st.RF[DECODE_KV, rep] -= held
    if st.C[LIMITED] != 0.0:
        st.PH[rep, int(st.QF[BASE, rid] - st.QI[BEGAN, rid]) % int(st.C[BLOCK])] -= 1
    drop_finish(st, rep, rid)


@kernel
def leave_prefilling(st: State, rid: int, rep: int) -> None:
    QI = st.QI
    if QI[INPF, rid]:
        unlink(QI[PNEXT], QI[PPREV], st.RI[PHEAD], st.RI[PTAIL], rep, rid)
        QI[INPF, rid] = 0


@kernel
def preempt(st: State, rep: int, t: float) -> float:
    """Preempt the newest running request; returns the swap-out time it costs (0 for recompute)."""
    QF, QI, RI, RF, C, K = st.QF, st.QI, st.RI, st.RF, st.C, st.K
    rid = RI[RTAIL, rep]
    unlink(QI[RNEXT], QI[RPREV], RI[RHEAD], RI[RTAIL], rep, rid)
    decoding = QI[STATE, rid] == DECODE
    if decoding:
        done = RI[STEPS, rep] - QI[BEGAN, rid]
        held = QF[BASE, rid] + done
        QF[LEFT, rid] -= done
        stop_decoding(st, rid, rep, held)
    else:
        held = QF[NEED, rid]
        leave_prefilling(st, rid, rep)
    RF[KV, rep] -= blocks(held, C[BLOCK])
    QF[NEED, rid] = held
    swap = C[PREEMPT_SWAP] != 0.0 and decoding
    QI[STATE, rid] = SWAPPED if swap else QUEUED
    push_front(QI[QNEXT], QI[QPREV], RI[WHEAD], RI[WTAIL], rep, rid)
    RF[WAITING_KV, rep] += blocks(held, C[BLOCK])
    QI[PREEMPTED, rid] += 1
    st.PT[K[NPRE]] = t
    K[NPRE] += 1
    if swap:
        K[SWAPS] += 1
        return float(held * C[SWAP_S])
    return 0.0


@kernel
def start_prefill(st: State, rep: int, rid: int) -> None:
    """Move the waiting head onto the GPU: its KV is reserved, its prefill starts."""
    QF, QI, RI, RF = st.QF, st.QI, st.RI, st.RF
    unlink(QI[QNEXT], QI[QPREV], RI[WHEAD], RI[WTAIL], rep, rid)
    need_blocks = blocks(QF[NEED, rid], st.C[BLOCK])
    RF[WAITING_KV, rep] -= need_blocks
    RF[KV, rep] += need_blocks
    push_back(QI[RNEXT], QI[RPREV], RI[RHEAD], RI[RTAIL], rep, rid)
    QF[TODO, rid] = QF[NEED, rid]
    QI[STATE, rid] = PREFILL
    push_back(QI[PNEXT], QI[PPREV], RI[PHEAD], RI[PTAIL], rep, rid)
    QI[INPF, rid] = 1


@kernel
def add_chunk(st: State, rep: int, rid: int, c: float) -> None:
    st.QF[CHUNK, rid] = c
    push_single(st.QI[CNEXT], st.RI[CHEAD], st.RI[CTAIL], rep, rid)


@kernel
def clear_step_lists(RI: Ints, rep: int) -> None:
    RI[CHEAD, rep] = RI[CTAIL, rep] = RI[SHEAD, rep] = RI[STAIL, rep] = -1


@kernel
def compose_prefill(st: State, rep: int) -> tuple[float, float, float]:
    """Serial prefill: whole prompts from the waiting list while they fit the budget (the first always) and
    the KV; decoding stalls. Returns the step's tokens, the KV its attention reads and its pairs."""
    QF, QI, RI, RF, C = st.QF, st.QI, st.RI, st.RF, st.C
    clear_step_lists(RI, rep)
    tokens = pairs = 0.0
    chunks = 0
    while RI[WHEAD, rep] >= 0:
        rid = RI[WHEAD, rep]
        need = QF[NEED, rid]
        if (
            QI[STATE, rid] == SWAPPED
            or RF[KV, rep] + blocks(need, C[BLOCK]) > C[ADMIT_CAP]
            or (chunks > 0 and tokens + need > C[BUDGET])
        ):
            break
        start_prefill(st, rep, rid)
        add_chunk(st, rep, rid, need)
        chunks += 1
        tokens += need
        pairs += need * (need + 1.0) / 2.0
    return tokens, tokens, pairs


@kernel
def compose_mixed(st: State, rep: int, t: float) -> tuple[int, float, float, float, float]:
    """A decode token for every decoding request (preempting the newest while the KV blocks cannot grow),
    then prefill chunks in the budget left, FCFS, admitted while they leave the watermark free; swapped
    requests come back when their KV fits. Returns (decodes, tokens, swap time, prefill KV, pairs)."""
    QF, QI, RI, RF, C = st.QF, st.QI, st.RI, st.RF, st.C
    block = C[BLOCK]
    phase = st.PH[rep]
    swap_time = 0.0
    decodes = RI[DECODING, rep]
    grow = phase[(-RI[STEPS, rep]) % int(block)] if decodes else 0
    while decodes and RF[KV, rep] + grow > C[KV_CAP]:
        swap_time += preempt(st, rep, t)
        decodes = RI[DECODING, rep]
        grow = phase[(-RI[STEPS, rep]) % int(block)]
    clear_step_lists(RI, rep)
    budget = C[BUDGET] - decodes
    tokens = float(decodes)
    prefill_kv = pairs = 0.0
    chunked = C[CHUNKED] != 0.0
    if chunked:
        rid = RI[PHEAD, rep]
        while rid >= 0:
            if budget <= 0.0:
                break
            todo = QF[TODO, rid]
            c = todo if todo <= budget else budget
            done = QF[NEED, rid] - todo
            add_chunk(st, rep, rid, c)
            budget -= c
            tokens += c
            prefill_kv += done + c
            pairs += c * done + c * (c + 1.0) / 2.0
            rid = QI[PNEXT, rid]
    while RI[WHEAD, rep] >= 0:
        rid = RI[WHEAD, rep]
        need = QF[NEED, rid]
        need_blocks = blocks(need, block)
        if RF[KV, rep] + grow + need_blocks > C[ADMIT_CAP]:
            break
        if QI[STATE, rid] == SWAPPED:
            unlink(QI[QNEXT], QI[QPREV], RI[WHEAD], RI[WTAIL], rep, rid)
            RF[WAITING_KV, rep] -= need_blocks
            RF[KV, rep] += need_blocks
            push_back(QI[RNEXT], QI[RPREV], RI[RHEAD], RI[RTAIL], rep, rid)
            QI[STATE, rid] = PREFILL  # on its way back to the GPU; it decodes from the step's end
            push_single(QI[SNEXT], RI[SHEAD], RI[STAIL], rep, rid)
            swap_time += need * C[SWAP_S]
            continue
        if not chunked or budget <= 0.0:
            break
        start_prefill(st, rep, rid)
        c = need if need <= budget else budget
        add_chunk(st, rep, rid, c)
        budget -= c
        tokens += c
        prefill_kv += c
        pairs += c * (c + 1.0) / 2.0
    return decodes, tokens, swap_time, prefill_kv, pairs


@kernel
def begin_step(st: State, rep: int, t: float) -> None:
    """Compose the replica's next step at t and schedule its end; an empty replica goes idle."""
    QF, QI, RI, RF, C = st.QF, st.QI, st.RI, st.RF, st.C
    head = RI[WHEAD, rep]
    block = C[BLOCK]
    if (
        head >= 0
        and C[CHUNKED] == 0.0
        and QI[STATE, head] != SWAPPED
        and RF[KV, rep] + blocks(QF[NEED, head], block) <= C[ADMIT_CAP]
    ):
        tokens, prefill_kv, pairs = compose_prefill(st, rep)
        decodes, swap_time, decode_kv = 0, 0.0, 0.0
    elif (
        head >= 0
        or RI[PHEAD, rep] >= 0
        or (C[LIMITED] != 0.0 and RF[KV, rep] + st.PH[rep, (-RI[STEPS, rep]) % int(block)] > C[KV_CAP])
    ):
        decodes, tokens, swap_time, prefill_kv, pairs = compose_mixed(st, rep, t)
        decode_kv = RF[DECODE_KV, rep]
    else:  # decodes alone, and their KV grows into room
        decodes = RI[DECODING, rep]
        tokens, swap_time, decode_kv, prefill_kv, pairs = float(decodes), 0.0, RF[DECODE_KV, rep], 0.0, 0.0
        clear_step_lists(RI, rep)
    if tokens <= 0.0 and RI[SHEAD, rep] < 0:
        RI[STEPPING, rep] = 0
        if RI[DRAINING, rep] != 0 and RI[HELD, rep] == 0:
            drop(st, rep)
        return
    dt = step_seconds(C, tokens, decode_kv, prefill_kv, pairs) + swap_time
    RI[STEPPING, rep] = 1
    RI[STEP_DECODES, rep] = decodes
    st.K[ENGINE_STEPS] += 1
    push_step(st, t + dt, rep)


@kernel
def complete(st: State, rid: int, rep: int, t: float) -> None:
    QF, QI, RI = st.QF, st.QI, st.RI
    held = QF[BASE, rid] + (RI[STEPS, rep] - QI[BEGAN, rid])
    st.RF[KV, rep] -= blocks(held, st.C[BLOCK])
    stop_decoding(st, rid, rep, held)
    unlink(QI[RNEXT], QI[RPREV], RI[RHEAD], RI[RTAIL], rep, rid)
    RI[HELD, rep] -= 1
    QI[ON, rid] = -1
    QF[FINISH, rid] = t
    out = QF[OUT, rid]
    QF[TPOT, rid] = (t - QF[FIRST, rid]) / (out - 1.0) if out > 1.0 else math.nan
    st.GI[BUSY, RI[REGION, rep]] -= 1
    st.K[NSYS] -= 1


@kernel
def decode_from(st: State, rid: int, rep: int, t: float) -> None:
    """A request's prefill (or swap-in) is done at t: its first token, then decode steps."""
    QF, QI, RI = st.QF, st.QI, st.RI
    if math.isnan(QF[FIRST, rid]):
        QF[FIRST, rid] = t
    QI[STATE, rid] = DECODE
    RI[DECODING, rep] += 1
    base = QF[NEED, rid]
    QF[BASE, rid] = base
    QI[BEGAN, rid] = RI[STEPS, rep]
    st.RF[DECODE_KV, rep] += base
    if st.C[LIMITED] != 0.0:
        st.PH[rep, int(base - RI[STEPS, rep]) % int(st.C[BLOCK])] += 1
    if QF[LEFT, rid] <= 0.0:
        complete(st, rid, rep, t)
        return
    target = RI[STEPS, rep] + QF[LEFT, rid]
    QF[TARGET, rid] = target
    push_finish(st, rep, target, rid)


@kernel
def end_step(st: State, rep: int, t: float) -> None:
    """Apply the step that ends at t: a token for each decode, prefill chunks, finishes."""
    QF, QI, RI = st.QF, st.QI, st.RI
    decodes = RI[STEP_DECODES, rep]
    if decodes:
        if st.C[LIMITED] != 0.0:  # a new block for each decode that filled its last
            st.RF[KV, rep] += st.PH[rep, (-RI[STEPS, rep]) % int(st.C[BLOCK])]
        steps = RI[STEPS, rep] + 1
        RI[STEPS, rep] = steps
        st.RF[DECODE_KV, rep] += decodes
        while RI[HSIZE, rep] > 0 and st.HT[rep, 0] <= steps:
            target, rid = st.HT[rep, 0], st.HR[rep, 0]
            drop_finish(st, rep, rid)
            if QI[ON, rid] == rep and QI[STATE, rid] == DECODE and QF[TARGET, rid] == target:
                complete(st, rid, rep, t)
    rid = RI[CHEAD, rep]
    while rid >= 0:
        following = QI[CNEXT, rid]
        if QI[ON, rid] == rep and QI[STATE, rid] == PREFILL:
            QF[TODO, rid] -= QF[CHUNK, rid]
            if QF[TODO, rid] <= 0.0:
                leave_prefilling(st, rid, rep)
                decode_from(st, rid, rep, t)
        rid = following
    rid = RI[SHEAD, rep]
    while rid >= 0:
        following = QI[SNEXT, rid]
        if QI[ON, rid] == rep and QI[STATE, rid] == PREFILL:
            decode_from(st, rid, rep, t)
        rid = following


# -- the loop -------------------------------------------------------------------------------------------


@kernel
def arrive(st: State, rid: int, t: float) -> None:
    """An arrival: the fallback during an outage, refused if it can never fit, else routed or queued."""
    QF, QI, GI, C, K = st.QF, st.QI, st.GI, st.C, st.K
    if K[OUTAGE]:
        fallback(st, rid, t)
        return
    if QI[REFUSED, rid]:
        QI[STATUS, rid] = REJECTED
        QF[FINISH, rid] = t
        return
    single = C[SINGLE] != 0.0
    r = 0 if single else QI[HOME, rid]
    if not single and (C[ROUTING] == 1.0 or GI[RALIVE, r] == 0):
        r = least_loaded(st)
        if r < 0:
            QI[STATUS, rid] = FAILED
            QF[FINISH, rid] = t
            return
    if GI[QLEN, r] > 0 and C[TIMEOUT] > 0.0:
        purge(st, r, t)
    K[NSYS] += 1
    if GI[QLEN, r] > 0 or not route(st, rid, r, t):
        if GI[QLEN, r] >= C[QLIMIT]:
            QI[STATUS, rid] = REJECTED
            QF[FINISH, rid] = t
            K[NSYS] -= 1
        else:
            queue_push(st, r, rid)


@kernel
def room_to_grow(st: State) -> bool:
    """Whether the step heap and the preemption times have room for the next event's worst case."""
    K = st.K
    return bool(
        K[HEAPN] + 1 < st.SHF.size and K[NPRE] + K[NSYS] + 2 <= st.PT.size and K[MAXHELD] < st.HT.shape[1]
    )


@kernel
def run_until(st: State, tc: float) -> int:
    """Interleave step ends and arrivals in time order (step ends first at a tie) until the next control
    event at tc is due; returns AT_CONTROL, GROW (a buffer needs room first) or TOO_MANY_STEPS."""
    QF, RI, S, K, C = st.QF, st.RI, st.S, st.K, st.C
    n = QF.shape[1]
    arrivals = QF[ARR]
    area, tlast = S[AREA], S[TLAST]
    answer = AT_CONTROL
    while True:
        if not room_to_grow(st):
            answer = GROW
            break
        i = K[NEXT_ARRIVAL]
        ts = st.SHF[0] if K[HEAPN] > 0 else math.inf
        ta = arrivals[i] if i < n else math.inf
        if ts <= tc and ts <= ta:
            area += K[NSYS] * (ts - tlast)
            tlast = ts
            rep, epoch = pop_step(st)
            if epoch != RI[EPOCH, rep] or RI[ALIVE, rep] == 0:
                continue
            end_step(st, rep, ts)
            if st.GI[QLEN, RI[REGION, rep]] > 0 and RI[DRAINING, rep] == 0:
                pull(st, rep, ts)
            begin_step(st, rep, ts)
            if K[ENGINE_STEPS] > C[MAX_STEPS]:
                answer = TOO_MANY_STEPS
                break
        elif tc <= ta:
            break
        else:
            area += K[NSYS] * (ta - tlast)
            tlast = ta
            K[NEXT_ARRIVAL] = i + 1
            arrive(st, i, ta)
    S[AREA], S[TLAST] = area, tlast
    return answer


@kernel
def release(st: State, rid: int, rep: int) -> None:
    """Take a request off its replica's lists and KV (a loss)."""
    QF, QI, RI, RF, C = st.QF, st.QI, st.RI, st.RF, st.C
    state = QI[STATE, rid]
    if state == DECODE:
        held = QF[BASE, rid] + (RI[STEPS, rep] - QI[BEGAN, rid])
        RF[KV, rep] -= blocks(held, C[BLOCK])
        stop_decoding(st, rid, rep, held)
        unlink(QI[RNEXT], QI[RPREV], RI[RHEAD], RI[RTAIL], rep, rid)
    elif state == PREFILL:
        RF[KV, rep] -= blocks(QF[NEED, rid], C[BLOCK])
        unlink(QI[RNEXT], QI[RPREV], RI[RHEAD], RI[RTAIL], rep, rid)
        leave_prefilling(st, rid, rep)
    else:
        unlink(QI[QNEXT], QI[QPREV], RI[WHEAD], RI[WTAIL], rep, rid)
        RF[WAITING_KV, rep] -= blocks(QF[NEED, rid], C[BLOCK])


@allocating
def lose(st: State, rids: Ints, t: float, retry: bool) -> None:
    """Take requests off their replicas (a lost replica, region or the provider); retry or fail them."""
    QF, QI, RI, RF = st.QF, st.QI, st.RI, st.RF
    emptied = np.zeros(RI.shape[1], np.bool_)
    for rid in rids:
        rep = QI[ON, rid]
        if rep >= 0:
            release(st, rid, rep)
            RI[HELD, rep] -= 1
            emptied[rep] = True
            st.GI[BUSY, RI[REGION, rep]] -= 1
            QI[RETRIES, rid] += 1
            QI[ON, rid] = -1
        QF[NEED, rid] = QF[PROMPT, rid]
        QF[LEFT, rid] = max(QF[OUT, rid] - 1.0, 0.0)
        QI[STATE, rid] = QUEUED
        if retry:
            QI[STATUS, rid] = WAITING
            QF[START, rid] = QF[FIRST, rid] = QF[FINISH, rid] = QF[TPOT, rid] = math.nan
        else:
            QI[STATUS, rid] = FAILED
            QF[FINISH, rid] = t
            st.K[NSYS] -= 1
    for rep in np.nonzero(emptied)[0]:
        if RI[HELD, rep] == 0:
            RI[EPOCH, rep] += 1  # its step in flight is void
            RI[STEPPING, rep] = 0
            RF[KV, rep] = RF[WAITING_KV, rep] = RF[DECODE_KV, rep] = 0.0
            st.PH[rep, :] = 0
            if RI[DRAINING, rep] != 0 and RI[ALIVE, rep] != 0:
                drop(st, int(rep))


@kernel
def set_queue(st: State, r: int, rids: Ints) -> None:
    """Region r's queue becomes `rids`, in that order."""
    QI, GI = st.QI, st.GI
    GI[QHEAD, r] = GI[QTAIL, r] = -1
    GI[QLEN, r] = 0
    for rid in rids:
        push_back(QI[QNEXT], QI[QPREV], GI[QHEAD], GI[QTAIL], r, rid)
        GI[QLEN, r] += 1


@allocating
def walk(nxt: Links, head: int) -> Ints:
    """The ids on a linked list from `head`, in order."""
    count = 0
    x = head
    while x >= 0:
        count += 1
        x = nxt[x]
    out = np.empty(count, np.int64)
    x = head
    for k in range(count):
        out[k] = x
        x = nxt[x]
    return out


@allocating
def held_by(st: State, reps: Ints) -> Ints:
    """The requests waiting or running on the replicas `reps`, sorted."""
    parts = [np.empty(0, np.int64)]
    for rep in reps:
        parts.append(walk(st.QI[QNEXT], st.RI[WHEAD, rep]))
        parts.append(walk(st.QI[RNEXT], st.RI[RHEAD, rep]))
    total = 0
    for part in parts:
        total += part.size
    out = np.empty(total, np.int64)
    k = 0
    for part in parts:
        out[k : k + part.size] = part
        k += part.size
    return np.sort(out)
