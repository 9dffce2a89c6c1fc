import numpy as np
import pytest

from grading.core.model import ModelError, ModelSpec, Quantity, ReferenceModel, describe_model, read_model


def an_input(
    name: str, value: float, unit: str = "", low: float | None = None, high: float | None = None
) -> dict:
    low = value if low is None else low
    high = value if high is None else high
    return {"name": name, "label": name, "value": value, "unit": unit, "range": [low, high], "source": "test"}


def derived(name: str, formula: str, unit: str = "") -> dict:
    return {"name": name, "label": name, "formula": formula, "unit": unit}


def kv_block() -> dict:
    return {
        "headline": "conversation_kv",
        "quantities": [
            an_input("n_layers", 80, "", 24, 128),
            an_input("n_kv_heads", 8, "", 1, 64),
            an_input("head_dim", 128, "", 64, 256),
            an_input("kv_bytes_per_elem", 2, "B", 1, 2),
            an_input("context_tokens", 30_000, "tok", 1_000, 128_000),
            derived(
                "kv_bytes_per_token", "2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_elem", "KiB/tok"
            ),
            derived("conversation_kv", "context_tokens * kv_bytes_per_token", "GB"),
        ],
    }


def problems_of(block: dict) -> list[tuple[str, str]]:
    with pytest.raises(ModelError) as caught:
        read_model(block)
    return caught.value.problems


def test_the_kv_cache_is_320_kib_a_token_and_9_83_gb_a_conversation():
    model = ReferenceModel.from_dict(kv_block())
    values = model.evaluate()
    assert values["kv_bytes_per_token"] == 327_680
    assert model.display_value("kv_bytes_per_token", values["kv_bytes_per_token"]) == 320
    assert values["conversation_kv"] == 9_830_400_000
    assert model.display_value("conversation_kv", values["conversation_kv"]) == pytest.approx(9.83, abs=0.005)


def test_a_unit_that_does_not_work_out_names_the_quantity_and_both_units():
    block = kv_block()
    block["quantities"][5] = derived(
        "kv_bytes_per_token", "2 * n_layers * kv_bytes_per_elem * context_tokens", "KiB/s"
    )
    assert problems_of(block) == [("kv_bytes_per_token", "formula gives B·tok, declared KiB/s")]
    assert str(ModelError(problems_of(block))) == "kv_bytes_per_token: formula gives B·tok, declared KiB/s"


def test_a_result_in_bytes_may_be_declared_per_token_but_one_count_never_becomes_another():
    read_model({"quantities": [an_input("b", 2, "B"), derived("per_token", "b * 3", "B/tok")]})
    block = {"quantities": [an_input("rate", 5, "tok/s"), derived("requests", "rate * 2", "req/s")]}
    assert problems_of(block) == [("requests", "formula gives tok/s, declared req/s")]


def test_a_cycle_is_reported_with_its_path():
    block = {
        "quantities": [an_input("x", 1), derived("a", "b + x"), derived("b", "c * 2"), derived("c", "a - 1")]
    }
    assert problems_of(block) == [("a", "formulas form a cycle: a → b → c → a")]


def test_quantities_may_be_listed_in_any_order():
    block = {
        "quantities": [
            derived("total", "half * 2", "s"),
            derived("half", "t / 2", "s"),
            an_input("t", 10, "s"),
        ]
    }
    model = ReferenceModel.from_dict(block)
    assert model.derived_names == ("half", "total")
    assert model.evaluate()["total"] == 10


def test_it_collects_every_problem_naming_each_quantity():
    block = {
        "quantities": [
            an_input("max", 1),
            an_input("dup", 1),
            an_input("dup", 2),
            an_input("sized", 1, "parsecs"),
            an_input("outside", 5, "s", 0, 2),
            {"name": "typo", "label": "Typo", "valeu": 3, "unit": "s"},
            derived("uses_unknown", "dupp * 2"),
            derived("bad_syntax", "dup +"),
            derived("sneaky", "__import__"),
        ],
        "headline": "nowhere",
    }
    problems = problems_of(block)
    fields = [field for field, _ in problems]
    assert set(fields) >= {"max", "dup", "sized", "outside", "typo", "uses_unknown", "bad_syntax", "sneaky"}
    assert "headline" in fields
    messages = dict(problems)
    assert messages["uses_unknown"] == "formula uses unknown name 'dupp' (did you mean 'dup'?)"
    assert messages["outside"] == "value 5 is outside its range [0, 2]"
    assert messages["max"] == "is a function or keyword name; choose another"
    assert "unknown unit 'parsecs'" in messages["sized"]
    assert messages["bad_syntax"].startswith("cannot read the formula")


def test_an_input_needs_a_source_and_a_range():
    problems = problems_of({"quantities": [{"name": "x", "label": "X", "value": 1, "unit": ""}]})
    assert ("x", "range must be [low, high], two finite numbers") in problems
    assert ("x", "an input needs a source (where the value comes from)") in problems


def test_numbers_written_1e6_are_read_even_though_yaml_11_gives_text():
    model = ReferenceModel.from_dict({"quantities": [an_input("n", "1e6", "tok", "1e3", "1e9")]})
    assert model.evaluate()["n"] == 1e6


def test_a_formula_that_divides_by_zero_at_the_defaults_is_refused():
    block = {"quantities": [an_input("x", 0, "s", 0, 1), derived("rate", "1 / x", "1/s")]}
    (field, message), *_ = problems_of(block)
    assert field == "rate" and "division by zero" in message and "default inputs" in message


def test_overrides_in_base_units_replace_inputs_and_may_replace_a_derived_quantity():
    model = ReferenceModel.from_dict(kv_block())
    assert model.evaluate({"n_layers": 40})["conversation_kv"] == 9_830_400_000 / 2
    assert model.evaluate({"kv_bytes_per_token": 100_000})["conversation_kv"] == 3e9
    with pytest.raises(ModelError, match="did you mean 'n_layers'"):
        model.evaluate({"n_layer": 40})
    with pytest.raises(ModelError, match="not finite"):
        model.evaluate({"n_layers": float("nan")})


def test_vectorised_evaluation_matches_one_sample_at_a_time():
    model = ReferenceModel.from_dict(kv_block())
    samples = model.sample_inputs(1000, np.random.default_rng(7))
    together = model.evaluate(samples)["conversation_kv"]
    one_by_one = [
        model.evaluate({k: v[i] for k, v in samples.items()})["conversation_kv"] for i in range(0, 1000, 97)
    ]
    assert together.shape == (1000,)
    assert np.allclose(together[::97], one_by_one)


def test_a_sample_that_is_not_finite_names_the_quantity():
    block = {"quantities": [an_input("x", 1, "s", 0, 1), derived("rate", "1 / x", "1/s")]}
    model = ReferenceModel.from_dict(block)
    with pytest.raises(ModelError, match="rate: formula gives a non-finite value in 1 of 3 samples"):
        model.evaluate({"x": np.array([1.0, 0.0, 0.5])})


def test_samples_stay_inside_the_ranges_and_spread_log_uniformly_over_wide_ones():
    model = ReferenceModel.from_dict(kv_block())
    samples = model.sample_inputs(20_000, np.random.default_rng(1))
    for name in model.input_names:
        low, high = model.range_base(name)
        assert samples[name].min() >= low and samples[name].max() <= high
    assert np.median(samples["context_tokens"]) == pytest.approx(np.sqrt(1_000 * 128_000), rel=0.05)
    assert np.median(samples["head_dim"]) == pytest.approx(160, rel=0.05)
    assert set(model.sample_inputs(5, np.random.default_rng(1), names=["n_layers"])) == {"n_layers"}


def test_elasticities_say_how_the_headline_moves_with_each_input():
    block = {
        "headline": "y",
        "quantities": [
            an_input("a", 4, "", 1, 10),
            an_input("b", 2, "", 1, 10),
            an_input("c", 3, "", 1, 10),
            an_input("unused", 1, "", 1, 10),
            derived("y", "a * sqrt(b) / c"),
        ],
    }
    elasticities = ReferenceModel.from_dict(block).sensitivity()
    assert set(elasticities) == {"a", "b", "c"} and list(elasticities)[-1] == "b"
    assert elasticities["a"] == pytest.approx(1, abs=1e-3)
    assert elasticities["b"] == pytest.approx(0.5, abs=1e-3)
    assert elasticities["c"] == pytest.approx(-1, abs=1e-3)


def test_upstream_lists_everything_a_quantity_depends_on():
    model = ReferenceModel.from_dict(kv_block())
    assert model.upstream("conversation_kv") == {
        "context_tokens",
        "kv_bytes_per_token",
        "n_layers",
        "n_kv_heads",
        "head_dim",
        "kv_bytes_per_elem",
    }
    assert model.upstream("n_layers") == frozenset()


def test_describe_model_reads_overrides_as_typed_and_shows_every_quantity():
    spec = read_model(kv_block())
    rows = {
        row["name"]: row for row in describe_model(spec, {"n_layers": "96", "context_tokens": "128k tok"})
    }
    assert list(rows)[0] == "n_layers"
    assert rows["n_layers"]["overridden"] and rows["n_layers"]["value"] == 96
    assert rows["kv_bytes_per_token"] == {
        "name": "kv_bytes_per_token",
        "label": "kv_bytes_per_token",
        "kind": "derived",
        "unit": "KiB/tok",
        "value": 384.0,
        "base_value": 393_216.0,
        "formula": "2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_elem",
        "range": None,
        "overridden": False,
    }
    assert rows["context_tokens"]["range"] == [1_000, 128_000]


def test_describe_model_refuses_an_unknown_name_or_an_unreadable_value():
    spec = read_model(kv_block())
    with pytest.raises(ModelError, match="did you mean 'n_layers'"):
        describe_model(spec, {"n_layer": "96"})
    with pytest.raises(ModelError, match="no number"):
        describe_model(spec, {"n_layers": "lots"})
    with pytest.raises(ModelError, match="this line asks for tok"):
        describe_model(spec, {"context_tokens": "3 GB"})


def test_a_model_spec_built_in_code_is_checked_like_one_from_a_file():
    spec = ModelSpec((Quantity("x", "X", "s", value="3", range=(0, 5), source="t"),))  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="an input needs a finite value"):
        ReferenceModel(spec)
