"""An independent per-step model of a continuous-batching LLM engine, written from first principles for the
tests: a plain loop over engine steps that touches every sequence in every step. It shares no code with the
simulator (grading/core/sim/); only the requests (arrival, prompt and output lengths) are given to it.

The engine it models, in words:
- Replicas each run steps back to back while they hold work. A step carries one decode token for every
  sequence past its prefill and, with chunked prefill, chunks of the prefills in what is left of the token
  budget, oldest first (serial prefill: a step with a prefill to do prefills whole prompts only and every
  decode waits).
- A step lasts max(memory time, compute time): memory = (weights + KV held) bytes / bandwidth, compute =
  2 · params · tokens / FLOP/s (with n_params 0: tpot_s, and tokens / prefill_tok_s). When the replica's GPUs
  talk over a slow link (a tensor-parallel group split across servers), the step then waits for it: every
  token in the step, decode or prompt, sends its activations' bytes over the link, and the step's collectives
  cost a fixed latency on top. That time does not overlap the memory or compute time.
- A sequence holds KV for each token it has processed: its prompt is reserved when its prefill starts, and
  every decode step adds one. The first token comes at the end of the step that completes the prefill; the
  other output − 1 tokens come one per decode step.
- An arrival goes to the replica with the fewest sequences (waiting or running) that has a free slot and KV
  for its prompt, lowest number first; if none has, it waits in one FCFS queue that replicas take from, head
  first, at the end of their steps.
- When the KV cannot grow by one token for every decode, the newest running sequence is preempted: its KV is
  freed and it goes back to the front of its replica's waiting list, to prefill everything it had again.
- A lost replica's sequences go back to the front of the queue (in arrival order) and start over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Engine:
    """What one replica is, in base units."""

    max_batch: int
    token_budget: int
    chunked: bool
    kv_capacity: float  # tokens
    weights_time_s: float  # reading the weights once: the memory time of an empty step
    kv_read_s_per_token: float  # reading one token of KV
    compute_s_per_token: float
    link_bytes_per_token: float = 0.0  # what one token's all-reduces send over the slow link
    link_bytes_per_s: float = math.inf
    link_latency_s: float = 0.0  # the collectives' fixed cost, once a step


@dataclass
class Seq:
    rid: int
    arrival: float
    prompt: int
    output: int
    to_prefill: int = 0
    prefilled: int = 0
    decoded: int = 0  # tokens from decode steps (the first token comes from the prefill)
    kv: int = 0
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

    def kv(self) -> int:
        return sum(s.kv for s in self.running)

    def held(self) -> int:
        return len(self.waiting) + len(self.running)


@dataclass
class Outcome:
    seqs: list
    queue_at_end: int
    preemptions: int
    queue_samples: list  # (t, queue length)


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
) -> Outcome:
    seqs = [
        Seq(i, float(a), int(p), int(o))
        for i, (a, p, o) in enumerate(zip(arrival, prompt, output, strict=True))
    ]
    fleet = [Replica(k) for k in range(replicas)]
    queue: list[Seq] = []
    preemptions = 0
    samples: list = []
    next_sample = 0.0
    i = 0

    def fits(rep: Replica, s: Seq) -> bool:
        reserved = rep.kv() + sum(w.to_prefill or w.prompt for w in rep.waiting)
        return rep.held() < engine.max_batch and reserved + (s.to_prefill or s.prompt) <= engine.kv_capacity

    def start_step(rep: Replica, now: float) -> None:
        nonlocal preemptions
        decoders = [s for s in rep.running if s.prefill_done]
        head = rep.waiting[0] if rep.waiting else None
        serial_prefill = (
            not engine.chunked
            and head is not None
            and rep.kv() + (head.to_prefill or head.prompt) <= engine.kv_capacity
        )
        step = []
        if serial_prefill:
            tokens = 0
            while rep.waiting:
                s = rep.waiting[0]
                need = s.to_prefill or s.prompt
                if rep.kv() + need > engine.kv_capacity or (step and tokens + need > engine.token_budget):
                    break
                rep.waiting.pop(0)
                s.to_prefill, s.prefilled, s.kv = need, 0, need
                rep.running.append(s)
                step.append((s, "prefill", need))
                tokens += need
            kv_read = tokens
        else:
            while decoders and rep.kv() + len(decoders) > engine.kv_capacity:
                victim = rep.running.pop()
                victim.to_prefill = victim.kv if victim.prefill_done else victim.to_prefill
                victim.kv, victim.prefilled, victim.prefill_done = 0, 0, False
                rep.waiting.insert(0, victim)
                preemptions += 1
                decoders = [s for s in rep.running if s.prefill_done]
            step = [(s, "decode", 1) for s in decoders]
            tokens = len(decoders)
            left = engine.token_budget - tokens
            if engine.chunked:
                for s in rep.running:
                    if not s.prefill_done and left > 0:
                        chunk = min(s.to_prefill - s.prefilled, left)
                        step.append((s, "prefill", chunk))
                        tokens += chunk
                        left -= chunk
                while rep.waiting and left > 0:
                    s = rep.waiting[0]
                    need = s.to_prefill or s.prompt
                    if rep.kv() + len(decoders) + need > engine.kv_capacity:
                        break
                    rep.waiting.pop(0)
                    s.to_prefill, s.prefilled, s.kv = need, 0, need
                    rep.running.append(s)
                    chunk = min(need, left)
                    step.append((s, "prefill", chunk))
                    tokens += chunk
                    left -= chunk
            kv_read = rep.kv()
        if tokens == 0:
            rep.step_end, rep.step = None, []
            return
        memory = engine.weights_time_s + engine.kv_read_s_per_token * kv_read
        compute = engine.compute_s_per_token * tokens
        link = engine.link_latency_s
        if engine.link_bytes_per_token:
            link += sum(n for _, _, n in step) * engine.link_bytes_per_token / engine.link_bytes_per_s
        rep.step_end, rep.step = now + max(memory, compute) + link, step

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
            if s.prompt + s.output > engine.kv_capacity:
                continue  # never fits: an engine refuses it
            if queue or not place(s, now):
                queue.append(s)
    return Outcome(seqs, len(queue), preemptions, samples)
