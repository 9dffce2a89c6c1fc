"""A question's title, prompt and plan written from its model's values (grading/core/question_text.py): a
variant speaks of its own values, and no placeholder may state an answer. Expected sentences by hand."""

from pathlib import Path

import pytest
import yaml

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.question_reader import parse_question
from grading.core.question_text import answer_plan, render, rendered_spec
from grading.core.question_types import SpecError

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"


def stored(slug: str) -> dict:
    return spec_to_dict(load_question(BANK / f"{slug}.yaml"))


def test_a_variant_of_two_region_failover_says_three_regions_at_69_percent():
    spec = stored("two-region-failover")
    # n_regions is a count of regions (base unit: the count), util a plain fraction.
    variant = rendered_spec(spec, {"n_regions": 3.0, "util": 0.69})
    assert variant["title"] == "3 regions at 69%: the first half-minute after one of them drops"
    assert variant["prompt"].startswith(
        "We serve our LLM API from 3 regions, each running at about 69% of its capacity at peak."
    )
    assert variant["plan"][0]["expect"].startswith("Restates: 3 regions at 69% peak,")
    # At the question's own values it reads as it always did, in digits.
    default = rendered_spec(spec)
    assert default["prompt"].startswith("We serve our LLM API from 2 regions, each running at about 60% of")
    assert spec["prompt"].startswith("We serve our LLM API from {n_regions:n} regions")  # stored as written


def test_units_and_scale_come_from_the_shared_formatter():
    # 7,500 tokens and 6.5 req/s; 0.25 TB is shown in the quantity's unit; 150 ms keeps its unit.
    review = rendered_spec(stored("eight-gpu-design-review"), {"prompt_tokens": 7500.0, "arrival_rate": 6.5})
    assert "documents of about 7,500 tokens that come back as" in review["prompt"]
    assert "At 6.5 requests a second it misses the deadline." in review["prompt"]
    checkpoint = rendered_spec(
        stored("checkpoint-storage"), {"ckpt_bytes": 2.5e12, "ckpt_interval": 45 * 60.0}
    )
    assert "writes a 2.5 TB checkpoint every 45 minutes" in " ".join(checkpoint["prompt"].split())
    ttft = rendered_spec(stored("ttft-200ms-p99"), {"ttft_budget": 0.15})
    assert ttft["title"].startswith("A 150 ms p99 TTFT:") and "Break the 150 ms down" in ttft["prompt"]
    assert render("{x} and {x:n} and {y:%}", {"x": 1_500_000.0, "y": 0.125}, {"x": "tok/s"}) == (
        "1.5M tok/s and 1.5M and 12%"
    )


def problems(slug: str, **changes) -> list[str]:
    data = yaml.safe_load((BANK / f"{slug}.yaml").read_text())
    data.update(changes)
    try:
        parse_question(data, source=f"{slug}.yaml")
    except SpecError as error:
        return [f"{field}: {message}" for field, message in error.problems]
    return []


def test_the_reader_refuses_a_placeholder_that_would_state_an_answer_or_names_nothing():
    prompt = "We serve from {n_regions:n} regions."
    assert problems("two-region-failover", prompt=prompt) == []
    # survivor_load is derived (and asked): its value is an answer.
    assert problems("two-region-failover", prompt=prompt + " Each survivor runs at {survivor_load:%}.") == [
        "prompt: {survivor_load:%}: survivor_load is derived; a placeholder names a given assumption"
    ]
    assert problems("two-region-failover", title="{n_region:n} regions") == [
        "title: {n_region:n}: 'n_region' is not a quantity of the model"
    ]
    assert problems("two-region-failover", prompt="{util:percent}") == [
        "prompt: {util:percent}: the format 'percent' is none of :n (number) or :% (percent)"
    ]
    # A line the candidate is asked for and the prompt does not state: seven-boxes asks the think time.
    assert problems("seven-boxes-serving-walkthrough", prompt="Users think for {think_time}.") == [
        "prompt: {think_time}: think_time is asked and not stated; its value would be an answer"
    ]


@pytest.mark.parametrize("slug", sorted(path.stem for path in BANK.glob("*.yaml")))
def test_every_bank_text_renders_at_its_own_values_without_a_brace_left(slug):
    shown = rendered_spec(stored(slug))
    texts = [shown["title"], shown["prompt"], *(phase["expect"] for phase in shown["plan"])]
    texts += [phase["expect"] for phase in answer_plan(stored(slug))]  # the interviewer's, answers written
    assert not any("{" in text or "}" in text for text in texts), slug


def test_a_kv_cache_variant_plan_writes_its_own_figures_for_the_interviewer_and_hides_them_elsewhere():
    spec = stored("kv-cache-tiering")
    variant = {"context_tokens": 64000.0}  # tokens; every other input at its default
    arithmetic = next(p["expect"] for p in answer_plan(spec, variant) if p["phase"] == "arithmetic")
    # By hand: 2 x 80 x 8 x 128 x 2 B = 327,680 B a token; x 64,000 = 20.97 GB ("21 GB" at three figures).
    assert "64,000 tokens = 21 GB;" in arithmetic
    # HBM for KV: 640 GB x 0.9 - 70,553,706,496 x 2 B = 434.9 GB; / 20.97 GB = 20.7: 20 whole conversations.
    assert "~20 conversations fit in HBM" in arithmetic
    # Recompute: (2 x 70.55e9 x 64,000 + 2 x 80 x 8,192 x 64,000^2) FLOP / (8 x 989 TFLOP/s x 0.5) = 3.64 s.
    assert "recompute ~3.64 s" in arithmetic
    # Reload: 20.97 GB / (8 x 50 GB/s) = 52.4 ms; from NVMe 20.97 GB / 25 GB/s = 839 ms.
    assert "reload ~52.4 ms from DRAM" in arithmetic and "~839 ms from NVMe" in arithmetic
    assert "9.83 GB" not in arithmetic and "30,000" not in arithmetic  # nothing at the defaults
    # What candidates' pages read (rendered_spec) never writes an answer placeholder out.
    public = next(p["expect"] for p in rendered_spec(spec, variant)["plan"] if p["phase"] == "arithmetic")
    assert "64,000 tokens = …;" in public and "21 GB" not in public and "{" not in public


def test_an_answer_placeholder_is_refused_outside_the_plan():
    plan = yaml.safe_load((BANK / "kv-cache-tiering.yaml").read_text())["plan"]
    assert problems("kv-cache-tiering", plan=plan) == []  # the bank's own answers in the plan
    assert problems("kv-cache-tiering", prompt="Each conversation holds {=kv_conv}.") == [
        "prompt: {=kv_conv}: an answer placeholder belongs only in the plan's expects, the scenarios'"
        " descriptions and the boxes of a design question's reference design"
    ]
    assert problems("kv-cache-tiering", title="{=convs_in_hbm:n} conversations") == [
        "title: {=convs_in_hbm:n}: an answer placeholder belongs only in the plan's expects, the scenarios'"
        " descriptions and the boxes of a design question's reference design"
    ]
    # A design question's scenarios and reference boxes are shown with the reference: answers allowed there.
    data = yaml.safe_load((BANK / "kv-cache-tiering.yaml").read_text())
    scenarios = [{**data["scenarios"][0], "description": "Each return recomputes ~{=recompute_s}."}]
    nodes = [{**data["design"]["nodes"][0], "job": "Holds ~{=convs_in_hbm:n} conversations."}]
    nodes += data["design"]["nodes"][1:]
    assert problems("kv-cache-tiering", scenarios=scenarios, design={**data["design"], "nodes": nodes}) == []
    # A review question's boxes are the design under review, read during the round: no answers there.
    review = yaml.safe_load((BANK / "eight-gpu-design-review.yaml").read_text())
    boxes = [{**review["design"]["nodes"][0], "job": "Serves {=servers_needed:n} servers."}]
    boxes += review["design"]["nodes"][1:]
    refused = problems("eight-gpu-design-review", design={**review["design"], "nodes": boxes})
    assert [line.split(":")[0] for line in refused] == ["design.nodes[0].job"]
    bad = [{**plan[0], "expect": "{=kv_conversation} per conversation"}, *plan[1:]]
    assert problems("kv-cache-tiering", plan=bad) == [
        "plan[0].expect: {=kv_conversation}: 'kv_conversation' is not a quantity of the model"
    ]


def test_a_variants_replay_description_and_reference_boxes_speak_of_its_values():
    from grading.core.question_text import answer_texts
    from grading.core.replay_inputs import curveball_replay_inputs, replay_inputs

    spec = stored("kv-cache-tiering")
    variant = {"context_tokens": 64000.0}
    (entry,) = replay_inputs(spec, side="reference", variant_values=variant)
    # Recompute by hand: (2 x 70.55e9 x 64,000 + 2 x 80 x 8,192 x 64,000^2) FLOP / (8 x 989e12 x 0.5)
    # = 3.64 s; reload: 64,000 x 327,680 B = 20.97 GB over 8 x 50 GB/s = 52.4 ms.
    assert entry["title"] == "Returning 64,000-token conversations double for two minutes"
    assert "every returning 64,000-token conversation" in entry["description"]
    assert "the ~3.64 s of FLOPs" in entry["description"] and "(~52.4 ms)" in entry["description"]
    assert "half a recompute, ~1.82 s" in entry["description"]
    assert "30,000" not in entry["description"] and "1.37" not in entry["description"]
    # The fp8 curveball halves the bytes: 30,000 x 163,840 B = 4.92 GB, reloaded in 4.92 GB / 400 GB/s
    # = 12.3 ms; the recompute does not change (1.37 s at the defaults: (4.23 + 1.18) PFLOP / 3.956 PFLOP/s).
    fp8 = curveball_replay_inputs(spec, "fp8-kv", side="reference")
    assert fp8 is not None and "(~12.3 ms)" in fp8["description"]
    assert "~1.37 s of FLOPs" in fp8["description"]
    # The reference design's boxes: 434.9 GB of HBM for KV / 20.97 GB = 20 whole 64,000-token conversations.
    boxes = {node["id"]: node for node in answer_texts(spec, variant)["design"]["nodes"]}
    assert boxes["eng"]["job"].startswith("Hold ~20 active 64,000-token conversations in HBM")
    assert boxes["sch"]["failure"].startswith("Waits for the full 21 GB reload")
    # What a candidate's page may read writes the answers as "…".
    public = {node["id"]: node for node in rendered_spec(spec, variant)["design"]["nodes"]}
    assert public["eng"]["job"].startswith("Hold ~… active 64,000-token conversations")


def test_a_review_rounds_given_design_reads_the_variants_given_values_and_no_answer():
    from grading.core.question_text import answer_texts

    spec = stored("eight-gpu-design-review")
    # 6.5 req/s (a given assumption): the queue's failure says it; the step's figures are answers, shown only
    # with the reference (a review's failures are blanked on the candidate's canvas).
    boxes = answer_texts(spec, {"arrival_rate": 6.5})["design"]["nodes"]
    queue = next(node for node in boxes if node["kind"] == "admission_queue")
    assert "at 6.5 req/s against" in queue["failure"]
    jobs = [node["job"] for node in rendered_spec(spec, {"arrival_rate": 6.5})["design"]["nodes"]]
    assert not any("{" in job or "…" in job for job in jobs)
