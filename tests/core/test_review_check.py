"""Design-review grading (grading/core/review_check.py): marks against planted flaws, ranking, replays."""

from pathlib import Path

import pytest

from grading.core.design_check import load_index
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.question_types import QuestionSpec
from grading.core.review_check import (
    FOUND,
    check_marks,
    check_ranking,
    grade_review,
    read_marks,
    text_names_kind,
)
from grading.core.submission import read_submission

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"


@pytest.fixture(scope="module")
def spec() -> QuestionSpec:
    return load_question(BANK / "eight-gpu-design-review.yaml")


def given_design(spec: QuestionSpec, marks: list[dict]) -> dict:
    return {
        "nodes": [{"id": n.id, "kind": n.kind, "label": n.label, "job": n.job} for n in spec.design.nodes],
        "edges": [{"source": e.source, "target": e.target, "label": e.label} for e in spec.design.edges],
        "marks": marks,
    }


EVERY_FLAW = [
    {
        "target": "eng",
        "what": "JSON checked only after generation",
        "how": "invalid output reruns the request",
    },
    {
        "target": "eng->st",
        "what": "Socket writes in the engine loop",
        "how": "a slow client stalls the batch",
    },
    {"target": "aq", "what": "FIFO has no limit", "how": "queue grows without bound past 30 s"},
    {"target": "aq->sch", "what": "No deadline check", "how": "requests that are already late still start"},
    {
        "target": "sch",
        "what": "256 x 6,600 tokens is more KV than 8 GPUs hold",
        "how": "preemption, recompute",
    },
    {"target": "eng", "what": "TP8 across two servers", "how": "all-reduce over one 100 Gb/s Ethernet link"},
    {"target": "eng", "what": "One replica is a single point of failure", "how": "a lost server stops all"},
]
RANKED = [
    {"text": "Constrained decoding against the schema", "category": "correctness"},
    {"text": "Bound the queue, reject what cannot finish in 30 s", "category": "admission"},
    {"text": "Two TP4 replicas, one per server", "category": "placement"},
    {"text": "A third server for headroom", "category": "infrastructure"},
]


def test_a_complete_review_finds_every_flaw_with_no_false_alarm_and_a_good_ranking(spec):
    report = grade_review(spec, {"numbers": {}, "design": given_design(spec, EVERY_FLAW), "fixes": RANKED})
    review = report["review"]
    assert review["missed"] == []
    assert set(review["found"]) == {flaw.id for flaw in spec.review.flaws}
    assert review["false_alarms"] == 0 and review["duplicates"] == 0
    assert review["ranking"]["ok"] and review["ranking"]["verdict"] == "ok"
    assert review["scores"]["flaws"] == 1 and review["scores"]["precision"] == 1
    assert all(row["description"] for row in review["flaws"])
    assert report["scores"]["review"] == review["scores"]["review"]
    # The given design misses its deadline in the replays; both sides are reported per scenario.
    steady = next(row for row in review["replays"]["scenarios"] if row["scenario"] == "steady-load")
    assert steady["given"]["passed"] is False and "fixed" in steady


def test_a_mark_on_a_box_without_a_planted_flaw_is_a_false_alarm(spec):
    marks = [*EVERY_FLAW[:2], {"target": "gw", "what": "No TLS on the gateway", "how": "traffic can be read"}]
    review = grade_review(spec, {"design": given_design(spec, marks), "fixes": RANKED})["review"]
    assert review["false_alarms"] == 1
    alarm = review["marks"][2]
    assert alarm["verdict"] == "false_alarm" and alarm["flaw"] is None
    assert len(review["found"]) == 2 and len(review["missed"]) == len(spec.review.flaws) - 2
    assert review["scores"]["precision"] == pytest.approx(2 / 3, abs=1e-3)


def test_the_right_failure_on_the_wrong_box_is_a_false_alarm_that_says_where_it_was(spec):
    marks = [{"target": "gw", "what": "Unbounded queue", "how": "grows without limit"}]
    review = grade_review(spec, {"design": given_design(spec, marks)})["review"]
    assert review["marks"][0]["verdict"] == "false_alarm"
    assert "FIFO (no limit)" in review["marks"][0]["message"]


def test_a_ranking_that_puts_new_infrastructure_first_fails(spec):
    fixes = [RANKED[3], *RANKED[:3]]
    report = grade_review(spec, {"design": given_design(spec, EVERY_FLAW), "fixes": fixes})
    ranking = report["review"]["ranking"]
    assert ranking["ok"] is False and ranking["verdict"] == "infrastructure_first"
    assert "Fix 1" in ranking["message"]
    assert report["review"]["scores"]["ranking"] == 0
    good = grade_review(spec, {"design": given_design(spec, EVERY_FLAW), "fixes": RANKED})
    assert report["scores"]["overall"] < good["scores"]["overall"]


def test_no_fixes_is_not_a_good_ranking():
    assert check_ranking([])["verdict"] == "no_fixes"
    assert check_ranking([{"text": "a", "category": "admission"}])["ok"]


def test_a_duplicate_mark_does_not_count_twice(spec):
    marks = [EVERY_FLAW[2], {"target": "aq", "what": "unbounded FIFO", "how": "queue explodes"}]
    review = grade_review(spec, {"design": given_design(spec, marks)})["review"]
    assert [row["verdict"] for row in review["marks"]] == [FOUND, "duplicate"]
    assert review["false_alarms"] == 0 and len(review["found"]) == 1


def test_components_match_with_the_design_checks_tolerance(spec):
    # A box redrawn with a new id and a label from the palette's synonyms still counts as the queue.
    design = given_design(spec, [{"target": "q2", "what": "no limit on the queue", "how": ""}])
    design["nodes"].append({"id": "q2", "kind": "", "label": "Request queue"})
    boxes = read_submission({"design": design}).boxes
    result = check_marks(spec, read_marks(design), boxes, load_index())
    assert result["found"] == ["fifo-without-bound"]
    # An arrow flaw is found from the arrow drawn backwards, or from a box at one of its ends.
    for target in ("st->eng", "st"):
        marks = read_marks({"marks": [{"target": target, "what": "slow client blocks", "how": ""}]})
        assert check_marks(spec, marks, boxes, load_index())["found"] == ["engine-blocks-on-client"]


def test_failure_kinds_are_read_from_free_text():
    assert text_names_kind("The batch gets preempted when memory runs out", "kv_overcommit")
    assert text_names_kind("Queue explodes", "unbounded_queue")
    assert not text_names_kind("the queue is fine", "unbounded_queue")
    assert text_names_kind("a masked outage", "masked_outage")
    assert text_names_kind("some brand new kind", "brand_new_kind")  # the kind's own name always counts


def test_the_report_is_deterministic(spec):
    submission = {"design": given_design(spec, EVERY_FLAW), "fixes": RANKED, "numbers": {}}
    assert grade_review(spec, submission) == grade_review(spec_to_dict(spec), submission)


def test_a_design_question_is_graded_as_before():
    spec = load_question(BANK / "kv-cache-tiering.yaml")
    report = grade_review(spec, {"numbers": {}, "fixes": []})
    assert "review" not in report


# The bank's review questions: each flaw's scenario shows the failure on the given design and passes on the
# reference fix (the review's fix lines in the question file, its quantity-named values evaluated).
REVIEW_SLUGS = ("eight-gpu-design-review", "gateway-fallback-review", "training-cluster-review")


def bank_fix(slug: str) -> dict[str, str]:
    from grading.core.review_check import reference_fix_numbers

    return reference_fix_numbers(spec_to_dict(load_question(BANK / f"{slug}.yaml")))


def test_the_reference_fixes_are_read_from_the_bank_with_their_quantities_evaluated():
    # eight-gpu: six servers (ceil(5 x ~0.70 s / 0.7) + 1, by the question's arithmetic), TP4, the 67
    # 6,600-token sequences a 4-GPU server's 146.9 GB of KV room holds (448,303 tok / 6,600), the queue bound
    # (30 - 17.4 s) x 8.6 req/s ~ 109, a 6 s wait limit.
    fix = bank_fix("eight-gpu-design-review")
    assert fix["replicas"] == "6 replica" and fix["tp_gpus"] == "4 GPU" and fix["max_batch_cfg"] == "67 req"
    assert float(fix["queue_limit"].split()[0]) == pytest.approx(109, abs=1)
    assert fix["queue_wait_limit"] == "6 s"
    # gateway: ten replicas (80 req/s at peak x ~124 ms a request), a batch of 96, 300 queued, 2 s, and a
    # fallback quota that carries the 40 req/s offered.
    assert bank_fix("gateway-fallback-review") == {
        "replicas": "10 replica",
        "max_batch": "96 req",
        "queue_limit": "300 req",
        "queue_wait_limit": "2 s",
        "fallback_rate": "40 req/s",
    }
    assert bank_fix("training-cluster-review")["health_check_period"] == "1 min"


@pytest.mark.parametrize("slug", REVIEW_SLUGS)
def test_each_flaws_scenario_fails_on_the_given_design_and_passes_on_the_reference_fix(slug):
    from grading.core.question_files import load_palette
    from grading.core.review_check import review_replays

    spec = load_question(BANK / f"{slug}.yaml", palette=load_palette(BANK.parent / "palette.yaml"))
    assert spec.kind == "review" and len(spec.review.flaws) >= 4
    replays = review_replays(spec_to_dict(spec), bank_fix(slug), seed_count=2)
    by_name = {row["scenario"]: row for row in replays["scenarios"]}
    for flaw in spec.review.flaws:
        row = by_name[flaw.scenario]
        assert row["given"]["passed"] is False, (flaw.id, row["given"])
        assert row["fixed"]["passed"] is True, (flaw.id, row["fixed"])
        assert row["reference_fix"]["passed"] is True, (flaw.id, row["reference_fix"])
    assert replays["fixed_meets"]
    # The fix typed as the reference fix is judged against the reference fix: same runs, same cost, 100.
    assert replays["failure"]["score"] == 100.0
    assert {flaw.fix_category for flaw in spec.review.flaws} >= {"correctness", "infrastructure"}


def test_the_reader_refuses_a_reference_fix_it_cannot_replay_or_read():
    import yaml

    from grading.core.question_reader import parse_question
    from grading.core.question_types import SpecError

    data = yaml.safe_load((BANK / "gateway-fallback-review.yaml").read_text())

    def problems(fix: list) -> list[str]:
        changed = {**data, "review": {**data["review"], "fix": fix}}
        try:
            parse_question(changed, source="gateway-fallback-review.yaml")
        except SpecError as error:
            return [f"{field}: {message}" for field, message in error.problems]
        return []

    assert problems(data["review"]["fix"]) == []
    assert problems([{"name": "replica", "value": "10"}]) == [
        "review.fix[0].name: 'replica' is not a quantity of the model"
    ]
    assert "cannot be read as req/s" in problems([{"name": "fallback_rate", "value": "45 GB"}])[0]
    assert (
        "'replicas_needd' is not a quantity" in problems([{"name": "replicas", "value": "replicas_needd"}])[0]
    )
    assert "is in s, not in replica" in problems([{"name": "replicas", "value": "prefill_s"}])[0]
    # kv_overcommit is asked on sheet 1: a fixed sheet opening on its given value would state the answer.
    assert "asked derived line" in " ".join(problems([{"name": "kv_overcommit", "value": "1"}]))
    # No scenario reads the deadline: a fix line there changes no replay.
    assert "no scenario reads 'deadline'" in problems([{"name": "deadline", "value": "20 s"}])[0]
    assert "on the fixed sheet twice" in " ".join(
        problems([{"name": "max_batch", "value": "96"}, {"name": "max_batch", "value": "64"}])
    )
    assert problems([{"name": "max_batch"}]) == [
        "review.fix[0].value: is required: the reference fix's value, with its unit"
    ]


def test_a_variants_reference_fix_is_the_variants_and_meets_its_scenarios():
    from grading.core.review_check import reference_fix_numbers, review_replays

    spec = spec_to_dict(load_question(BANK / "gateway-fallback-review.yaml"))
    # 60 req/s: ceil(2 x 60 x ~0.1237 s) = 15 replicas for the doubled peak, a 60 req/s fallback quota; a
    # fixed 45 req/s quota would reject a quarter of the outage's traffic (more than the 5% the SLO allows).
    fix = reference_fix_numbers(spec, {"arrival_rate": 60.0})
    assert fix["replicas"] == "15 replica" and fix["fallback_rate"] == "60 req/s"
    replays = review_replays(spec, fix, overrides={"arrival_rate": 60.0}, seed_count=2)
    assert all(row["reference_fix"]["passed"] for row in replays["scenarios"])
    assert replays["failure"]["score"] == 100.0
