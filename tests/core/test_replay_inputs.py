"""Replay inputs: scenario parameters from the reference model, the candidate's numbers or the variant."""

import pytest

from grading.core.replay_inputs import replay_inputs, replay_seed, simulator_version

MODEL = {
    "headline": "replicas",
    "quantities": [
        {
            "name": "arrival_rate",
            "label": "Arrivals",
            "value": 50,
            "unit": "req/s",
            "range": [1, 1000],
            "source": "t",
        },
        {
            "name": "service_time",
            "label": "Service",
            "value": 200,
            "unit": "ms",
            "range": [10, 1000],
            "source": "t",
        },
        {
            "name": "slots",
            "label": "Slots",
            "value": 4,
            "unit": "req/replica",
            "range": [1, 64],
            "source": "t",
        },
        {
            "name": "concurrency",
            "label": "In flight",
            "formula": "arrival_rate * service_time",
            "unit": "req",
        },
        {"name": "replicas", "label": "Replicas", "formula": "ceil(concurrency / slots)", "unit": "replica"},
    ],
}
SCENARIO = {
    "name": "lose-a-replica",
    "title": "A replica dies",
    "family": "serving",
    "description": "One replica goes.",
    "params": {"arrival_rate": "arrival_rate", "replicas": "replicas", "mu": 5, "max_batch": 1},
    "events": [{"at": 60, "type": "replica_loss", "count": 1}],
    "slo": {"ttft_p95_s": 2},
    "duration_s": 600,
}
SPEC = {"model": MODEL, "scenarios": [SCENARIO, {**SCENARIO, "name": "second", "params": {"servers": 3}}]}


def inputs(side="candidate", numbers=None, variant_values=None):
    return replay_inputs(SPEC, side=side, numbers=numbers, variant_values=variant_values)[0]


def test_the_reference_side_takes_the_model_at_its_defaults_in_base_units():
    entry = inputs("reference", numbers={"replicas": "99"})
    assert entry["params"] == {"arrival_rate": 50.0, "replicas": 3.0, "mu": 5.0, "max_batch": 1.0}
    assert entry["sources"]["replicas"] == {"quantity": "replicas", "from": "reference"}
    assert entry["fallbacks"] == {} and entry["side"] == "reference"


def test_it_copies_the_scenarios_family_events_slo_and_duration():
    entry = inputs()
    assert entry["scenario"] == "lose-a-replica" and entry["title"] == "A replica dies"
    assert entry["family"] == "serving" and entry["duration_s"] == 600.0
    assert entry["events"] == [{"at": 60, "type": "replica_loss", "count": 1}]
    assert entry["slo"] == {"ttft_p95_s": 2.0}


def test_a_candidates_typed_input_overrides_the_model_and_flows_into_derived_quantities():
    entry = inputs(numbers={"arrival_rate": "100 req/s"})
    assert entry["params"]["arrival_rate"] == 100.0
    assert entry["params"]["replicas"] == 5.0  # ceil(100 × 0.2 / 4)
    assert entry["sources"]["arrival_rate"]["from"] == "candidate"
    assert entry["sources"]["replicas"]["from"] == "candidate-derived"


def test_a_candidates_derived_number_replaces_the_formula():
    entry = inputs(numbers={"replicas": "8", "arrival_rate": ""})
    assert entry["params"]["replicas"] == 8.0 and entry["params"]["arrival_rate"] == 50.0
    assert entry["sources"]["replicas"]["from"] == "candidate"


def test_a_bare_number_is_read_in_the_quantitys_unit_and_a_unit_is_converted():
    assert inputs(numbers={"service_time": "400", "slots": "2"})["params"]["replicas"] == 10.0  # 50 × 0.4 / 2
    assert inputs(numbers={"service_time": "0.4 s", "slots": "2"})["params"]["replicas"] == 10.0


def test_text_that_cannot_be_read_falls_back_to_the_reference_with_a_note():
    entry = inputs(numbers={"replicas": "lots", "arrival_rate": "3 GB"})
    assert entry["params"]["replicas"] == 3.0 and entry["params"]["arrival_rate"] == 50.0
    assert set(entry["fallbacks"]) == {"replicas", "arrival_rate"}
    assert "the reference value is used" in entry["fallbacks"]["replicas"]


def test_a_candidate_value_that_breaks_the_model_falls_back_instead_of_failing():
    entry = inputs(numbers={"slots": "0", "arrival_rate": "100"})
    assert entry["params"]["replicas"] == 5.0  # slots back at 4; the arrival rate is kept
    assert "replicas" in entry["fallbacks"]["slots"] and "arrival_rate" not in entry["fallbacks"]


def test_names_the_model_does_not_have_are_ignored():
    assert inputs(numbers={"favourite_colour": "blue"})["fallbacks"] == {}


def test_variant_values_apply_to_both_sides_in_base_units():
    variant = {"arrival_rate": 200.0}
    assert inputs("reference", variant_values=variant)["params"]["replicas"] == 10.0
    assert inputs("candidate", variant_values=variant)["params"]["replicas"] == 10.0
    assert inputs("candidate", numbers={"replicas": "7"}, variant_values=variant)["params"]["replicas"] == 7.0


def test_every_scenario_gets_inputs_in_file_order_and_a_question_without_scenarios_gets_none():
    names = [entry["scenario"] for entry in replay_inputs(SPEC, side="reference")]
    assert names == ["lose-a-replica", "second"]
    assert replay_inputs({"model": MODEL}, side="reference") == []


def test_an_unknown_side_is_refused():
    with pytest.raises(ValueError, match="side"):
        replay_inputs(SPEC, side="both")


def test_the_seed_comes_from_the_key_and_the_scenario_and_fits_in_31_bits():
    assert replay_seed(42, "lose-a-replica") == replay_seed(42, "lose-a-replica")
    assert replay_seed(42, "lose-a-replica") != replay_seed(43, "lose-a-replica")
    assert replay_seed(42, "lose-a-replica") != replay_seed(42, "second")
    assert 0 <= replay_seed("any-slug", "x") < 2**31


def test_the_simulator_version_is_a_short_stable_label():
    version = simulator_version()
    assert version == simulator_version() and 0 < len(version) <= 40
