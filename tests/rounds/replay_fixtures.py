"""Helpers for the replay tests: a question with scenarios, a submitted practice round, slow runs."""

import os
import shutil
from pathlib import Path

from django.utils import timezone

from grading.core.sim.engines import ENGINE_ENV

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
QUESTION_SLUG = "seven-boxes-serving-walkthrough"
CANDIDATE_NUMBERS = {"replicas": "12", "b_max": "64", "tpot": "banana", "arrival_rate": "65 req/s"}

# 60 req/s on the per-step engine for an hour or so: several seconds of simulation with steady progress, on
# the reference Python loop (SEVENBOX_SIM_ENGINE=python, in the workers these tests start). The compiled loop
# runs it 6-8x faster, too fast to watch in flight, and the simulator's caps (5M requests, ~20M engine steps a
# replay) leave no room to make it that much longer.
SLOW_INPUTS = {
    "scenario": "slow-steady-load",
    "title": "Steady load for a long time",
    "description": "A long replay, for watching progress.",
    "family": "serving",
    "params": {"arrival_rate": 60, "replicas": 16, "max_batch": 64, "prompt_tokens": 1000, "tpot_s": 0.04},
    "events": [{"at": 60, "type": "burst", "factor": 1.5, "duration": 120}],
    "slo": {"ttft_p95_s": 2.0},
    "duration_s": 4500,
    "sources": {},
    "side": "candidate",
    "fallbacks": {},
}


def load_question(tmp_path: Path):
    from questions.models import Question
    from questions.services.question_bank import question_bank_load

    folder = tmp_path / "bank"
    folder.mkdir(exist_ok=True)
    shutil.copy(BANK / f"{QUESTION_SLUG}.yaml", folder)
    report = question_bank_load(folder=folder)
    assert not report.errors, report.errors
    return Question.objects.get(slug=QUESTION_SLUG)


def submitted_round(candidate, question, numbers: dict | None = None):
    """A practice round with `numbers` saved, marked submitted (the grader is not needed for replays)."""
    from rounds.models import Round, RoundStatus, Work
    from rounds.services.rounds import round_start

    round_ = round_start(candidate=candidate, question=question, mode="practice")
    Work.objects.filter(round=round_).update(numbers=dict(CANDIDATE_NUMBERS if numbers is None else numbers))
    Round.objects.filter(pk=round_.pk).update(status=RoundStatus.SUBMITTED, submitted_at=timezone.now())
    round_.refresh_from_db()
    return round_


def slow_run(round_, *, duration_s: float = 4500, scenario: str = "slow-steady-load"):
    """A queued run with hand-made, slow inputs (no message sent)."""
    from grading.core.replay_inputs import replay_seed, simulator_version
    from rounds.models import ReplayRun

    return ReplayRun.objects.create(
        round=round_,
        scenario=scenario,
        side="candidate",
        seed=replay_seed(round_.pk, scenario),
        simulator_version=simulator_version(),
        inputs={**SLOW_INPUTS, "scenario": scenario, "duration_s": duration_s},
    )


def worker_environment(*, replay_seeds: int = 1) -> dict[str, str]:
    """The environment of a worker process of its own on this test's PostgreSQL database and Redis broker."""
    from django.db import connection

    settings_dict = connection.settings_dict
    database_url = (
        f"postgres://{settings_dict['USER']}:{settings_dict['PASSWORD'] or ''}@{settings_dict['HOST']}:"
        f"{settings_dict['PORT'] or 5432}/{settings_dict['NAME']}"
    )
    return {
        **os.environ,
        ENGINE_ENV: "python",  # its runs are watched in flight: see SLOW_INPUTS
        "DATABASE_URL": database_url,
        "REDIS_URL": os.environ["REDIS_URL"],
        "DEBUG": "0",
        "REPLAY_SEEDS": str(replay_seeds),
        "SECRET_KEY": "replay-worker-test-only-0123456789abcdefghijklmnop",
    }
