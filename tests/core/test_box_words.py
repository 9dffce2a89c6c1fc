"""The words in the boxes: the palette's vocabulary of jobs and failure modes, and how text matches it."""

import pytest

from grading.core.box_words import FAILURE, JOB, KindWords, Term, Vocabulary
from grading.core.design_check import ReferenceBox, ReferenceDesign, check_design, load_index
from grading.core.question_files import load_pack, load_palette_file
from grading.core.submission import Box

PALETTE = "questions/bank/palette.yaml"
NONSENSE = ("asdf", "asdf asdf", "lorem ipsum dolor sit amet", "qwerty zxcv uiop", "xyzzy plugh", "...")

# DOMAIN.md section 2, "The seven boxes between an API call and a GPU": each box's one job and its primary way
# to fail, as written there.
DOMAIN_SEVEN = (
    (
        "gateway",
        "authenticate the caller, validate the request, identify tenant and model; terminate TLS and "
        "long-lived streams",
        "auth/key-service dependency outage or connection exhaustion. Long-lived SSE connections use "
        "up connection/file-descriptor limits and every request 5xxs even though GPUs are idle",
    ),
    (
        "rate_limiter",
        "keep each tenant inside its token budget (input and output tokens, not requests)",
        "counts requests instead of tokens, so one 50,000-token request passes a limit sized for "
        "50-token ones. Also: fails open, or a hot distributed counter key",
    ),
    (
        "router",
        "pick the replica (model, LoRA, region, prefix-cache affinity, load)",
        "load-blind or cache-blind routing (round-robin). Hot spots and prefix-cache misses, or routing to a "
        "dead or cold replica, then a thundering herd on failover",
    ),
    (
        "admission_queue",
        "bound the work accepted; order it by priority and deadline; reject what cannot meet its SLO",
        "unbounded queue: waiting time grows without limit past the SLO, clients retry, load multiplies "
        "(queueing collapse). Also head-of-line blocking behind long prompts",
    ),
    (
        "scheduler",
        "each step, pick which sequences run (prefill chunks + decodes) within token, KV and TPOT budgets",
        "prefill stalls decode: a long prompt inflates every decoding sequence's TPOT. Or it over-admits "
        "past KV capacity, causing preemption and recompute thrash",
    ),
    (
        "engine",
        "run the forward pass on the GPUs; hold each sequence's KV state",
        "KV-cache exhaustion/OOM forces evictions and preemption. GPU faults (Xid, NCCL hang) take a whole "
        "TP group down; a hung engine with open sockets fails silently",
    ),
    (
        "streamer",
        "turn token ids into text and push them to the client; emit usage events",
        "a slow client back-pressures the engine loop (the engine must never block on a socket). Or a "
        "disconnected client leaves an orphan generation burning GPU; or usage events are lost",
    ),
)


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return load_index(PALETTE).vocabulary


def test_the_palette_file_carries_a_version_and_every_kind_has_jobs_and_failure_modes(vocabulary):
    palette, common, version = load_palette_file(PALETTE)
    assert version >= 2 and common.jobs and common.failures
    assert [kind for kind in palette if not vocabulary.knows(kind)] == []


def test_every_job_and_failure_mode_of_every_bank_reference_design_is_recognised(vocabulary):
    specs, errors = load_pack("questions/bank/core")
    assert not errors
    unnamed = [
        (spec.slug, node.kind, field_name, text)
        for spec in specs
        for node in spec.design.nodes
        for field_name, text in ((JOB, node.job), (FAILURE, node.failure))
        if text and not vocabulary.recognise(node.kind, field_name, text)
    ]
    assert unnamed == []


def test_the_palettes_own_job_and_failure_texts_are_recognised(vocabulary):
    palette, _, _ = load_palette_file(PALETTE)
    for component in palette.values():
        assert vocabulary.recognise(component.kind, JOB, component.job), component.kind
        assert vocabulary.recognise(component.kind, FAILURE, component.failure), component.kind


@pytest.mark.parametrize(("kind", "job", "failure"), DOMAIN_SEVEN, ids=[row[0] for row in DOMAIN_SEVEN])
def test_domains_seven_boxes_name_a_job_and_a_failure_mode_of_their_kind(vocabulary, kind, job, failure):
    own = load_palette_file(PALETTE)[0][kind]
    own_jobs, own_failures = {t.name for t in own.jobs}, {t.name for t in own.failures}
    assert own_jobs & set(vocabulary.recognise(kind, JOB, job))
    assert own_failures & set(vocabulary.recognise(kind, FAILURE, failure))


@pytest.mark.parametrize(
    ("phrase", "term"),
    [
        ("Unbounded growth, no backpressure", "unbounded growth / no backpressure"),
        ("head-of-line blocking", "head-of-line blocking"),
        ("admits past KV capacity", "admitting past KV capacity"),
        ("retry storms", "retry storms"),
        ("requests time out", "timeouts"),
    ],
)
def test_the_admission_queues_usual_failure_phrasings_are_its_own_terms(vocabulary, phrase, term):
    assert term in vocabulary.recognise("admission_queue", FAILURE, phrase)


@pytest.mark.parametrize(
    "text",
    [
        "UNBOUNDED QUEUE",  # case
        "queues are unbounded",  # plural
        "un bounded queue",  # spacing
        "Unbonded queue",  # one letter missing
        "unbuonded queue",  # two letters swapped
        "no back-pressure",  # hyphen
    ],
)
def test_matching_tolerates_case_plurals_spacing_and_small_typos(vocabulary, text):
    assert "unbounded growth / no backpressure" in vocabulary.recognise("admission_queue", FAILURE, text)


def test_short_words_must_match_exactly_so_round_robin_is_not_a_bound(vocabulary):
    assert "admit or reject work" not in vocabulary.recognise("admission_queue", JOB, "round robin")


@pytest.mark.parametrize("text", NONSENSE)
def test_nonsense_names_nothing_for_any_kind(vocabulary, text):
    for kind in vocabulary.kinds:
        assert vocabulary.recognise(kind, JOB, text) == ()
        assert vocabulary.recognise(kind, FAILURE, text) == ()


def test_matching_is_deterministic_and_in_vocabulary_order():
    vocabulary = Vocabulary(
        {"k": KindWords((Term("first", ("alpha",)), Term("second", ("beta gamma",))), ())}, version=1
    )
    assert vocabulary.recognise("k", JOB, "Beta-Gamma then alpha") == ("first", "second")
    assert vocabulary.recognise("k", JOB, "alpha beta gamma") == ("first", "second")


def one_box_design(kind: str, job: str, failure: str) -> dict:
    reference = ReferenceDesign((ReferenceBox("r", kind, "", "Bound the queue", "Unbounded growth"),), ())
    return check_design(reference, [Box("b", kind, "Queue", job, failure)], [], load_index(PALETTE))


def test_a_box_of_nonsense_scores_nothing_and_says_what_would_count():
    report = one_box_design("admission_queue", "asdf", "qwerty")
    component = report["components"][0]
    assert component["credit"] == 0.0 and report["coverage"] == 0.0
    assert component["job_named"] == [] and component["failure_named"] == []
    assert "name nothing we recognise" in component["message"]
    assert 'a job such as "' in component["message"] and 'a failure mode such as "' in component["message"]
    assert "Nothing scored for this box." in component["message"]


def test_the_report_shows_what_the_box_and_the_reference_name():
    report = one_box_design("admission_queue", "asdf", "Head of line blocking behind long prompts")
    component = report["components"][0]
    assert component["credit"] == 0.5
    assert component["failure_named"][0] == "head-of-line blocking"
    assert component["reference_job_named"][0] == "bound the accepted work"
    assert component["reference_failure_named"][0] == "unbounded growth / no backpressure"


def test_every_bank_question_grades_its_reference_design_full_and_its_nonsense_twin_at_most_half():
    from grading.core.grader import grade

    specs, _ = load_pack("questions/bank/core")
    for spec in specs:
        if not spec.design.nodes or spec.kind == "review":
            continue
        nodes = [
            {"id": n.id, "kind": n.kind, "label": n.label, "job": n.job, "failure": n.failure}
            for n in spec.design.nodes
        ]
        edges = [{"source": e.source, "target": e.target} for e in spec.design.edges]
        shape = grade(spec, {"design": {"nodes": nodes, "edges": edges}})["scores"]["shape"]
        nonsense = [{**node, "job": "asdf", "failure": "qwerty uiop"} for node in nodes]
        nonsense_shape = grade(spec, {"design": {"nodes": nonsense, "edges": edges}})["scores"]["shape"]
        assert shape == 100.0, spec.slug
        assert nonsense_shape <= shape / 2, spec.slug
