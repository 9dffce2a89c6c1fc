"""Replay results kept by what they depend on (`ReplayResult`), for the sides that do not depend on the
candidate: the reference's replays (and a review's reference fix) are computed when the round starts, while
the candidate works, and the run at submit takes the kept result instead of simulating again.

A result depends only on the run's simulator inputs (the question version and the round's variant values,
resolved for its side), its seeds (from the round and the scenario) and the simulator's version, so that is
its key (`grading.core.replay_inputs.replay_result_key`); a key not found is simulated as before. The rows
live in the database, which every worker process shares under every configuration (the embedded default's
cache is each process's own memory). Nothing here is read by a page or an API answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from grading.core.replay_inputs import replay_result_key, replay_seeds, simulator_version
from rounds.models import ReplayResult, ReplaySide

# The sides whose result does not depend on the candidate's numbers: kept when computed, and computed ahead.
KEPT_SIDES = (ReplaySide.REFERENCE, ReplaySide.FIX)
# A kept result outlives the longest timed round and its submit by far; an untimed practice round submitted
# later than this simulates its reference again.
RESULTS_KEPT_FOR = timedelta(days=2)


def replay_result_key_for(inputs: Mapping[str, Any], *, round_id: int, scenario: str) -> str:
    """The key of a run of `scenario` in round `round_id` on `inputs`, with the seeds the run will use."""
    seeds = replay_seeds(round_id, scenario, settings.REPLAY_SEEDS)
    return replay_result_key(inputs, seeds, simulator_version())


def replay_result_find(key: str) -> dict | None:
    return ReplayResult.objects.filter(key=key).values_list("result", flat=True).first()


def replay_result_keep(key: str, result: dict) -> None:
    """Keep a result under its key (a second writer of the same key, which computed the same result, wins
    nothing and loses nothing)."""
    ReplayResult.objects.bulk_create([ReplayResult(key=key, result=result)], ignore_conflicts=True)


def replay_results_forget(*, now: datetime | None = None) -> int:
    """Delete the results kept longer than RESULTS_KEPT_FOR; returns how many."""
    cutoff = (now or timezone.now()) - RESULTS_KEPT_FOR
    deleted, _ = ReplayResult.objects.filter(created_at__lt=cutoff).delete()
    return deleted
