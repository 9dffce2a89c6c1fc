import copy
from pathlib import Path

import pytest
import yaml

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_pack, load_palette, load_question, read_yaml
from grading.core.question_reader import parse_question
from grading.core.question_types import QuestionSpec, SpecError
from grading.core.vocabulary import PHASES
from tests.core.question_builders import an_input, derived, plan

PALETTE = {"gateway", "router", "admission_queue", "engine", "streamer"}


def question() -> dict:
    """A small valid question, fresh for each test."""
    return {
        "slug": "kv-cache-tiering",
        "title": "KV-cache tiering",
        "track": "inference",
        "difficulty": "medium",
        "summary": "Where a 10 GB conversation lives between turns.",
        "prompt": "A 70B model keeps 320 KB a token. Design the tiers.",
        "plan": plan(
            ("intro", 1, "Restate the question."),
            ("numbers", 5, "KV per token."),
            ("arithmetic", 10, "KV per conversation."),
            ("depth", 16, "Reload against recompute."),
            ("close", 1, "Summarise."),
        ),
        "model": {
            "headline": "conversation_kv",
            "quantities": [
                an_input("n_layers", 80, "", [24, 128]),
                an_input("kv_heads", 8, "", [1, 64]),
                an_input("head_dim", 128, "", [64, 256]),
                an_input("elem", 2, "B", [1, 2]),
                an_input("tokens", 30000, "tok", [1000, 128000]) | {"variable": True},
                derived("kv_per_token", "2 * n_layers * kv_heads * head_dim * elem", "KiB/tok")
                | {"note": "K, V"},
                derived("conversation_kv", "tokens * kv_per_token", "GB"),
            ],
        },
        "asked": [
            {"name": "kv_per_token", "phase": "numbers"},
            {
                "name": "conversation_kv",
                "phase": "arithmetic",
                "weight": 2,
                "check": "magnitude",
                "tolerance": 2,
            },
            {"name": "tokens", "phase": "numbers", "check": "count"},
        ],
        "design": {
            "nodes": [
                {
                    "id": "gw",
                    "kind": "gateway",
                    "label": "API gateway",
                    "job": "Auth.",
                    "failure": "Exhaustion.",
                },
                {"id": "engine", "kind": "engine", "label": "Engine"},
            ],
            "edges": [
                {"source": "client", "target": "gw", "label": "HTTPS"},
                {"source": "gw", "target": "engine"},
            ],
            "path": ["gateway", "engine"],
        },
        "rubric": [
            {"dimension": "numbers", "levels": {1: "Guesses.", 2: "Close.", 3: "Right.", 4: "Right, fast."}}
        ],
        "outline": "Compute the KV, then compare tiers.",
        "follow_ups": [{"phase": "depth", "text": "What if the context doubles?"}],
        "mistakes": ["Reading 320 KB as 320,000 B."],
        "scenarios": [
            {
                "name": "kv-pressure",
                "title": "Long conversations fill HBM",
                "family": "serving",
                "description": "Context grows.",
                "params": {"kv_bytes_per_token": "kv_per_token", "replicas": 4},
                "events": [{"at": 60, "type": "burst", "factor": 2.0, "duration": 300}],
                "slo": {"ttft_p95_s": 2.0},
                "duration_s": 600,
            }
        ],
        "concepts": ["kv-cache-memory", "caching"],
        "related": ["llm-batching-system"],
        "figures": [
            {"seed": "320 KB per token", "quantity": "kv_per_token", "value": 320, "unit": "KiB/tok"},
            {
                "seed": "10 GB a conversation",
                "quantity": "conversation_kv",
                "value": 10,
                "unit": "GB",
                "tolerance": 0.2,
            },
        ],
    }


def parse(data: dict, source: str = "kv-cache-tiering.yaml") -> QuestionSpec:
    return parse_question(data, source, palette=PALETTE)


def problems(data: dict, source: str = "kv-cache-tiering.yaml") -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        parse(data, source)
    return dict(caught.value.problems)


def test_it_parses_a_valid_question_into_frozen_dataclasses():
    spec = parse(question())
    assert spec.slug == "kv-cache-tiering" and spec.kind == "design"
    assert [phase.name for phase in spec.plan] == ["intro", "numbers", "arithmetic", "depth", "close"]
    assert (
        spec.asked[0].tolerance == 0.05 and spec.asked[1].tolerance == 2 and spec.asked[2].tolerance is None
    )
    assert spec.design.nodes[0].kind == "gateway" and spec.design.path == ("gateway", "engine")
    assert spec.rubric[0].levels[4] == "Right, fast."
    assert spec.figures[0].tolerance == 0.02
    assert spec.model.reference.evaluate()["kv_per_token"] == 327_680
    with pytest.raises(AttributeError):
        spec.slug = "other"  # type: ignore[misc]


def test_spec_to_dict_round_trips_losslessly_through_yaml():
    spec = parse(question())
    assert parse(spec_to_dict(spec)) == spec
    assert parse(yaml.safe_load(yaml.safe_dump(spec_to_dict(spec), sort_keys=False))) == spec


def test_it_collects_every_problem_of_a_broken_question():
    data = question()
    data["slug"] = "KV tiering"
    data["track"] = "serving"
    data["plan"][3]["minutes"] = 30
    data["plan"].append({"phase": "lunch", "minutes": 1, "expect": "Eat."})
    data["asked"][0]["name"] = "kv_per_tok"
    data["asked"][1]["phase"] = "failures"
    data["design"]["nodes"][1]["kind"] = "toaster"
    data["design"]["edges"][1]["target"] = "nowhere"
    data["rubric"][0]["levels"] = {1: "a", 2: "b", 3: "c"}
    data["scenarios"][0]["family"] = "weather"
    data["scenarios"][0]["params"]["replicas"] = "replica_count"
    data["figures"][0]["unit"] = "KiB/s"
    data["model"]["quantities"][6]["formula"] = "tokens * kv_per_token * n_layers / elem"
    data["concepts"].append("astrology")
    data["colour"] = "blue"
    found = problems(data)
    assert found == {
        "slug": "'KV tiering' must be lowercase letters, digits and single hyphens",
        "track": "'serving' is not one of inference | training | data | platform",
        "plan[5].phase": "'lunch' is not one of " + " | ".join(PHASES),
        "plan": "minutes add up to 48; the limit is 45",
        "model.conversation_kv": "formula gives a plain number, declared GB",
        "asked[0].name": "'kv_per_tok' is not a quantity of the model",
        "asked[1].phase": "'failures' is not a phase of the plan",
        "design.nodes[1].kind": "'toaster' is not a palette kind",
        "design.edges[1].target": "'nowhere' is not a node id",
        "design.path[1]": "no node of kind 'engine' in the design",
        "rubric[0].levels": "missing level 4",
        "scenarios[0].family": "'weather' is not one of serving | training | pipeline | events",
        "scenarios[0].params.replicas": "'replica_count' is not a quantity of the model",
        "figures[0].unit": "'KiB/s' does not fit kv_per_token (declared 'KiB/tok')",
        "concepts[2]": "'astrology' is not a known concept (see docs/question-format.md)",
        "colour": "unknown field",
    }


def test_a_count_rule_mismatch_in_the_model_is_reported_under_model_dot_name():
    data = question()
    data["model"]["quantities"][5]["unit"] = "KiB/s"
    assert problems(data)["model.kv_per_token"] == "formula gives B, declared KiB/s"


def test_the_slug_must_equal_the_file_name():
    assert problems(question(), "kv-tiering.yaml") == {
        "slug": "'kv-cache-tiering' must equal the file name 'kv-tiering'"
    }


def test_required_fields_are_reported_once_each():
    found = problems({"slug": "kv-cache-tiering"})
    for field in ("title", "track", "difficulty", "summary", "prompt", "plan", "model", "asked", "design"):
        assert found[field] == "is required"


def test_a_missing_headline_and_a_duplicate_phase_are_problems():
    data = question()
    del data["model"]["headline"]
    data["plan"][1]["phase"] = "intro"
    found = problems(data)
    assert found["model.headline"].startswith("is required")
    assert found["plan[1].phase"] == "'intro' appears twice in the plan"


def test_tolerances_must_make_sense_for_their_check():
    data = question()
    data["asked"][0]["tolerance"] = 5
    data["asked"][1]["tolerance"] = 0.5
    found = problems(data)
    assert found["asked[0].tolerance"].startswith("a relative tolerance is a fraction")
    assert found["asked[1].tolerance"].startswith("a magnitude tolerance is a factor")


def test_design_kinds_are_not_checked_without_a_palette():
    data = question()
    data["design"]["nodes"][1]["kind"] = "anything"
    data["design"]["path"] = ["gateway"]
    assert parse_question(data, "kv-cache-tiering.yaml").design.nodes[1].kind == "anything"


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def a_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "core"
    pack.mkdir()
    write(
        tmp_path,
        "palette.yaml",
        yaml.safe_dump({"components": [_component(kind) for kind in sorted(PALETTE)]}),
    )
    good = question()
    write(pack, "kv-cache-tiering.yaml", yaml.safe_dump(good))
    other = copy.deepcopy(good) | {"slug": "other-question", "related": []}
    write(pack, "other-question.yaml", yaml.safe_dump(other))
    broken = copy.deepcopy(good) | {"slug": "broken-question"}
    broken["model"]["quantities"][5]["formula"] = "2 * n_layers * x"
    write(pack, "broken-question.yaml", yaml.safe_dump(broken))
    write(pack, "not-yaml.yaml", "slug: [unclosed\n")
    return pack


def _component(kind: str) -> dict:
    return {
        "kind": kind,
        "name": kind.title(),
        "group": "serving",
        "synonyms": [kind],
        "job": "j",
        "failure": "f",
    }


def test_a_broken_file_yields_its_errors_and_the_others_still_load(tmp_path: Path):
    specs, errors = load_pack(a_pack(tmp_path))
    assert [spec.slug for spec in specs] == ["kv-cache-tiering", "other-question"]
    assert "broken-question.yaml: model.kv_per_token: formula uses unknown name 'x'" in errors
    assert any(line.startswith("not-yaml.yaml: yaml: ") and "line 2" in line for line in errors)
    assert len(errors) == 2


def test_the_pack_palette_is_found_beside_or_above_the_pack(tmp_path: Path):
    pack = a_pack(tmp_path)
    data = question()
    data["design"]["nodes"][1]["kind"] = "toaster"
    write(pack, "kv-cache-tiering.yaml", yaml.safe_dump(data))
    _, errors = load_pack(pack)
    assert "kv-cache-tiering.yaml: design.nodes[1].kind: 'toaster' is not a palette kind" in errors


def test_the_palette_is_keyed_by_kind(tmp_path: Path):
    a_pack(tmp_path)
    palette = load_palette(tmp_path / "palette.yaml")
    assert set(palette) == PALETTE
    assert palette["router"].synonyms == ("router",)


def test_a_palette_with_a_repeated_kind_is_refused(tmp_path: Path):
    write(
        tmp_path, "palette.yaml", yaml.safe_dump({"components": [_component("router"), _component("router")]})
    )
    with pytest.raises(SpecError, match="'router' appears twice"):
        load_palette(tmp_path / "palette.yaml")


def test_yaml_is_read_the_yaml_12_way(tmp_path: Path):
    write(tmp_path, "numbers.yaml", "big: 1e6\nbw: 3.35e12\nid: off\nflag: true\nanswer: yes\n")
    assert read_yaml(tmp_path / "numbers.yaml") == {
        "big": 1e6,
        "bw": 3.35e12,
        "id": "off",
        "flag": True,
        "answer": "yes",
    }


def test_a_key_given_twice_is_an_error_with_its_line(tmp_path: Path):
    write(tmp_path, "twice.yaml", "slug: a\ntitle: b\nslug: c\n")
    with pytest.raises(SpecError) as caught:
        load_question(tmp_path / "twice.yaml")
    assert caught.value.lines() == ["twice.yaml: yaml: key 'slug' appears twice (line 3, column 1)"]


def test_a_review_question_needs_its_planted_flaws_and_round_trips():
    from pathlib import Path

    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_question
    from grading.core.question_reader import parse_question
    from grading.core.question_types import SpecError

    path = (
        Path(__file__).resolve().parents[2] / "questions" / "bank" / "core" / "eight-gpu-design-review.yaml"
    )
    spec = load_question(path)
    assert spec.kind == "review" and spec.review and len(spec.review.flaws) >= 5
    assert {flaw.fix_category for flaw in spec.review.flaws} <= {
        "correctness",
        "admission",
        "placement",
        "infrastructure",
    }
    data = spec_to_dict(spec)
    assert parse_question(data, spec.slug) == spec
    broken = {**data, "review": {"flaws": [{**data["review"]["flaws"][0], "scenario": "no-such-scenario"}]}}
    with pytest.raises(SpecError) as error:
        parse_question(broken, spec.slug)
    assert any(field == "review.flaws[0].scenario" for field, _ in error.value.problems)
    without = {key: value for key, value in data.items() if key != "review"}
    with pytest.raises(SpecError, match="review"):
        parse_question(without, spec.slug)


def test_a_scenario_says_it_breaks_every_design_with_true_or_false_and_round_trips():
    data = question()
    assert parse(data).scenarios[0].breaks_every_design is False
    assert "breaks_every_design" not in spec_to_dict(parse(data))["scenarios"][0]  # stored only when true
    data["scenarios"][0]["breaks_every_design"] = True
    spec = parse(data)
    assert spec.scenarios[0].breaks_every_design is True and parse(spec_to_dict(spec)) == spec
    data["scenarios"][0]["breaks_every_design"] = "yes"
    assert problems(data) == {"scenarios[0].breaks_every_design": "must be true or false"}
