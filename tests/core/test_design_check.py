"""Matching drawn boxes to the reference design, and the request path."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.core.box_words import edit_distance
from grading.core.design_check import (
    ReferenceBox,
    ReferenceDesign,
    check_design,
    label_key,
    load_index,
)
from grading.core.question_files import load_pack
from grading.core.submission import Arrow, Box

SERVING = ReferenceDesign(
    boxes=(
        ReferenceBox("gw", "gateway", "Gateway"),
        ReferenceBox("rl", "rate_limiter", "Token limiter"),
        ReferenceBox("rt", "router", "Router"),
        ReferenceBox("eng", "engine", "Engine"),
        ReferenceBox("st", "streamer", "Streamer"),
        ReferenceBox("as", "autoscaler", "Autoscaler"),
    ),
    path=("gateway", "rate_limiter", "router", "engine", "streamer"),
)


@pytest.fixture(scope="module")
def index():
    return load_index()


WORDS_JOB = "Route the work to where it runs"  # named by the common vocabulary: routing
WORDS_FAILURE = "Times out under overload"  # timeouts, overload


def box(box_id: str, label: str, kind: str = "", job: str = WORDS_JOB, failure: str = WORDS_FAILURE) -> Box:
    return Box(box_id, kind, label, job, failure)


def chain(*ids: str) -> list[Arrow]:
    ids = ("client", *ids)
    return [Arrow(source, target, "") for source, target in zip(ids, ids[1:], strict=False)]


def full_serving_boxes() -> list[Box]:
    return [
        box("a", "API gateway", "gateway"),
        box("b", "Token bucket", "rate_limiter"),
        box("c", "Model router", "router"),
        box("d", "vLLM", "engine"),
        box("e", "SSE", "streamer"),
        box("f", "HPA", "autoscaler"),
    ]


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("API Gateway", "gateway"),
        ("Load-Balancers", "gateway"),
        ("loadbalancer", "gateway"),
        ("Rate limiters", "rate_limiter"),
        ("Ratelimiter", "rate_limiter"),
        ("Async streamer", "streamer"),
        ("Iteration scheduler", "scheduler"),
        ("Engine with paged KV", "engine"),
        ("Rate limitter", "rate_limiter"),  # a typo
        ("Reranekr", "reranker"),  # two letters swapped
        ("Vector DB", "vector_index"),
    ],
)
def test_a_free_label_finds_its_palette_kind(index, label, kind):
    kinds, _ = index.match(label)
    assert kind in kinds


def test_a_label_that_means_nothing_matches_nothing(index):
    assert index.match("Quantum flux capacitor") == ((), "")
    assert index.match("") == ((), "")


def test_labels_compare_without_case_spacing_hyphens_or_plurals():
    assert label_key("Rate-Limiters") == label_key("rate limiter") == label_key("RateLimiter")


def test_the_edit_distance_counts_a_swap_as_one_edit_and_stops_at_its_limit():
    assert edit_distance("reranker", "reranekr", 2) == 1
    assert edit_distance("router", "rooter", 1) == 1
    assert edit_distance("gateway", "streamer", 2) == 3


def test_the_reference_drawn_again_scores_every_component_and_the_path(index):
    report = check_design(SERVING, full_serving_boxes(), chain("a", "b", "c", "d", "e"), index)
    assert [component["verdict"] for component in report["components"]] == ["present"] * 6
    assert report["path_ok"] is True
    assert report["coverage"] == 1.0
    assert report["problems"] == [] and report["extra"] == []


def test_a_missing_component_is_named_with_its_job(index):
    boxes = [b for b in full_serving_boxes() if b.kind != "rate_limiter"]
    report = check_design(SERVING, boxes, chain("a", "c", "d", "e"), index)
    limiter = next(c for c in report["components"] if c["kind"] == "rate_limiter")
    assert limiter["verdict"] == "missing" and limiter["matched_ids"] == []
    assert "token budget" in limiter["message"]
    assert report["path_ok"] is False
    assert "no Rate limiter / quota box" in report["path_message"]


def test_a_box_without_a_job_or_failure_mode_scores_nothing_and_is_named(index):
    boxes = full_serving_boxes()
    boxes[2] = box("c", "Model router", "router", job="", failure="")
    report = check_design(SERVING, boxes, chain("a", "b", "c", "d", "e"), index)
    router = next(c for c in report["components"] if c["kind"] == "router")
    assert router["verdict"] == "incomplete" and router["credit"] == 0.0
    assert "Your 'Model router' box has no job and no failure mode written." in report["problems"]


def test_a_box_with_a_job_but_no_failure_mode_earns_half(index):
    boxes = full_serving_boxes()
    boxes[2] = box("c", "Model router", "router", failure="")
    report = check_design(SERVING, boxes, chain("a", "b", "c", "d", "e"), index)
    router = next(c for c in report["components"] if c["kind"] == "router")
    assert router["verdict"] == "incomplete" and router["credit"] == 0.5
    # Five full components and one half: 5.5 / 6.
    assert report["coverage"] == pytest.approx(5.5 / 6)


def test_boxes_outside_the_reference_are_extra_and_cost_nothing(index):
    boxes = [*full_serving_boxes(), box("g", "Guardrails"), box("h", "Flux capacitor")]
    report = check_design(SERVING, boxes, chain("a", "b", "c", "d", "e"), index)
    assert [(item["id"], item["kind"]) for item in report["extra"]] == [("h", ""), ("g", "safety_filter")]
    assert report["coverage"] == 1.0


def test_boxes_in_the_wrong_order_break_the_path(index):
    report = check_design(SERVING, full_serving_boxes(), chain("a", "c", "b", "d", "e"), index)
    assert report["path_ok"] is False
    assert "Model-aware router" in report["path_message"] or "Rate limiter" in report["path_message"]


def test_extra_boxes_between_path_components_are_fine(index):
    boxes = [*full_serving_boxes(), box("t", "Tokenizer", "tokenizer")]
    report = check_design(SERVING, boxes, chain("a", "t", "b", "c", "d", "e"), index)
    assert report["path_ok"] is True


def test_arrows_count_in_either_direction_so_a_pulling_box_still_joins_the_path(index):
    arrows = [Arrow(a.target, a.source, "") for a in chain("a", "b", "c", "d", "e")]
    assert check_design(SERVING, full_serving_boxes(), arrows, index)["path_ok"] is True


def test_a_box_left_unconnected_breaks_the_path_and_says_where(index):
    report = check_design(SERVING, full_serving_boxes(), chain("a", "b", "c"), index)
    assert report["path_ok"] is False
    assert report["path_message"] == (
        "No path from the client to the GPU: no arrow leads from the Model-aware router on to the "
        "Inference engine + KV cache."
    )


def test_a_client_box_can_start_the_path(index):
    boxes = [*full_serving_boxes(), box("u", "Users")]
    arrows = chain("a", "b", "c", "d", "e")
    arrows[0] = Arrow("u", "a", "")
    report = check_design(SERVING, boxes, arrows, index)
    assert report["path_ok"] is True
    assert report["extra"] == []


def test_a_label_that_fits_several_kinds_takes_the_one_the_reference_uses(index):
    # "scheduler" is a synonym of the job scheduler; in a serving design it is the continuous batcher.
    reference = ReferenceDesign((ReferenceBox("s", "scheduler", "Batcher"),), ())
    report = check_design(reference, [box("x", "Scheduler")], [], index)
    assert report["components"][0]["verdict"] == "present"
    training = ReferenceDesign((ReferenceBox("s", "job_scheduler", "Slurm"),), ())
    assert check_design(training, [box("x", "Scheduler")], [], index)["components"][0]["verdict"] == "present"


def test_two_boxes_of_one_kind_both_count_for_it(index):
    boxes = [*full_serving_boxes(), box("a2", "Envoy", "gateway")]
    report = check_design(SERVING, boxes, chain("a", "b", "c", "d", "e"), index)
    gateway = next(c for c in report["components"] if c["kind"] == "gateway")
    assert gateway["matched_ids"] == ["a", "a2"]


def test_every_bank_reference_design_passes_its_own_check(index):
    specs, _ = load_pack("questions/bank/core")
    assert specs
    for spec in specs:
        design = ReferenceDesign(
            tuple(ReferenceBox(n.id, n.kind, n.label) for n in spec.design.nodes if n.kind != "client"),
            tuple(kind for kind in spec.design.path if kind != "client"),
        )
        boxes = [Box(n.id, n.kind, n.label, n.job, n.failure) for n in spec.design.nodes]
        arrows = [Arrow(e.source, e.target, e.label) for e in spec.design.edges]
        report = check_design(design, boxes, arrows, index)
        assert report["coverage"] == 1.0, spec.slug
        assert report["path_ok"] is not False, (spec.slug, report["path_message"])


def test_every_bank_reference_box_is_found_by_its_label_alone(index):
    specs, _ = load_pack("questions/bank/core")
    assert specs
    misses = []
    for spec in specs:
        design = ReferenceDesign(tuple(ReferenceBox(n.id, n.kind, n.label) for n in spec.design.nodes), ())
        for node in spec.design.nodes:
            if node.kind == "client":
                continue
            report = check_design(design, [Box(node.id, "", node.label, WORDS_JOB, WORDS_FAILURE)], [], index)
            if not any(c["kind"] == node.kind and c["verdict"] == "present" for c in report["components"]):
                misses.append((spec.slug, node.label, node.kind))
    assert misses == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_renaming_and_reordering_boxes_changes_nothing_but_the_ids(index, seed):
    rng = random.Random(seed)
    boxes = [*full_serving_boxes(), box("g", "Guardrails", job=""), box("h", "Flux capacitor")]
    arrows = chain("a", "b", "c", "d", "e")
    names = {b.id: f"n{rng.randrange(10**6)}_{i}" for i, b in enumerate(boxes)}
    names["client"] = "client"
    renamed = [Box(names[b.id], b.kind, b.label, b.job, b.failure) for b in boxes]
    rng.shuffle(renamed)
    moved = [Arrow(names[a.source], names[a.target], a.label) for a in arrows]
    rng.shuffle(moved)
    original = check_design(SERVING, boxes, arrows, index)
    shuffled = check_design(SERVING, renamed, moved, index)
    back = {new: old for old, new in names.items()}
    for component in shuffled["components"]:
        component["matched_ids"] = sorted(back[i] for i in component["matched_ids"])
    for item in shuffled["extra"]:
        item["id"] = back[item["id"]]
    assert shuffled == original
