"""Replay workflows: queue a round's runs, run one (the Celery task's service), cancel, retry, sweep, score.

The exactly-once rules:
- A worker claims a run with `UPDATE ... WHERE status = 'queued'` and a fresh claim token; only the claim that
  holds the token may write progress or the result, and the result goes in one conditional UPDATE.
- Progress and the heartbeat are written at least once a second; a write that finds the run no longer running
  under its claim (cancelled, or taken over after a lost worker) stops the simulation.
- A message that could not reach the broker leaves the run queued with a note; the sweep re-sends it. A run
  whose heartbeat went stale (its worker was killed) is put back to queued and re-sent, up to MAX_ATTEMPTS.
  A run whose message went out but was never claimed (a broker restart, a database restore) is re-sent.
- Duplicate messages are harmless: a second claim of the same run finds it no longer queued and does nothing.

Sharing a run's seeds: the worker that claims a run hands its seeds out one at a time (a conditional update of
`seeds_taken` under the claim) and sends one help message; a worker process that takes that message while the
run still has seeds to hand out simulates them beside it, so that one scenario's five seeds never wait on one
process while another is idle. Each seed's result is stored under the claim (`ReplaySeedResult`) and the
claiming worker gathers them in seed order; the same seed gives the same result wherever it runs. A helper
writes no heartbeat and stops when the run leaves its claim; a seed a helper took and did not store in time
(its worker lost, a failure) is simulated by the claiming worker itself.

The fair queue: the database is the queue and the broker holds only each candidate's turn. At most
RUNS_IN_FLIGHT_PER_CANDIDATE of a candidate's runs are sent or running at once; the rest wait, unsent,
and `replays_dispatch` sends the oldest when one finishes or is cancelled (and on every sweep). One
candidate's ten heavy rounds never fill the broker ahead of everyone else's short replays. A help message
is no turn: it only shares the seeds of a run already running, in its place in the broker's order.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from config.celery import send_by_name, tasks_run_in_place
from config.service_errors import ServiceError
from grading.core.failure_modes import failure_report
from grading.core.replay_inputs import (
    CURVEBALL_RUN_SEPARATOR,
    is_curveball_run_name,
    replay_inputs,
    replay_seed,
    replay_seeds,
    simulator_args,
    simulator_version,
)
from grading.core.review_check import (
    fix_lines,
    fixed_failure_report,
    reference_fix_numbers,
    review_replays_summary,
    review_side,
    split_sheets,
)
from grading.core.sim import run_scenario_seeds, seed_runs_dict
from grading.core.sim.seeds import seed_threads
from rounds.models import FINISHED_STATUSES, ReplayRun, ReplaySeedResult, ReplaySide, ReplayStatus, Round
from rounds.models.replays import DESIGN_SIDES, REVIEW_SIDES
from rounds.services.curveball_replays import curveball_replays_planned
from rounds.services.replay_results import (
    KEPT_SIDES,
    replay_result_find,
    replay_result_keep,
    replay_result_key_for,
    replay_results_forget,
)

log = logging.getLogger(__name__)

RUN_REPLAY_TASK = "grading.run_replay"
PREPARE_REFERENCE_TASK = "grading.prepare_reference_replay"
HELP_REPLAY_TASK = "grading.help_replay"
SOFT_TIME_LIMIT_S = 300
HARD_TIME_LIMIT_S = 330
PROGRESS_INTERVAL_S = 0.5
# A sent run still unclaimed this long was lost with the broker (or a database restore): the sweep, every
# 15 s, re-sends it within a minute (docs/backups.md). A sent run waits for at most a few turns of the others.
LOST_MESSAGE_AFTER_S = 45
STALE_AFTER_S = 60  # a running run without a heartbeat for this long lost its worker
RUNS_IN_FLIGHT_PER_CANDIDATE = 2
MAX_ATTEMPTS = 3
SEED_POLL_S = 0.1  # how often the claiming worker looks for the seeds a helper took
# The claiming worker waits this long, plus twice its own slowest seeds, for a seed a helper took; then it
# simulates the seed itself (a lost helper costs that wait, never the run).
HELPER_GRACE_S = 1.0
INPUTS_REFUSED = "The simulator refused these numbers: "
BROKER_DOWN_NOTE = (
    "The job queue is unreachable right now. Your run is kept and will start automatically when it is back."
)
REPLAY_QUEUE: str | None = None  # None: Celery's default queue (tests point it at a queue of their own)
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


class ReplayError(ServiceError):
    """A request about a replay that cannot be carried out; the message is shown to the person."""

    status = 400


class ReplayStopped(Exception):
    """Raised from the progress callback when the run was cancelled or its claim was taken over."""


# Queueing


def replays_current(*, round_) -> list[ReplayRun]:
    """The latest generation of each scenario and side, in question order, candidate before reference (the
    question's own scenarios: a curveball's replays are `curveball_replays_current`)."""
    return [run for run in _latest_runs(round_) if not is_curveball_run_name(run.scenario)]


def curveball_replays_current(*, round_) -> dict[str, list[ReplayRun]]:
    """A round's curveball replays by curveball id: the latest generation of each side, candidate first."""
    runs: dict[str, list[ReplayRun]] = {}
    for run in _latest_runs(round_):
        if is_curveball_run_name(run.scenario):
            runs.setdefault(run.scenario.split(CURVEBALL_RUN_SEPARATOR)[0], []).append(run)
    return runs


def _latest_runs(round_) -> list[ReplayRun]:
    latest: dict[tuple[str, str], ReplayRun] = {}
    for run in ReplayRun.objects.filter(round=round_).order_by("position", "scenario", "side", "-generation"):
        latest.setdefault((run.scenario, run.side), run)
    return list(latest.values())


def _is_review(round_) -> bool:
    return round_.question_version.spec.get("kind") == "review"


def round_sides(round_) -> tuple[str, ...]:
    """The sides a round replays: the candidate's and the reference's; a review round whose question states
    its reference fix also that fix (the fixed design's failure score compares it with the fix)."""
    spec = round_.question_version.spec
    return REVIEW_SIDES if _is_review(round_) and fix_lines(spec) else DESIGN_SIDES


def replay_side_labels(round_) -> dict[str, str]:
    """How pages name each side of a round's replays: a review's reference side is the given design."""
    if _is_review(round_):
        return {"reference": "Given design", "candidate": "Your fixed design", "fix": "Reference fix"}
    return {"reference": "Reference numbers", "candidate": "Your numbers"}


def replay_numbers(round_) -> dict[str, str]:
    """The candidate side's numbers: a review round's fixed sheet (its analysis sheet sizes nothing), or the
    whole sheet of a design round and of a review round saved before the two sheets."""
    work = getattr(round_, "work", None)
    numbers = dict(work.numbers) if work is not None else {}
    if not _is_review(round_):
        return numbers
    analysis, fixed = split_sheets(numbers)
    return fixed or analysis


def _inputs_by_scenario(round_, side: str) -> dict[str, dict]:
    spec, variant = round_.question_version.spec, round_.variant_values or None
    if side == ReplaySide.FIX:
        entries = replay_inputs(
            spec, side="candidate", numbers=reference_fix_numbers(spec, variant), variant_values=variant
        )
        entries = [{**entry, "side": ReplaySide.FIX.value} for entry in entries]
    else:
        entries = replay_inputs(spec, side=side, numbers=replay_numbers(round_), variant_values=variant)
    return {entry["scenario"]: entry for entry in entries}


def replays_enqueue_for_round(*, round_) -> list[ReplayRun]:
    """One candidate-side and one reference-side run per scenario of the round's question version.

    Idempotent: a scenario and side that already has a run (of any generation) gets no new one. Returns the
    current runs. The messages go to the broker after the surrounding transaction commits.
    """
    scenarios = round_.question_version.spec.get("scenarios") or []
    existing = set(ReplayRun.objects.filter(round=round_).values_list("scenario", "side"))
    missing = [
        (s, side) for s in scenarios for side in round_sides(round_) if (s["name"], side) not in existing
    ]
    if missing:
        version = simulator_version()
        inputs, problem = {}, ""
        try:
            inputs = {side: _inputs_by_scenario(round_, side) for side in {side for _, side in missing}}
        except ValueError as error:  # a model that does not evaluate must not break the round's submission
            log.exception("round %s: replay inputs could not be resolved", round_.pk)
            problem = f"The scenario's inputs could not be worked out: {error}"[:2000]
        position = {s["name"]: index for index, s in enumerate(scenarios)}
        created = []
        with transaction.atomic():
            for scenario, side in missing:
                entry = inputs[side][scenario["name"]] if inputs else {"title": scenario.get("title")}
                # a side whose result was kept (the reference's, simulated since the round started) is done
                # at once: no message, no turn of the fair queue, the candidate's runs go first
                kept = None if problem else _kept_result(entry, round_.pk, scenario["name"])
                state = _done_with(kept) if kept is not None else {"status": ReplayStatus.QUEUED}
                run, is_new = ReplayRun.objects.get_or_create(
                    round=round_,
                    scenario=scenario["name"],
                    side=side,
                    generation=1,
                    defaults={
                        "position": position[scenario["name"]],
                        "seed": replay_seed(round_.pk, scenario["name"]),
                        "simulator_version": version,
                        "inputs": entry,
                        "error": problem,
                        **({"status": ReplayStatus.FAILED} if problem else state),
                    },
                )
                if is_new and not problem and kept is None:
                    created.append(run.pk)
            if created:
                _dispatch_on_commit(round_.candidate_id)
    _curveball_replays_enqueue(round_)
    return replays_current(round_=round_)


def _kept_result(inputs: dict, round_id: int, scenario: str) -> dict | None:
    return replay_result_find(replay_result_key_for(inputs, round_id=round_id, scenario=scenario))


def _done_with(result: dict) -> dict:
    """A run's fields when it is done with `result` (kept, or just simulated)."""
    return {"status": ReplayStatus.DONE, "result": result, "progress": 1.0, "finished_at": timezone.now()}


def _curveball_replays_enqueue(round_) -> None:
    """One run per side of each answered curveball that names a scenario (idempotent, as above)."""
    existing = set(ReplayRun.objects.filter(round=round_).values_list("scenario", "side"))
    planned = [
        entry for entry in curveball_replays_planned(round_) if (entry["name"], entry["side"]) not in existing
    ]
    if not planned:
        return
    version = simulator_version()
    created = []
    with transaction.atomic():
        for entry in planned:
            run, is_new = ReplayRun.objects.get_or_create(
                round=round_,
                scenario=entry["name"],
                side=entry["side"],
                generation=1,
                defaults={
                    "position": entry["position"],
                    "seed": replay_seed(round_.pk, entry["name"]),
                    "simulator_version": version,
                    "inputs": entry["inputs"] or {},
                    "status": ReplayStatus.FAILED if entry["problem"] else ReplayStatus.QUEUED,
                    "error": entry["problem"],
                },
            )
            if is_new and not entry["problem"]:
                created.append(run.pk)
        if created:
            _dispatch_on_commit(round_.candidate_id)


def replay_retry(*, run: ReplayRun) -> ReplayRun:
    """A new generation of a failed or cancelled run (same seed, inputs resolved again), queued.

    Idempotent: a retry of a run that was already retried (two clicks at once, a second tab) returns the
    generation that retry made."""
    if not run.can_retry:
        raise ReplayError(f"Only a failed or cancelled run can be retried; this one is {run.status}.")
    round_ = run.round
    with transaction.atomic():
        ReplayRun.objects.select_for_update().filter(pk=run.pk).first()  # one retry of this run at a time
        # Read after the lock, in a statement of its own, so it sees a retry that committed while we waited.
        latest = (
            ReplayRun.objects.filter(round=round_, scenario=run.scenario, side=run.side)
            .order_by("-generation")
            .first()
        )
        assert latest is not None  # `run` itself is one of them
        if latest.generation > run.generation:
            return latest
        try:
            if is_curveball_run_name(run.scenario):
                planned = curveball_replays_planned(round_)
                entry = next((e for e in planned if (e["name"], e["side"]) == (run.scenario, run.side)), None)
                if entry is not None and entry["problem"]:
                    raise ReplayError(entry["problem"])
                inputs = entry["inputs"] if entry is not None else run.inputs
            else:
                inputs = _inputs_by_scenario(round_, run.side).get(run.scenario, run.inputs)
        except ValueError as error:
            raise ReplayError(f"The scenario's inputs could not be worked out: {error}") from None
        new_run = ReplayRun.objects.create(
            round=round_,
            scenario=run.scenario,
            position=run.position,
            side=run.side,
            generation=run.generation + 1,
            seed=run.seed,
            simulator_version=simulator_version(),
            inputs=inputs,
        )
        _dispatch_on_commit(round_.candidate_id)
    new_run.refresh_from_db()  # the message went out on commit, or a note says it could not
    return new_run


def replay_cancel(*, run: ReplayRun) -> ReplayRun:
    """Cancel a queued or running run; a running simulation stops at its next progress report."""
    cancelled = ReplayRun.objects.filter(
        pk=run.pk, status__in=[ReplayStatus.QUEUED, ReplayStatus.RUNNING]
    ).update(status=ReplayStatus.CANCELLED, finished_at=timezone.now(), note="Cancelled.")
    run.refresh_from_db()
    if not cancelled:
        raise ReplayError(f"This run is already {run.get_status_display().lower()}.")
    replays_dispatch(candidate_ids=[run.round.candidate_id])  # its turn passes to the next waiting run
    return run


def _dispatch_on_commit(candidate_id: int) -> None:
    transaction.on_commit(lambda: replays_dispatch(candidate_ids=[candidate_id]))


def _turns_take(candidate_id: int) -> list[int]:
    """The candidate's oldest waiting runs that fit beside those in flight, marked sent (their turn taken)."""
    with transaction.atomic():
        # Locking the candidate's active runs lets one dispatcher at a time count and take the free turns.
        active = list(
            ReplayRun.objects.select_for_update(of=("self",))
            .filter(round__candidate_id=candidate_id, status__in=[ReplayStatus.QUEUED, ReplayStatus.RUNNING])
            .order_by("created_at", "pk")
            .values_list("pk", "status", "sent_at")
        )
        in_flight = sum(1 for _, status, sent_at in active if status == ReplayStatus.RUNNING or sent_at)
        waiting = [pk for pk, status, sent_at in active if status == ReplayStatus.QUEUED and sent_at is None]
        taken = waiting[: max(0, RUNS_IN_FLIGHT_PER_CANDIDATE - in_flight)]
        ReplayRun.objects.filter(pk__in=taken).update(sent_at=timezone.now())
    return taken


def replays_dispatch(*, candidate_ids: list[int] | None = None) -> dict:
    """Send each candidate's waiting runs as turns free up (RUNS_IN_FLIGHT_PER_CANDIDATE at once); all
    candidates with a waiting run when none are named. Returns {"sent": n, "unreachable": n}."""
    if candidate_ids is None:
        waiting = ReplayRun.objects.filter(status=ReplayStatus.QUEUED, sent_at__isnull=True)
        candidate_ids = sorted(set(waiting.values_list("round__candidate_id", flat=True)))
    sent = 0
    for candidate_id in candidate_ids:
        # Each pass takes the free turns; with an in-place (eager) task the runs finish and free them again.
        while taken := _turns_take(candidate_id):
            went = replays_send(taken)
            sent += went
            if went < len(taken):  # the broker is down: every waiting run says so; the sweep tries again
                ReplayRun.objects.filter(
                    round__candidate_id=candidate_id, status=ReplayStatus.QUEUED, sent_at__isnull=True
                ).update(note=BROKER_DOWN_NOTE)
                return {"sent": sent, "unreachable": len(taken) - went}
    return {"sent": sent, "unreachable": 0}


def replays_send(run_ids: list[int]) -> int:
    """Publish one message per run; a broker that cannot be reached leaves the runs queued with a note.

    After the first failure the rest are not tried (each try can wait for a connection timeout). Returns how
    many messages went out.
    """
    sent = 0
    for index, run_id in enumerate(run_ids):
        try:
            _publish(run_id)
        except Exception:  # the broker is down or refused: the rows stay queued and the sweep re-sends
            log.warning(
                "replay runs %s: could not reach the broker; they stay queued", run_ids[index:], exc_info=True
            )
            ReplayRun.objects.filter(pk__in=run_ids[index:], status=ReplayStatus.QUEUED).update(
                sent_at=None, note=BROKER_DOWN_NOTE
            )
            break
        sent += 1
        ReplayRun.objects.filter(pk=run_id).update(sent_at=timezone.now())
        ReplayRun.objects.filter(pk=run_id, note=BROKER_DOWN_NOTE).update(note="")
    return sent


def _publish(run_id: int) -> None:
    _send_replay_task(RUN_REPLAY_TASK, [run_id])


def _send_replay_task(name: str, args: list[Any]) -> None:
    """Send one of the replay tasks to the replays' queue, retrying the publish briefly; raises when the
    broker cannot take it (each caller decides what that costs)."""
    options = {"queue": REPLAY_QUEUE} if REPLAY_QUEUE else {}
    send_by_name(name, args, retry=True, retry_policy=PUBLISH_RETRY_POLICY, ignore_result=True, **options)


# Running


class _Reporter:
    """The progress callback: keeps the latest fraction, writes it with the heartbeat at least once a second,
    and stops the simulation when the run is no longer running under this claim."""

    def __init__(self, run_id: int, claim: uuid.UUID, *, keepalive: bool) -> None:
        self.run_id, self.claim = run_id, claim
        self.fraction = 0.0
        self.stopped = threading.Event()
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.last_write = time.monotonic()
        self.thread = threading.Thread(target=self._keepalive, daemon=True) if keepalive else None

    def __enter__(self) -> _Reporter:
        if self.thread is not None:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def __call__(self, fraction: float) -> None:
        self.fraction = min(1.0, max(0.0, float(fraction)))
        if self.thread is None and time.monotonic() - self.last_write >= PROGRESS_INTERVAL_S:
            self.write()
        if self.stopped.is_set():
            raise ReplayStopped()

    def write(self) -> None:
        with self.lock:
            self.last_write = time.monotonic()
            still_mine = ReplayRun.objects.filter(
                pk=self.run_id, status=ReplayStatus.RUNNING, claim=self.claim
            ).update(progress=self.fraction, heartbeat_at=timezone.now())
        if not still_mine:
            self.stopped.set()

    def _keepalive(self) -> None:
        """A real worker writes from here, so the heartbeat holds through a long simulated chunk."""
        try:
            while not self.done.wait(PROGRESS_INTERVAL_S):
                try:
                    self.write()
                except Exception:  # a database blip must not kill the run; the next beat tries again
                    log.warning("replay run %s: heartbeat failed", self.run_id, exc_info=True)
        finally:
            connection.close()


def _finish(run_id: int, claim: uuid.UUID, **fields) -> bool:
    """Write the outcome in one transaction, only if this claim still holds the running run."""
    with transaction.atomic():
        return bool(
            ReplayRun.objects.filter(pk=run_id, status=ReplayStatus.RUNNING, claim=claim).update(
                finished_at=timezone.now(), heartbeat_at=timezone.now(), **fields
            )
        )


def replay_execute(*, run_id: int, keepalive: bool = False) -> str:
    """Claim a queued run, simulate it, store the result and pass its turn on (`replays_dispatch`). Safe to
    call twice: only a queued run is claimed.

    Returns what happened: "done", "failed", "stopped" (cancelled or taken over) or "skipped" (not queued).
    `keepalive` marks a real worker: it writes the heartbeat from a thread and dispatches the candidate's next
    run when this one ends (an in-place run returns to the dispatcher that sent it, which goes on).
    """
    outcome = _execute(run_id=run_id, keepalive=keepalive)
    if keepalive and outcome != "skipped":
        candidate = ReplayRun.objects.filter(pk=run_id).values_list("round__candidate_id", flat=True)
        replays_dispatch(candidate_ids=list(candidate))
    return outcome


def _execute(*, run_id: int, keepalive: bool) -> str:
    claim = uuid.uuid4()
    now = timezone.now()
    claimed = ReplayRun.objects.filter(pk=run_id, status=ReplayStatus.QUEUED).update(
        status=ReplayStatus.RUNNING,
        claim=claim,
        attempts=F("attempts") + 1,
        claimed_at=now,
        heartbeat_at=now,
        progress=0.0,
        note="",
        seeds_taken=0,
        seeds_helped=0,
    )
    if not claimed:
        return "skipped"
    run = ReplayRun.objects.get(pk=run_id)
    spec = run.inputs
    key = replay_result_key_for(spec, round_id=run.round_id, scenario=run.scenario)
    kept = replay_result_find(key)  # the reference's side, computed while the candidate worked
    if kept is not None:
        written = _finish(run_id, claim, status=ReplayStatus.DONE, result=kept, progress=1.0, error="")
        return "done" if written else "stopped"
    try:
        return _simulate(run, claim, key, keepalive=keepalive)
    finally:
        _seed_results_forget(run_id, claim)


def _simulate(run: ReplayRun, claim: uuid.UUID, key: str, *, keepalive: bool) -> str:
    """Simulate a claimed run (sharing its seeds), keep a reference side's result, write the outcome."""
    from celery.exceptions import SoftTimeLimitExceeded

    run_id = run.pk
    try:
        with _Reporter(run_id, claim, keepalive=keepalive) as reporter:
            outcome, helped = _seeds_simulate(run, claim, reporter, ask_help=keepalive)
    except ReplayStopped:
        return "stopped"
    except SoftTimeLimitExceeded:
        _finish(run_id, claim, status=ReplayStatus.FAILED, error=f"Stopped after {SOFT_TIME_LIMIT_S} s.")
        return "failed"
    except ValueError as error:  # the simulator refused these inputs (run_scenario's parameter errors)
        _finish(run_id, claim, status=ReplayStatus.FAILED, error=f"{INPUTS_REFUSED}{error}"[:2000])
        return "failed"
    except Exception as error:  # a simulator error is the run's outcome, shown on the page
        log.warning("replay run %s failed", run_id, exc_info=True)
        _finish(run_id, claim, status=ReplayStatus.FAILED, error=f"{type(error).__name__}: {error}"[:2000])
        return "failed"
    if run.side in KEPT_SIDES:
        replay_result_keep(key, outcome)
    written = _finish(
        run_id, claim, status=ReplayStatus.DONE, result=outcome, progress=1.0, error="", seeds_helped=helped
    )
    return "done" if written else "stopped"


# Sharing a run's seeds


def _run_seeds(run: ReplayRun) -> list[int]:
    return replay_seeds(run.round_id, run.scenario, settings.REPLAY_SEEDS)


def _seeds_take(run_id: int, claim: uuid.UUID, count: int, total: int) -> list[int] | None:
    """Hand out up to `count` of the run's next seeds under `claim`: their places ([] once all are out), or
    None when the run is no longer running under the claim. A conditional update, so two takers never get
    the same seed."""
    while True:
        taken = (
            ReplayRun.objects.filter(pk=run_id, status=ReplayStatus.RUNNING, claim=claim)
            .values_list("seeds_taken", flat=True)
            .first()
        )
        if taken is None:
            return None
        upto = min(total, taken + count)
        if upto == taken:
            return []
        if ReplayRun.objects.filter(
            pk=run_id, status=ReplayStatus.RUNNING, claim=claim, seeds_taken=taken
        ).update(seeds_taken=upto):
            return list(range(taken, upto))


def _seeds_run_and_store(
    run: ReplayRun, claim: uuid.UUID, seeds: list[int], places: list[int], progress, *, helped: bool
) -> None:
    """Simulate the seeds at `places` of the run's `seeds` and store each one's run under the claim."""
    sweep = run_scenario_seeds(*simulator_args(run.inputs), [seeds[place] for place in places], progress)
    ReplaySeedResult.objects.bulk_create(
        [
            ReplaySeedResult(run_id=run.pk, claim=claim, index=place, result=result.to_dict(), helped=helped)
            for place, result in zip(places, sweep.results, strict=True)
        ],
        ignore_conflicts=True,  # a seed the claiming worker simulated again after its helper's grace ran out
    )


def _seed_places_stored(run_id: int, claim: uuid.UUID) -> set[int]:
    return set(ReplaySeedResult.objects.filter(run_id=run_id, claim=claim).values_list("index", flat=True))


def _seed_results_forget(run_id: int, claim: uuid.UUID) -> None:
    """Only this claim's: a run taken over meanwhile has its new claim's seeds stored beside them (the sweep
    forgets what other claims leave once the run is finished)."""
    ReplaySeedResult.objects.filter(run_id=run_id, claim=claim).delete()


def _seeds_simulate(run: ReplayRun, claim: uuid.UUID, progress, *, ask_help: bool) -> tuple[dict, int]:
    """The claiming worker's share of a run: take seeds (as many at a time as it runs in threads) until all
    are out, asking a helper once (`ask_help`, a real worker), then wait for the seeds a helper took. Returns
    the run's result (`seed_runs_dict`, in seed order) and how many of its seeds a helper simulated."""
    seeds = _run_seeds(run)
    total, batch = len(seeds), seed_threads()
    slowest = 0.0
    asked = not ask_help
    while True:
        places = _seeds_take(run.pk, claim, batch, total)
        if places is None:
            raise ReplayStopped()
        if not places:
            break
        if not asked and places[-1] + 1 < total:
            _help_ask(run.pk, claim)
            asked = True
        done = len(_seed_places_stored(run.pk, claim))
        started = time.monotonic()

        def part(fraction: float, done: int = done, size: int = len(places)) -> None:
            progress(min(1.0, (done + fraction * size) / total))

        _seeds_run_and_store(run, claim, seeds, places, part, helped=False)
        slowest = max(slowest, time.monotonic() - started)
    deadline = time.monotonic() + HELPER_GRACE_S + 2 * slowest
    while len(stored := _seed_places_stored(run.pk, claim)) < total:
        progress(len(stored) / total)  # raises ReplayStopped when the run left this claim
        if time.monotonic() < deadline:
            time.sleep(SEED_POLL_S)
            continue
        missing = [place for place in range(total) if place not in stored]
        log.warning("replay run %s: seeds %s not back from a helper; simulated here", run.pk, missing)
        _seeds_run_and_store(
            run, claim, seeds, missing, lambda _: progress(len(stored) / total), helped=False
        )
    rows = ReplaySeedResult.objects.filter(run_id=run.pk, claim=claim).order_by("index")
    results, helped = [], 0
    for result, by_helper in rows.values_list("result", "helped"):
        results.append(result)
        helped += by_helper
    return seed_runs_dict(seeds, results), helped


def _help_ask(run_id: int, claim: uuid.UUID) -> None:
    """Send the run's help message; a broker that cannot take it costs only the help."""
    try:
        _send_replay_task(HELP_REPLAY_TASK, [run_id, str(claim)])
    except Exception:
        log.warning("replay run %s: its help message could not be sent", run_id, exc_info=True)


class _ClaimWatch:
    """A helper's progress callback: at most every PROGRESS_INTERVAL_S it checks that the run is still
    running under the claim, and stops the helper's simulation when it is not."""

    def __init__(self, run_id: int, claim: uuid.UUID) -> None:
        self.run_id, self.claim = run_id, claim
        self.last_check = time.monotonic()

    def __call__(self, fraction: float) -> None:
        if time.monotonic() - self.last_check < PROGRESS_INTERVAL_S:
            return
        self.last_check = time.monotonic()
        mine = ReplayRun.objects.filter(pk=self.run_id, status=ReplayStatus.RUNNING, claim=self.claim)
        if not mine.exists():
            raise ReplayStopped()


def replay_help(*, run_id: int, claim: str) -> str:
    """A helper's share of a running run: take its next seeds under `claim` and store their results until
    none are left. Returns "helped" (it stored at least one), "skipped" (nothing was left, or the run is no
    longer running under the claim), "stopped" (the run left the claim meanwhile) or "failed" (the claiming
    worker simulates the seed itself)."""
    token = uuid.UUID(str(claim))
    run = ReplayRun.objects.filter(pk=run_id, status=ReplayStatus.RUNNING, claim=token).first()
    if run is None:
        return "skipped"
    seeds, batch, helped = _run_seeds(run), seed_threads(), 0
    watch = _ClaimWatch(run_id, token)
    try:
        while places := _seeds_take(run_id, token, batch, len(seeds)):
            _seeds_run_and_store(run, token, seeds, places, watch, helped=True)
            helped += len(places)
    except ReplayStopped:
        return "stopped"
    except Exception:  # the claiming worker simulates the seed after its grace and reports its error
        log.warning("replay run %s: a helper's seed failed", run_id, exc_info=True)
        return "failed"
    return "helped" if helped else "skipped"


# Ahead of submit: the sides that do not depend on the candidate


def reference_replays_prepare_later(round_) -> None:
    """When a round starts: send one task per scenario for each side the candidate's numbers do not change
    (the reference's, a review's reference fix), so that they are simulated while the candidate works and
    the submit finds them kept (`replay_results`). Without a worker (tasks run in place) nothing is sent: a
    round's start must not wait for its replays; the submit simulates them. A broker that cannot be reached
    costs nothing but the head start."""
    if tasks_run_in_place():
        return
    sides = [side for side in round_sides(round_) if side in KEPT_SIDES]
    try:
        for scenario in round_.question_version.spec.get("scenarios") or []:
            for side in sides:
                _send_replay_task(PREPARE_REFERENCE_TASK, [round_.pk, scenario["name"], str(side)])
    except Exception:  # the broker is down: the submit's runs simulate the reference themselves
        log.warning("round %s: the reference replays could not be sent ahead", round_.pk, exc_info=True)


def reference_replay_prepare(*, round_id: int, scenario: str, side: str) -> str:
    """Simulate one scenario of a round for a side the candidate does not change and keep the result under
    its key. Returns "kept", "known" (already kept), "failed" (the submit's run will simulate it and report
    why) or "skipped" (no such round, scenario or side)."""
    round_ = Round.objects.select_related("question_version").filter(pk=round_id).first()
    if round_ is None or side not in KEPT_SIDES or side not in round_sides(round_):
        return "skipped"
    try:
        inputs = _inputs_by_scenario(round_, side).get(scenario)
    except ValueError:
        return "failed"
    if inputs is None:
        return "skipped"
    key = replay_result_key_for(inputs, round_id=round_id, scenario=scenario)
    if replay_result_find(key) is not None:
        return "known"
    seeds = replay_seeds(round_id, scenario, settings.REPLAY_SEEDS)
    try:
        result = run_scenario_seeds(*simulator_args(inputs), seeds)
    except Exception:
        log.warning("round %s: %s side of %s failed ahead of submit", round_id, side, scenario, exc_info=True)
        return "failed"
    replay_result_keep(key, result.to_dict())
    return "kept"


# The periodic sweep


def replays_sweep(*, now=None, stale_after_s: float = STALE_AFTER_S) -> dict:
    """Requeue runs whose worker died, re-send runs whose message was lost, and dispatch waiting runs (those
    the broker never got included); forget results kept longer than `replay_results.RESULTS_KEPT_FOR` and
    seed results of finished runs.

    A run that lost its worker MAX_ATTEMPTS times is marked failed instead. Returns counts by action.
    """
    now = now or timezone.now()
    replay_results_forget(now=now)
    # a helper's seed stored after its run had finished (it came back after the claiming worker's grace)
    ReplaySeedResult.objects.filter(run__status__in=FINISHED_STATUSES).delete()
    stale = ReplayRun.objects.filter(
        status=ReplayStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=stale_after_s)
    ).values_list("pk", "attempts")
    requeued, gave_up = [], 0
    for run_id, attempts in stale:
        still_stale = ReplayRun.objects.filter(
            pk=run_id, status=ReplayStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=stale_after_s)
        )
        if attempts >= MAX_ATTEMPTS:
            gave_up += still_stale.update(
                status=ReplayStatus.FAILED,
                finished_at=now,
                claim=None,
                error=f"The worker running this replay was lost {attempts} times.",
            )
        elif still_stale.update(
            status=ReplayStatus.QUEUED,
            claim=None,
            sent_at=None,  # waiting again; its turn is free, so the dispatch below sends it first
            note="The worker running this replay was lost; it restarts.",
        ):
            requeued.append(run_id)
    lost = ReplayRun.objects.filter(
        status=ReplayStatus.QUEUED, sent_at__lt=now - timedelta(seconds=LOST_MESSAGE_AFTER_S)
    )
    lost_ids = sorted(lost.values_list("pk", flat=True))
    resent = replays_send(lost_ids)
    dispatched = replays_dispatch() if resent == len(lost_ids) else {"sent": 0, "unreachable": 0}
    return {
        "requeued": len(requeued),
        "failed": gave_up,
        "resent": resent + dispatched["sent"],
        "unreachable": len(lost_ids) - resent + dispatched["unreachable"],
    }


# Scoring


def replay_failure_report(round_) -> dict | None:
    """The failure-modes score and each scenario's credit and reasons (`grading.core.failure_modes`); None
    while any run is unfinished or nothing is left to score.

    A design round judges the candidate side against the reference side; a review round judges the fixed
    design (candidate side) against the reference fix (its SLOs met, its cost), never against the given design
    on the reference side (with no reference fix, against the SLOs alone). A candidate run the simulator
    refused scores 0 (a design that cannot run meets no SLO); cancelled runs and runs lost by their worker are
    left out.
    """
    runs = replays_current(round_=round_)
    if not runs or any(run.status not in FINISHED_STATUSES for run in runs):
        return None
    done = [run for run in runs if run.status == ReplayStatus.DONE]
    refused = {  # the simulator refused the candidate's numbers: scored 0, not left out
        run.scenario: {"error": run.error}
        for run in runs
        if run.side == ReplaySide.CANDIDATE and run.error.startswith(INPUTS_REFUSED)
    }
    candidate = refused | {run.scenario: run.result for run in done if run.side == ReplaySide.CANDIDATE}
    titles = {run.scenario: run.title for run in runs}
    if _is_review(round_):
        fix = {run.scenario: run.result for run in done if run.side == ReplaySide.FIX}
        report = fixed_failure_report(candidate, fix or None, titles=titles)
    else:
        reference = {run.scenario: run.result for run in done if run.side == ReplaySide.REFERENCE}
        report = failure_report(candidate, reference, titles=titles)
    return report if report["score"] is not None else None


def replay_failure_score(round_) -> float | None:
    """0–100 from `replay_failure_report`; None while any run is unfinished or with nothing to score."""
    report = replay_failure_report(round_)
    return None if report is None else report["score"]


def review_replays_from_runs(*, round_) -> dict | None:
    """A review round's replays section built from its finished runs (reference side = the given design,
    candidate side = the fixed design, fix side = the reference fix) with the fixed design's failure report;
    None while any run is queued or running, or none exist yet."""
    runs = replays_current(round_=round_)
    if not runs or any(run.status not in FINISHED_STATUSES for run in runs):
        return None
    by_scenario: dict[str, dict[str, ReplayRun]] = {}
    for run in runs:
        by_scenario.setdefault(run.scenario, {})[run.side] = run
    rows = []
    for scenario, sides in by_scenario.items():
        given, fixed = sides.get(ReplaySide.REFERENCE), sides.get(ReplaySide.CANDIDATE)
        fix = sides.get(ReplaySide.FIX)
        anyone = given or fixed
        assert anyone is not None  # a scenario is listed for a run of one side at least
        rows.append(
            {
                "scenario": scenario,
                "title": anyone.title,
                "given": _review_side_of(given),
                "fixed": _review_side_of(fixed),
                **({"reference_fix": _review_side_of(fix)} if fix is not None else {}),
                "fallbacks": (fixed.inputs.get("fallbacks") if fixed is not None else None) or {},
            }
        )
    report = replay_failure_report(round_)
    return review_replays_summary(rows, report or {"score": None, "scenarios": {}})


def _review_side_of(run: ReplayRun | None) -> dict:
    if run is None:
        return review_side(None, "This side was not replayed.")
    if run.status != ReplayStatus.DONE:
        return review_side(None, run.error or f"The replay was {run.get_status_display().lower()}.")
    return review_side(run.result)
