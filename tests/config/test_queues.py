"""The periodic sweeps, mail and the health ping go to the upkeep queue, which compose serves with a worker of
its own running beat; the replay worker takes only replays."""

import shlex
from pathlib import Path

import yaml

from config.celery import app as celery_app

COMPOSE = Path(__file__).resolve().parents[2] / "docker" / "compose.yaml"
UPKEEP_TASKS = (
    "grading.sweep_replays",
    "interview.complete_reviews",
    "interview.send_mail",
    "interview.send_invitation_mail",
    "sevenbox.ping",
)


def queue_of(task_name: str) -> str:
    return celery_app.amqp.router.route({}, task_name)["queue"].name


def worker_queues(command: str) -> set[str]:
    words = shlex.split(command)
    return set(words[words.index("-Q") + 1].split(","))


def test_upkeep_tasks_have_their_own_queue_and_replays_keep_the_default_one():
    assert {queue_of(name) for name in UPKEEP_TASKS} == {"upkeep"}
    assert queue_of("grading.run_replay") == "celery"


def test_compose_serves_the_upkeep_queue_with_a_worker_of_its_own_that_runs_beat():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    upkeep, replays = services["upkeep"]["command"], services["worker"]["command"]
    assert worker_queues(upkeep) == {"upkeep"} and "--beat" in shlex.split(upkeep)
    assert worker_queues(replays) == {"celery"} and "--beat" not in shlex.split(replays)
