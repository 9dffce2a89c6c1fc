"""Words people read in the replays and the review report: a count in the number it needs, no unit after
"n/a", a flaw kind with its acronyms."""

from grading.core.sim.narrative import counted, seconds
from grading.core.sim.serving_narrative import _log_sentence


def test_a_count_of_one_is_singular_and_any_other_plural():
    assert counted(1, "replica") == "1 replica"
    assert counted(3, "replica") == "3 replicas"
    assert counted(0, "region") == "0 regions"


def test_a_duration_with_no_value_has_no_unit():
    assert seconds(None) == "n/a"
    assert seconds(float("nan")) == "n/a"
    assert seconds(86.7) == "86.7 s"


def test_one_replica_ordered_or_lost_reads_in_the_singular():
    assert _log_sentence(120.0, "add", {"count": 1, "ready_at": 200.0}, {}) == (
        "At t=120 s 1 replica ordered, ready at t=200 s."
    )
    lost = _log_sentence(120.0, "replica_loss", {"count": 1, "in_flight": 4}, {"retry_lost": False})
    assert lost == "At t=120 s 1 replica died with 4 requests in flight, lost."
    back = _log_sentence(300.0, "region_back", {"region": 1, "replicas": 1}, {})
    assert back == "At t=300 s region 1 came back with 1 replica."
