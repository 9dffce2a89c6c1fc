"""An independent per-step model of a continuous-batching LLM engine (vLLM-style), written from the physics
for the tests: a plain loop over engine steps that touches every sequence in every step. It shares no code
with the simulator (grading/core/sim/); only the requests (arrival, prompt and output lengths) are given to
it.

The engine it models, in words:
- Replicas each run steps back to back while they hold work. A step carries one decode token for every
  sequence past its prefill and, with chunked prefill, chunks of the prefills in what is left of the token
  budget, oldest first (serial prefill: a step with a prefill to do prefills whole prompts only and every
  decode waits).
- A step's time is the time of its operations, one after another, in every layer, plus a fixed overhead. In
  one layer: the matmuls (read the layer's weights, do 2 FLOP per weight per token), the decodes' attention
  (read each decoding sequence's KV, 4·d FLOP per token of context), the prefill chunks' attention (read the
  KV up to the chunk's end, 4·d FLOP per (query, key) pair of causal attention), and two all-reduces of the
  step's activations across the tensor-parallel group (a latency, and a ring's 2·(g−1)/g of d × 2 bytes per
  token over the link). Each operation lasts the longer of its memory time (bytes over the GPUs' bandwidth)
  and its compute time (FLOP over the GPUs' FLOP/s). All layers are alike, so the step is L × one layer.
  A slow link between the replica's servers, when given, adds a latency a step and bytes a token. With no
  hardware (a fixed step time): max(step time, tokens / prefill rate) plus that link.
- KV lives in blocks of `block` tokens: a sequence holding n tokens of KV holds ceil(n / block) blocks. Its
  prompt's blocks are taken when its prefill starts; a decode that finds its last block full takes another.
  A sequence is admitted (onto a replica, and onto the GPU from the replica's waiting list) only while the
  blocks left free after it stay at or above the watermark (a share of all blocks).
- When the decodes' next tokens need more blocks than are free, the newest running sequence is preempted: its
  blocks are freed and it goes back to the front of its replica's waiting list, to prefill everything it had.
- An arrival goes to the replica with the fewest sequences (waiting or running) that has a free slot and
  blocks for its prompt, lowest number first; if none has, it waits in one FCFS queue that replicas take
  from, head first, at the end of their steps.
- A lost replica's sequences go back to the front of the queue (in arrival order) and start over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Hardware:
    """A replica's model and GPUs, in base units."""

    params: float
    weight_bytes_per_param: float
    gpus: int
    hbm_bytes_per_s: float  # per GPU
    weights_read_efficiency: float
    kv_read_efficiency: float
    flop_per_s: float  # per GPU
    flop_efficiency: float
    kv_bytes_per_token: float
    layers: int
    width: int
    allreduce_link_bytes_per_s: float
    allreduce_latency_s: float
    overhead_s: float


@dataclass
class Engine:
    """What one replica is. Either `hardware` or a fixed step (`fixed_step_s`, `fixed_tokens_per_s`)."""

    max_batch: int
    token_budget: int
    chunked: bool
    total_blocks: float  # math.inf: no limit
    block: int = 16
    watermark: float = 0.01
    hardware: Hardware | None = None
    fixed_step_s: float = 0.04
    fixed_tokens_per_s: float = 28_035.0
    link_bytes_per_token: float = 0.0  # a slow link between the replica's servers, all layers together
    link_bytes_per_s: float = math.inf
    link_latency_s: float = 0.0

    def free_floor(self) -> float:
        """Blocks an admission must leave free."""
        return 0.0 if math.isinf(self.total_blocks) else math.floor(self.watermark * self.total_blocks)

    def blocks(self, tokens: int) -> int:
        return -(-tokens // self.block)


def one_layer_seconds(hw: Hardware, tokens: int, decode_contexts: list, chunks: list) -> float:
    """One layer's operations, each max(memory, compute); `chunks` are (tokens before, chunk tokens)."""
    bandwidth = hw.gpus * hw.hbm_bytes_per_s
    flops = hw.gpus * hw.flop_per_s * hw.flop_efficiency
    layer_params = hw.params / hw.layers
    kv_per_layer = hw.kv_bytes_per_token / hw.layers
    matmuls = max(
        layer_params * hw.weight_bytes_per_param / (bandwidth * hw.weights_read_efficiency),
        2 * layer_params * tokens / flops,
    )
    context = sum(decode_contexts)
    decode_attention = max(
        context * kv_per_layer / (bandwidth * hw.kv_read_efficiency), 4 * hw.width * context / flops
    )
    read = sum(before + n for before, n in chunks)
    pairs = sum(n * before + n * (n + 1) / 2 for before, n in chunks)
    prefill_attention = max(
        read * kv_per_layer / (bandwidth * hw.kv_read_efficiency), 4 * hw.width * pairs / flops
    )
    allreduces = 0.0
    if hw.gpus > 1:
        moved = 2 * (hw.gpus - 1) / hw.gpus * tokens * hw.width * 2
        allreduces = 2 * (hw.allreduce_latency_s + moved / hw.allreduce_link_bytes_per_s)
    return matmuls + decode_attention + prefill_attention + allreduces


def step_seconds(engine: Engine, tokens: int, decode_contexts: list, chunks: list) -> float:
    link = engine.link_latency_s + tokens * engine.link_bytes_per_token / engine.link_bytes_per_s
    hw = engine.hardware
    if hw is None:
        return max(engine.fixed_step_s, tokens / engine.fixed_tokens_per_s) + link
    return hw.overhead_s + hw.layers * one_layer_seconds(hw, tokens, decode_contexts, chunks) + link


@dataclass
class Seq:
    rid: int
    arrival: float
    prompt: int
    output: int
    to_prefill: int = 0
    prefilled: int = 0
    decoded: int = 0  # tokens from decode steps (the first token comes from the prefill)
    kv: int = 0  # tokens of KV held
    first_token: float = math.nan
    finish: float = math.nan
    prefill_done: bool = False


@dataclass
class Replica:
    number: int
    waiting: list = field(default_factory=list)
    running: list = field(default_factory=list)  # admission order
    step_end: float | None = None
    step: list = field(default_factory=list)  # (seq, kind, tokens)
    alive: bool = True

    def held(self) -> int:
        return len(self.waiting) + len(self.running)


@dataclass
class Outcome:
    seqs: list
    queue_at_end: int
    preemptions: int
    queue_samples: list  # (t, queue length)
    steps: list = field(default_factory=list)  # (start, end) of every step, when asked for


def run(
    engine: Engine,
    arrival: np.ndarray,
    prompt: np.ndarray,
    output: np.ndarray,
    replicas: int,
    duration_s: float,
    loss_at: float = math.inf,
    loss_count: int = 0,
    sample_every_s: float = 10.0,
    keep_steps: bool = False,
) -> Outcome:
    seqs = [
        Seq(i, float(a), int(p), int(o))
        for i, (a, p, o) in enumerate(zip(arrival, prompt, output, strict=True))
    ]
    fleet = [Replica(k) for k in range(replicas)]
    queue: list[Seq] = []
    preemptions = 0
    samples: list = []
    steps: list = []
    next_sample = 0.0
    i = 0
    floor = engine.free_floor()

    def used(rep: Replica) -> int:
        return sum(engine.blocks(s.kv) for s in rep.running)

    def wanted(s: Seq) -> int:
        return engine.blocks(s.to_prefill or s.prompt)

    def fits(rep: Replica, s: Seq) -> bool:
        promised = used(rep) + sum(wanted(w) for w in rep.waiting)
        return rep.held() < engine.max_batch and engine.total_blocks - promised - wanted(s) >= floor

    def start_step(rep: Replica, now: float) -> None:
        nonlocal preemptions
        decoders = [s for s in rep.running if s.prefill_done]
        head = rep.waiting[0] if rep.waiting else None
        serial_prefill = (
            not engine.chunked
            and head is not None
            and engine.total_blocks - used(rep) - wanted(head) >= floor
        )
        step = []
        chunks = []  # (tokens before the chunk, chunk tokens)
        if serial_prefill:
            tokens = 0
            while rep.waiting:
                s = rep.waiting[0]
                need = s.to_prefill or s.prompt
                if engine.total_blocks - used(rep) - wanted(s) < floor or (
                    step and tokens + need > engine.token_budget
                ):
                    break
                rep.waiting.pop(0)
                s.to_prefill, s.prefilled, s.kv = need, 0, need
                rep.running.append(s)
                step.append((s, "prefill", need))
                chunks.append((0, need))
                tokens += need
            contexts: list = []
        else:

            def new_blocks() -> int:
                return sum(1 for s in decoders if s.kv % engine.block == 0)

            while decoders and used(rep) + new_blocks() > engine.total_blocks:
                victim = rep.running.pop()
                victim.to_prefill = victim.kv if victim.prefill_done else victim.to_prefill
                victim.kv, victim.prefilled, victim.prefill_done = 0, 0, False
                rep.waiting.insert(0, victim)
                preemptions += 1
                decoders = [s for s in rep.running if s.prefill_done]
            contexts = [s.kv for s in decoders]
            step = [(s, "decode", 1) for s in decoders]
            tokens = len(decoders)
            left = engine.token_budget - tokens
            if engine.chunked:
                for s in rep.running:
                    if not s.prefill_done and left > 0:
                        chunk = min(s.to_prefill - s.prefilled, left)
                        step.append((s, "prefill", chunk))
                        chunks.append((s.prefilled, chunk))
                        tokens += chunk
                        left -= chunk
                growing = new_blocks()
                while rep.waiting and left > 0:
                    s = rep.waiting[0]
                    need = s.to_prefill or s.prompt
                    if engine.total_blocks - used(rep) - growing - wanted(s) < floor:
                        break
                    rep.waiting.pop(0)
                    s.to_prefill, s.prefilled, s.kv = need, 0, need
                    rep.running.append(s)
                    chunk = min(need, left)
                    step.append((s, "prefill", chunk))
                    chunks.append((0, chunk))
                    tokens += chunk
                    left -= chunk
        if tokens == 0:
            rep.step_end, rep.step = None, []
            return
        rep.step_end, rep.step = now + step_seconds(engine, tokens, contexts, chunks), step
        if keep_steps:
            steps.append((now, rep.step_end))

    def end_step(rep: Replica, now: float) -> None:
        for s, kind, tokens in rep.step:
            if kind == "decode":
                s.decoded += 1
                s.kv += 1
                if s.decoded >= s.output - 1:
                    s.finish = now
                    rep.running.remove(s)
            else:
                s.prefilled += tokens
                if s.prefilled >= s.to_prefill:
                    s.prefill_done = True
                    if math.isnan(s.first_token):
                        s.first_token = now
                    if s.decoded >= s.output - 1:
                        s.finish = now
                        rep.running.remove(s)
        while queue and fits(rep, queue[0]):
            rep.waiting.append(queue.pop(0))

    def place(s: Seq, now: float) -> bool:
        candidates = [rep for rep in fleet if rep.alive and fits(rep, s)]
        if not candidates:
            return False
        rep = min(candidates, key=lambda rep: (rep.held(), rep.number))
        rep.waiting.append(s)
        if rep.step_end is None:
            start_step(rep, now)
        return True

    while True:
        busy = [rep for rep in fleet if rep.alive and rep.step_end is not None]
        t_step = min((rep.step_end for rep in busy), default=math.inf)
        t_arrival = seqs[i].arrival if i < len(seqs) else math.inf
        now = min(t_step, t_arrival, loss_at, duration_s)
        while next_sample <= now and next_sample < duration_s:
            samples.append((next_sample, len(queue)))
            next_sample += sample_every_s
        if now >= duration_s:
            break
        if loss_at <= t_step and loss_at <= t_arrival:
            for rep in fleet[:loss_count]:
                rep.alive = False
                lost = rep.waiting + rep.running
                for s in lost:
                    s.to_prefill = s.prefilled = s.decoded = s.kv = 0
                    s.prefill_done = False
                    s.first_token = math.nan
                queue[:0] = sorted(lost, key=lambda s: s.arrival)
            queue.sort(key=lambda s: s.arrival)
            loss_at = math.inf
            for rep in sorted((r for r in fleet if r.alive), key=lambda r: (r.held(), r.number)):
                while queue and fits(rep, queue[0]):
                    rep.waiting.append(queue.pop(0))
                if rep.step_end is None:
                    start_step(rep, now)
        elif t_step <= t_arrival:
            rep = next(rep for rep in busy if rep.step_end == t_step)
            end_step(rep, now)
            start_step(rep, now)
        else:
            s = seqs[i]
            i += 1
            if engine.blocks(s.prompt + s.output) > engine.total_blocks - floor:
                continue  # never fits: an engine refuses it
            if queue or not place(s, now):
                queue.append(s)
    return Outcome(seqs, len(queue), preemptions, samples, steps)
