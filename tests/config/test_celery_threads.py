"""A Celery worker's processes share the CPUs for a replay's seeds instead of each taking them all."""

import pytest

from config.celery import share_cpus_between_processes


@pytest.fixture
def two_cpus(monkeypatch):
    monkeypatch.setattr("grading.core.sim.seeds.usable_cpus", lambda: 2)


def test_a_worker_of_two_processes_on_two_cores_runs_one_seed_at_a_time_in_each(two_cpus):
    environ: dict[str, str] = {}
    share_cpus_between_processes(2, environ)
    assert environ == {"SEVENBOX_SIM_THREADS": "1"}  # 2 CPUs // 2 processes


def test_a_worker_of_one_process_keeps_every_cpu(two_cpus):
    environ: dict[str, str] = {}
    share_cpus_between_processes(1, environ)
    assert environ == {"SEVENBOX_SIM_THREADS": "2"}


def test_an_operators_setting_wins(two_cpus):
    environ = {"SEVENBOX_SIM_THREADS": "2"}
    share_cpus_between_processes(2, environ)
    assert environ == {"SEVENBOX_SIM_THREADS": "2"}


def test_an_automatic_concurrency_counts_one_process_a_cpu(two_cpus):
    environ: dict[str, str] = {}
    share_cpus_between_processes("auto", environ)
    assert environ == {"SEVENBOX_SIM_THREADS": "1"}
