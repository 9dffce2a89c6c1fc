"""A curveball's replay (issue 33): the scenario it names, run on the candidate's curveball numbers with their
earlier numbers carried forward, beside the reference under the change.

checkpoint-storage's curveball "The checkpoint grows to 4 TB" replays "A week of training on the write tier
you sized", whose SLO includes writing one checkpoint in at most 65 s. By hand: the write takes ckpt_bytes /
storage_bw, so 4 TB at the right 4e12 B / 60 s = 66.7 GB/s takes 60 s (met), and 4 TB on a 40 GB/s tier
takes 4e12 / 40e9 = 100 s (missed); 4 TB on the 1 TB answer's 16.7 GB/s would take 240 s.
"""

from pathlib import Path

import pytest

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.replay_inputs import curveball_replay_inputs, curveball_run_name, is_curveball_run_name
from grading.core.sim import run_scenario_seeds

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
CURVEBALL = "checkpoint-grows-4tb"
SEEDS = [11, 12, 13]


@pytest.fixture(scope="module")
def spec():
    return spec_to_dict(load_question(BANK / "checkpoint-storage.yaml"))


def _write_check(inputs):
    result = run_scenario_seeds(
        inputs["family"], inputs["params"], inputs["events"], inputs["slo"], inputs["duration_s"], SEEDS
    ).to_dict()
    checks = [
        check
        for run in result["results"]
        for check in run["slo_checks"]
        if check["key"] == "ckpt_write_max_s"
    ]
    return [check["actual"] for check in checks], [check["passed"] for check in checks]


def test_the_reference_side_writes_the_4_tb_checkpoint_in_60_s_and_meets_the_write_slo(spec):
    inputs = curveball_replay_inputs(spec, CURVEBALL, side="reference")
    assert inputs["scenario"] == "a-week-on-your-write-tier"
    assert inputs["params"]["ckpt_bytes"] == pytest.approx(4e12)
    assert inputs["params"]["storage_bw"] == pytest.approx(4e12 / 60)
    actuals, passed = _write_check(inputs)
    assert actuals == pytest.approx([60.0] * len(SEEDS)) and all(passed)


def test_a_right_curveball_answer_meets_the_write_slo_and_an_undersized_one_misses_it(spec):
    numbers = {"burst_bw": "16.7 GB/s", "ckpt_interval": "30 min"}  # the main sheet, before the change
    right = curveball_replay_inputs(
        spec, CURVEBALL, side="candidate", numbers=numbers, curveball_numbers={"burst_bw": "67 GB/s"}
    )
    assert right["params"]["storage_bw"] == pytest.approx(67e9)
    assert right["sources"]["storage_bw"] == {"quantity": "burst_bw", "from": "candidate"}
    actuals, passed = _write_check(right)
    assert actuals == pytest.approx([4e12 / 67e9] * len(SEEDS)) and all(passed)  # 59.7 s <= 65 s

    small = curveball_replay_inputs(
        spec, CURVEBALL, side="candidate", numbers=numbers, curveball_numbers={"burst_bw": "40 GB/s"}
    )
    actuals, passed = _write_check(small)
    assert actuals == pytest.approx([100.0] * len(SEEDS)) and not any(passed)  # 100 s > 65 s


def test_earlier_numbers_the_change_does_not_move_carry_forward_and_those_it_moves_do_not(spec):
    inputs = curveball_replay_inputs(
        spec,
        CURVEBALL,
        side="candidate",
        numbers={"burst_bw": "16.7 GB/s", "ckpt_interval": "60 min"},
        curveball_numbers={},
    )
    assert inputs["params"]["ckpt_interval_s"] == pytest.approx(3600)  # their interval, unmoved by the change
    assert inputs["sources"]["ckpt_interval_s"]["from"] == "candidate"
    # their 16.7 GB/s was sized for 1 TB: the change moves burst_bw, so the model's 4 TB / 60 s is used
    assert inputs["params"]["storage_bw"] == pytest.approx(4e12 / 60)
    assert inputs["sources"]["storage_bw"]["from"] == "reference"


def test_a_curveball_without_a_scenario_has_no_replay_and_run_names_say_which_is_which(spec):
    assert curveball_replay_inputs(spec, "job-grows-16k", side="reference") is None
    name = curveball_run_name(CURVEBALL, "a-week-on-your-write-tier")
    assert is_curveball_run_name(name) and not is_curveball_run_name("a-week-on-your-write-tier")


def test_every_bank_curveball_replay_resolves_on_both_sides_and_its_run_name_fits_the_column():
    count = 0
    for path in sorted(BANK.glob("*.yaml")):
        question = spec_to_dict(load_question(path))
        for curveball in question.get("curveballs") or []:
            if not curveball.get("scenario"):
                continue
            count += 1
            assert len(curveball_run_name(curveball["id"], curveball["scenario"])) <= 80
            for side in ("candidate", "reference"):
                inputs = curveball_replay_inputs(question, curveball["id"], side=side)
                assert inputs["curveball"] == curveball["id"], path.name
    assert count >= 11
