"""Celery tasks for replays: each takes an id (or nothing) and calls one service in
rounds/services/replays.py."""

from celery import shared_task

from rounds.services.replays import (
    HARD_TIME_LIMIT_S,
    HELP_REPLAY_TASK,
    PREPARE_REFERENCE_TASK,
    RUN_REPLAY_TASK,
    SOFT_TIME_LIMIT_S,
    reference_replay_prepare,
    replay_execute,
    replay_help,
    replays_sweep,
)


@shared_task(
    bind=True,
    name=RUN_REPLAY_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=SOFT_TIME_LIMIT_S,
    time_limit=HARD_TIME_LIMIT_S,
    ignore_result=True,
)
def run_replay(self, run_id: int) -> str:
    """Run one replay; a duplicate or late message finds the run no longer queued and does nothing."""
    return replay_execute(run_id=run_id, keepalive=not self.request.is_eager)


@shared_task(
    name=HELP_REPLAY_TASK,
    soft_time_limit=SOFT_TIME_LIMIT_S,
    time_limit=HARD_TIME_LIMIT_S,
    ignore_result=True,
)
def help_replay(run_id: int, claim: str) -> str:
    """Simulate a running run's next seeds beside the worker that claimed it; not redelivered if lost: that
    worker simulates a seed whose result does not come back."""
    return replay_help(run_id=run_id, claim=claim)


@shared_task(
    name=PREPARE_REFERENCE_TASK,
    soft_time_limit=SOFT_TIME_LIMIT_S,
    time_limit=HARD_TIME_LIMIT_S,
    ignore_result=True,
)
def prepare_reference_replay(round_id: int, scenario: str, side: str) -> str:
    """When a round starts: one scenario's reference side, simulated and kept for the submit."""
    return reference_replay_prepare(round_id=round_id, scenario=scenario, side=side)


@shared_task(name="grading.sweep_replays", ignore_result=True)
def sweep_replays() -> dict:
    """Periodic: re-send runs the broker never got, and requeue runs whose worker was lost."""
    return replays_sweep()
