"""One scenario over several seeds: the runs are the single-seed runs, counted and spread."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from grading.core.replay_inputs import replay_seed, replay_seeds
from grading.core.sim import run_scenario, run_scenario_seeds, seed_runs_dict


@pytest.fixture
def settings() -> SimpleNamespace:
    """Stands in for pytest-django's fixture that the root conftest's autouse hook asks for (no Django)."""
    return SimpleNamespace()


# 3 replicas of 40 ms decode steps, 300-token prompts: light enough that TTFT sits near 0.1-0.3 s, so a
# p95 target of 0.2 s splits the seeds
PARAMS = {"arrival_rate": 6, "replicas": 3, "max_batch": 16, "prompt_tokens": 300, "output_tokens": 60}


def test_each_run_is_the_single_seed_run_and_the_count_is_of_the_passing_runs():
    seeds = [1, 2, 3, 4]
    slo = {"ttft_p95_s": 0.2}
    runs = run_scenario_seeds("serving", PARAMS, [], slo, 120.0, seeds)
    alone = [run_scenario("serving", PARAMS, [], slo, 120.0, seed) for seed in seeds]
    assert [r.to_dict() for r in runs.results] == [r.to_dict() for r in alone]
    passed = [r.passed for r in alone]
    assert runs.met == sum(passed) and runs.runs == 4
    assert runs.met_share == sum(passed) / 4
    assert runs.seed_dependent == (0 < sum(passed) < 4)
    p95 = [r.summary["ttft_p95_s"] for r in alone]
    spread = runs.spread("ttft_p95_s")
    assert spread["min"] == pytest.approx(min(p95), rel=1e-5)
    assert spread["max"] == pytest.approx(max(p95), rel=1e-5)
    (check,) = runs.check_spread()
    assert check["key"] == "ttft_p95_s" and check["met"] == sum(passed)
    assert check["actuals"] == pytest.approx(p95, rel=1e-5)
    as_dict = runs.to_dict()
    assert as_dict["met"] == runs.met and len(as_dict["results"]) == 4


def stored_run(passed: bool, actual: float | None, summary: dict) -> dict:
    """A run as stored (`ScenarioResult.to_dict()`): a TTFT p95 check of 2 s."""
    check = {"key": "ttft_p95_s", "words": "TTFT p95 within 2 s", "target": 2.0, "actual": actual}
    return {"family": "serving", "passed": passed, "slo_checks": [{**check, "passed": passed}],
            "summary": summary, "series": {}, "narrative": []}  # fmt: skip


def test_runs_gathered_from_their_stored_form_are_counted_and_spread_by_hand():
    runs = [
        stored_run(True, 1.5, {"ttft_p95_s": 1.5, "completed": 100, "dropped_all": True}),
        stored_run(False, 3.0, {"ttft_p95_s": 3.0, "completed": 90, "recovery_s": 40.0}),
        stored_run(True, None, {"ttft_p95_s": None, "completed": 80, "recovery_s": None}),
    ]
    gathered = seed_runs_dict([7, 8, 9], runs)
    assert (gathered["seeds"], gathered["runs"], gathered["met"]) == ([7, 8, 9], 3, 2)
    assert gathered["met_share"] == pytest.approx(2 / 3) and gathered["seed_dependent"] is True
    assert gathered["checks"] == [
        {
            "key": "ttft_p95_s",
            "words": "TTFT p95 within 2 s",
            "target": 2.0,
            "met": 2,
            "actuals": [1.5, 3.0, None],
        }
    ]
    # every figure some run defines (a flag is no figure), None where a run leaves it undefined
    assert sorted(gathered["figures"]) == ["completed", "recovery_s", "ttft_p95_s"]
    assert gathered["figures"]["completed"] == {"values": [100, 90, 80], "min": 80, "median": 90, "max": 100}
    assert gathered["figures"]["ttft_p95_s"] == {
        "values": [1.5, 3.0, None],
        "min": 1.5,
        "median": 2.25,
        "max": 3.0,
    }
    assert gathered["figures"]["recovery_s"] == {
        "values": [None, 40.0, None],
        "min": 40.0,
        "median": 40.0,
        "max": 40.0,
    }
    assert gathered["results"] == runs


def test_progress_covers_all_the_runs_once_in_order():
    seen: list[float] = []
    run_scenario_seeds("serving", PARAMS, [], {}, 60.0, [5, 6], seen.append, threads=1)
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert any(0.45 <= f <= 0.55 for f in seen)  # the first run's end is half of the whole


def test_runs_in_threads_are_the_runs_one_after_another_in_seed_order():
    seeds = [3, 1, 2]  # not sorted: the results follow the seeds as given
    threaded = run_scenario_seeds("serving", PARAMS, [], {"ttft_p95_s": 0.2}, 90.0, seeds, threads=3)
    in_turn = run_scenario_seeds("serving", PARAMS, [], {"ttft_p95_s": 0.2}, 90.0, seeds, threads=1)
    assert threaded.seeds == (3, 1, 2)
    assert [r.to_dict() for r in threaded.results] == [r.to_dict() for r in in_turn.results]


def test_threaded_progress_is_reported_from_the_calling_thread_rising_to_one():
    seen: list[tuple[float, str]] = []
    run_scenario_seeds(
        "serving",
        PARAMS,
        [],
        {},
        600.0,
        [5, 6, 7],
        lambda f: seen.append((f, threading.current_thread().name)),
        threads=2,
    )
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert {name for _, name in seen} == {threading.current_thread().name}


def test_a_progress_callback_that_raises_ends_the_threaded_runs_with_its_error():
    class Stop(Exception):
        pass

    calls = 0

    def stop(fraction: float) -> None:
        nonlocal calls
        calls += 1
        raise Stop

    before = threading.active_count()
    with pytest.raises(Stop):
        run_scenario_seeds("serving", PARAMS, [], {}, 3600.0, [1, 2, 3, 4], stop, threads=2)
    assert calls == 1  # the first report stops it; nothing is reported after
    assert threading.active_count() == before  # the seeds' threads are gone when it returns


def test_a_parameter_error_in_threads_is_the_runs_error():
    with pytest.raises(ValueError, match="replicas"):
        run_scenario_seeds("serving", {**PARAMS, "replicas": -1}, [], {}, 60.0, [1, 2], threads=2)


def test_no_seeds_is_refused():
    with pytest.raises(ValueError, match="at least one seed"):
        run_scenario_seeds("serving", PARAMS, [], {}, 60.0, [])


def test_a_rounds_seeds_start_with_its_single_seed_and_differ():
    seeds = replay_seeds(42, "steady", 5)
    assert seeds[0] == replay_seed(42, "steady")
    assert len(set(seeds)) == 5
    assert replay_seeds(42, "steady", 5) == seeds


def test_a_worker_process_takes_its_share_of_the_cpus_and_never_none():
    from grading.core.sim.seeds import worker_seed_threads

    assert worker_seed_threads(2, 2) == 1  # two processes on two cores: one seed at a time each, not two
    assert worker_seed_threads(8, 2) == 4
    assert worker_seed_threads(8, 3) == 2  # 8 // 3: a spare core rather than oversubscribed
    assert worker_seed_threads(2, 4) == 1  # more processes than cores: still one thread
    assert worker_seed_threads(4, 0) == 4  # a nonsense concurrency counts as one process
