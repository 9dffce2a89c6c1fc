"""The replay benchmark's scenario written plainly with SimPy: a benchmark peer, never imported by the app.

One region of `replicas × max_batch` batch slots behind one FCFS queue (a SimPy Store of slot tokens),
Poisson arrivals at the closed-loop rate of 2,000 users, gamma prompt/output lengths, service = prefill +
output × TPOT, and a replica loss at `loss_at_s` whose in-flight requests are interrupted and retried.
"""

from __future__ import annotations

import math

import numpy as np
import simpy


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
    loss_at_s: float = 1800.0,
    loss_count: int = 2,
) -> dict[str, float]:
    """Simulate the scenario and return request counts and TTFT/e2e percentiles."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(arrival_rate * duration_s)
    arrivals = np.sort(rng.random(n) * duration_s)
    prompts = _gamma(prompt_tokens, prompt_cv, n, rng)
    outputs = _gamma(output_tokens, output_cv, n, rng)
    prefill = prompts / prefill_tok_s
    service = prefill + outputs * tpot_s

    env = simpy.Environment()
    slots = simpy.Store(env)
    slots.items.extend(r for r in range(replicas) for _ in range(max_batch))
    dead: set[int] = set()
    holders: dict[simpy.Process, int] = {}
    first_token = np.full(n, math.nan)
    finish = np.full(n, math.nan)
    retried = [0]

    def request(i: int):
        while True:
            slot = yield slots.get()
            if slot in dead:
                continue  # a free slot of a lost replica: drop it
            me = env.active_process
            holders[me] = slot
            start = env.now
            try:
                yield env.timeout(service[i])
            except simpy.Interrupt:
                holders.pop(me, None)
                retried[0] += 1
                continue
            del holders[me]
            slots.put(slot)
            first_token[i] = start + prefill[i]
            finish[i] = env.now
            return

    def source():
        last = 0.0
        for i in range(n):
            yield env.timeout(arrivals[i] - last)
            last = arrivals[i]
            env.process(request(i))

    def replica_loss():
        yield env.timeout(loss_at_s)
        dead.update(range(loss_count))
        for process, slot in list(holders.items()):
            if slot in dead:
                process.interrupt()

    env.process(source())
    env.process(replica_loss())
    env.run(until=duration_s)
    done = ~np.isnan(first_token)
    ttft = first_token[done] - arrivals[done]
    e2e = finish[done] - arrivals[done]
    return {
        "arrivals": float(n),
        "started": float(done.sum()),
        "retried": float(retried[0]),
        "ttft_p95_s": float(np.percentile(ttft, 95)),
        "e2e_p95_s": float(np.percentile(e2e, 95)),
    }


def _gamma(mean: float, cv: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if cv <= 0:
        return np.full(n, float(round(mean)))
    shape = 1.0 / (cv * cv)
    return np.maximum(1.0, np.round(rng.gamma(shape, mean / shape, n)))
