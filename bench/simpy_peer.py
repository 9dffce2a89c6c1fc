"""The replay benchmark's scenario written plainly with SimPy: a benchmark peer, never imported by the app.

The same engine as the replay's (grading/core/sim/README.md, serving): one SimPy process per replica runs
engine steps back to back; a step carries a decode token for every sequence past its prefill and prefill
chunks in the rest of the token budget, oldest first, and lasts max(tpot_s, tokens / prefill_tok_s). An
arrival goes to the replica holding the fewest requests with a free slot, else waits in one FCFS queue that
replicas take from at the end of their steps. At `loss_at_s` `loss_count` replicas die: their requests go back
to the front of the queue and start over. No KV limit (the scenario has none). Written the plain way: every
step touches every sequence in it.
"""

from __future__ import annotations

import math

import numpy as np
import simpy


class Seq:
    __slots__ = ("arrival", "prompt", "output", "prefilled", "decoded", "first_token", "finish")

    def __init__(self, arrival: float, prompt: int, output: int) -> None:
        self.arrival, self.prompt, self.output = arrival, prompt, output
        self.prefilled = self.decoded = 0
        self.first_token = self.finish = math.nan


def run_simpy_replay(
    arrival_rate: float,
    duration_s: float,
    seed: int,
    replicas: int = 16,
    max_batch: int = 64,
    prompt_tokens: float = 2000.0,
    output_tokens: float = 250.0,
    prompt_cv: float = 0.5,
    output_cv: float = 1.0,
    prefill_tok_s: float = 28035.0,
    tpot_s: float = 0.04,
    token_budget: int = 2048,
    loss_at_s: float = 1800.0,
    loss_count: int = 2,
) -> dict[str, float]:
    """Simulate the scenario; request counts, TTFT and TPOT percentiles and the queue at the end."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(arrival_rate * duration_s)
    arrivals = np.sort(rng.random(n) * duration_s)
    prompts = _gamma(prompt_tokens, prompt_cv, n, rng)
    outputs = _gamma(output_tokens, output_cv, n, rng)
    seqs = [Seq(float(a), int(p), int(o)) for a, p, o in zip(arrivals, prompts, outputs, strict=True)]

    env = simpy.Environment()
    queue: list[Seq] = []
    waiting: list[list[Seq]] = [[] for _ in range(replicas)]
    running: list[list[Seq]] = [[] for _ in range(replicas)]
    alive = [True] * replicas
    idle: list[simpy.Event | None] = [None] * replicas
    procs: list[simpy.Process] = []
    retried = [0]

    def held(k: int) -> int:
        return len(waiting[k]) + len(running[k])

    def give(k: int, s: Seq) -> None:
        waiting[k].append(s)
        if idle[k] is not None:
            idle[k].succeed()
            idle[k] = None

    def replica(k: int):
        while True:
            if not waiting[k] and not running[k]:
                idle[k] = env.event()
                try:
                    yield idle[k]
                except simpy.Interrupt:
                    return
                continue
            decodes = [s for s in running[k] if s.prefilled >= s.prompt]
            step = [(s, 1, True) for s in decodes]
            left = token_budget - len(decodes)
            for s in running[k]:
                if s.prefilled < s.prompt and left > 0:
                    chunk = min(s.prompt - s.prefilled, left)
                    step.append((s, chunk, False))
                    left -= chunk
            while waiting[k] and left > 0:
                s = waiting[k].pop(0)
                running[k].append(s)
                chunk = min(s.prompt, left)
                step.append((s, chunk, False))
                left -= chunk
            tokens = sum(tokens for _, tokens, _ in step)
            try:
                yield env.timeout(max(tpot_s, tokens / prefill_tok_s))
            except simpy.Interrupt:
                return
            for s, tokens, is_decode in step:
                if is_decode:
                    s.decoded += 1
                else:
                    s.prefilled += tokens
                    if s.prefilled >= s.prompt and math.isnan(s.first_token):
                        s.first_token = env.now
                if s.prefilled >= s.prompt and s.decoded >= s.output - 1:
                    s.finish = env.now
                    running[k].remove(s)
            while queue and held(k) < max_batch:
                give(k, queue.pop(0))

    def source():
        for s in seqs:
            yield env.timeout(s.arrival - env.now)
            open_replicas = [k for k in range(replicas) if alive[k] and held(k) < max_batch]
            if queue or not open_replicas:
                queue.append(s)
            else:
                give(min(open_replicas, key=lambda k: (held(k), k)), s)

    def replica_loss():
        yield env.timeout(loss_at_s)
        lost = []
        for k in range(loss_count):
            alive[k] = False
            procs[k].interrupt()
            lost += waiting[k] + running[k]
            waiting[k], running[k] = [], []
        for s in lost:
            s.prefilled = s.decoded = 0
            s.first_token = math.nan
        retried[0] += len(lost)
        queue[:0] = lost
        queue.sort(key=lambda s: s.arrival)
        for k in sorted((k for k in range(replicas) if alive[k]), key=lambda k: (held(k), k)):
            while queue and held(k) < max_batch:
                give(k, queue.pop(0))

    procs.extend(env.process(replica(k)) for k in range(replicas))
    env.process(source())
    env.process(replica_loss())
    env.run(until=duration_s)
    ttft = np.array([s.first_token - s.arrival for s in seqs if not math.isnan(s.first_token)])
    done = [s for s in seqs if not math.isnan(s.finish) and s.output > 1]
    tpot = np.array([(s.finish - s.first_token) / (s.output - 1) for s in done])
    return {
        "arrivals": float(n),
        "completed": float(sum(not math.isnan(s.finish) for s in seqs)),
        "retried": float(retried[0]),
        "queue_at_end": float(len(queue)),
        "ttft_p50_s": float(np.percentile(ttft, 50)),
        "ttft_p95_s": float(np.percentile(ttft, 95)),
        "tpot_p50_s": float(np.percentile(tpot, 50)),
        "tpot_p95_s": float(np.percentile(tpot, 95)),
    }


def _gamma(mean: float, cv: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if cv <= 0:
        return np.full(n, float(round(mean)))
    shape = 1.0 / (cv * cv)
    return np.maximum(1.0, np.round(rng.gamma(shape, mean / shape, n)))
