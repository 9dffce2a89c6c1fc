"""Review rounds: the given design and its numbers on the page, ranked fixes saved, the review reported."""

import json

import pytest

from interview.services.interviewing.reference import reference_values
from rounds.models import ReplayRun, WorkEvent
from rounds.services import replays
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from rounds.validation import WorkError
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db

REVIEW_QUESTION = "gateway-fallback-review"
FIXES = [
    {"text": "Count fallback answers as degraded and alert on them", "category": "correctness"},
    {"text": "Bound the queue and reject after 2 s", "category": "admission"},
    {"text": "Buy fallback quota for the whole load", "category": "infrastructure"},
]


@pytest.fixture
def questions(tmp_path):
    return load_questions(tmp_path, REVIEW_QUESTION, KV_QUESTION)


@pytest.fixture
def review_round(alice, questions):
    return round_start(candidate=alice, question=questions[REVIEW_QUESTION], mode="practice")


@pytest.fixture
def sent(monkeypatch):
    """Replay messages recorded instead of sent to a broker; every run gets its turn at once (no fair-queue
    cap), since these tests run them by hand."""
    published: list[int] = []
    monkeypatch.setattr(replays, "_publish", published.append)
    monkeypatch.setattr(replays, "RUNS_IN_FLIGHT_PER_CANDIDATE", 1000)
    return published


def save(client, round_, **body):
    return client.post(f"/rounds/{round_.pk}/save/", json.dumps(body), content_type="application/json")


def test_a_review_round_opens_on_the_given_design_with_its_numbers(review_round):
    spec = review_round.question_version.spec
    work = review_round.work
    given_ids = [node["id"] for node in spec["design"]["nodes"]]
    assert [node["id"] for node in work.design["nodes"]] == ["client", *given_ids]  # the arrows start there
    assert len(work.design["edges"]) == len(spec["design"]["edges"]) and work.design["marks"] == []
    assert all(
        node["failure"] == "" for node in work.design["nodes"]
    )  # the flaws are the candidate's to find
    assert work.numbers == {
        "max_batch": "256 req",
        "queue_limit": "no limit",  # the design has none (issue 30: no limit is a value, not a million)
        "queue_wait_limit": "no limit",
        "fallback_rate": "6 req/s",
        # Sheet 2, the fixed design, opens on the given design too: four replicas as drawn.
        "fixed--replicas": "4 replica",
        "fixed--max_batch": "256 req",
        "fixed--queue_limit": "no limit",
        "fixed--queue_wait_limit": "no limit",
        "fixed--fallback_rate": "6 req/s",
    }
    assert work.fixes == []


def test_the_interviewer_reads_the_designs_missing_limits_as_no_limit(review_round):
    # Issue 30: the reference of a limit the design does not have is "no limit", not "∞ req" or a million.
    shown = {row["name"]: row["display"] for row in reference_values(review_round)}
    assert shown["queue_limit"] == "no limit" and shown["queue_wait_limit"] == "no limit"
    assert shown["max_batch"] == "256 req"


def test_a_design_round_still_opens_on_a_canvas_with_only_the_client(alice, questions):
    round_ = round_start(candidate=alice, question=questions[KV_QUESTION], mode="practice")
    assert [node["id"] for node in round_.work.design["nodes"]] == ["client"]
    assert round_.work.design["edges"] == [] and round_.work.numbers == {}


def test_the_review_page_mounts_a_markable_canvas_and_the_fixes_panel(client, alice, review_round, questions):
    client.force_login(alice)
    page = client.get(f"/rounds/{review_round.pk}/").content.decode()
    assert "data-markable" in page and 'id="review-panel"' in page and 'id="fixes-input"' in page
    assert 'value="256 req"' in page
    design_round = round_start(candidate=alice, question=questions[KV_QUESTION], mode="practice")
    other = client.get(f"/rounds/{design_round.pk}/").content.decode()
    assert "data-markable" not in other and "review-panel" not in other


def test_fixes_are_saved_in_order_and_logged(client, alice, review_round):
    client.force_login(alice)
    response = save(client, review_round, revision=0, fixes=FIXES)
    assert response.status_code == 200, response.content
    assert response.json()["saved"] == ["fixes"]
    review_round.work.refresh_from_db()
    assert review_round.work.fixes == FIXES
    assert WorkEvent.objects.filter(round=review_round, field="fixes").count() == 1
    assert save(client, review_round, revision=1, fixes=FIXES).json()["saved"] == []


@pytest.mark.parametrize(
    "fixes",
    [
        [{"text": "x", "category": "magic"}],
        [{"text": "x" * 301, "category": "admission"}],
        [{"text": "x", "category": "admission"}] * 21,
        "not a list",
        [{"category": "admission"}],
    ],
)
def test_malformed_fixes_are_refused(review_round, fixes):
    with pytest.raises(WorkError):
        work_save(round_id=review_round.pk, base_revision=0, fixes=fixes)
    review_round.work.refresh_from_db()
    assert review_round.work.fixes == [] and review_round.work.revision == 0


def test_malformed_marks_are_refused(client, alice, review_round):
    client.force_login(alice)
    design = dict(review_round.work.design, marks=[{"target": "q", "what": 3}])
    assert save(client, review_round, revision=0, design=design).status_code == 400


def test_the_api_saves_and_returns_fixes(client, alice, review_round):
    client.force_login(alice)
    url = f"/api/rounds/{review_round.pk}/save/"
    saved = client.post(url, {"revision": 0, "fixes": FIXES}, content_type="application/json")
    assert saved.status_code == 200 and saved.json()["saved"] == ["fixes"]
    assert client.get(f"/api/rounds/{review_round.pk}/").json()["fixes"] == FIXES
    bad = client.post(
        url, {"revision": 1, "fixes": [{"text": "x", "category": "magic"}]}, content_type="application/json"
    )
    assert bad.status_code == 400


def test_submitting_a_review_grades_it_and_queues_its_three_replays(
    client, alice, review_round, sent, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    design = dict(review_round.work.design)
    design["marks"] = [
        {"target": "q", "what": "The queue has no limit", "how": "it grows without bound at peak"},
        {"target": "gw->obs", "what": "Fallback answers count as success", "how": "the outage is masked"},
        {"target": "eng", "what": "The GPUs are too slow", "how": "need more of them"},
    ]
    numbers = {"fixed--max_batch": "96 req", "fixed--queue_limit": "300 req"}
    assert (
        save(client, review_round, revision=0, design=design, numbers=numbers, fixes=FIXES).status_code == 200
    )
    with django_capture_on_commit_callbacks(execute=True):
        round_ = round_submit(round_id=review_round.pk)
    review = round_.report["review"]
    assert set(review["found"]) == {"queue-without-limit", "fallback-reported-as-success"}
    assert review["false_alarms"] == 1
    assert review["ranking"]["ok"] is True
    assert round_.score == round_.report["scores"]["overall"]
    runs = ReplayRun.objects.filter(round=round_)
    assert {(run.scenario, run.side) for run in runs} == {
        (scenario, side)
        for scenario in ("peak-hour", "pool-outage")
        for side in ("candidate", "reference", "fix")
    }
    assert len(sent) == 6
    # The fixed sheet sizes the fixed design; the reference fix runs on the question's fix (ten replicas).
    fixed = runs.get(scenario="peak-hour", side="candidate").inputs["params"]
    assert fixed["max_batch"] == 96 and fixed["queue_limit"] == 300 and fixed["replicas"] == 4
    fix = runs.get(scenario="peak-hour", side="fix").inputs["params"]
    assert fix["replicas"] == 10 and fix["max_batch"] == 96 and fix["queue_timeout_s"] == 2

    page = client.get(f"/rounds/{round_.pk}/report/").content.decode()
    assert 'id="review-report"' in page
    assert "Found" in page and "Missed" in page and "false alarm" in page
    assert "Given design" in page and "Your fixed design" in page
    assert 'id="review-flaw-batch-larger-than-kv"' in page
    # The replays page names the three sides as the report does: the given design is no "reference".
    replays_page = client.get(f"/rounds/{round_.pk}/replays/").content.decode()
    assert "on the given design, on your fixed design (sheet 2) and on the" in replays_page
    assert "Given design" in replays_page and "Reference fix" in replays_page
    assert ">Reference<" not in replays_page


def test_submitting_a_design_round_queues_its_replays_too(
    alice, questions, sent, django_capture_on_commit_callbacks
):
    round_ = round_start(candidate=alice, question=questions[KV_QUESTION], mode="practice")
    with django_capture_on_commit_callbacks(execute=True):
        round_submit(round_id=round_.pk)
    scenarios = round_.question_version.spec.get("scenarios") or []
    assert ReplayRun.objects.filter(round=round_).count() == 2 * len(scenarios)
    assert "review" not in round_.question_version.spec and len(sent) == 2 * len(scenarios)


def test_an_author_edits_a_review_questions_flaws_in_the_editor_and_they_round_trip(
    client, admin_user, questions
):
    from django.urls import reverse

    from interview.models.authoring import Draft
    from interview.services.authoring import draft_check
    from questions.services.packs import yaml_dump, yaml_read_text

    client.force_login(admin_user)
    client.post(reverse("authoring-question-edit", args=[REVIEW_QUESTION]))
    draft = Draft.objects.get(owner=admin_user, slug=REVIEW_QUESTION)
    page = client.get(reverse("authoring-draft", args=[draft.pk]))
    assert 'id="f-review"' in page.content.decode()
    texts = page.context["texts"]
    assert yaml_read_text(texts["review"]) == draft.data["review"]
    form = {
        **{key: draft.data.get(key, "") for key in ("title", "track", "difficulty", "kind", "summary")},
        **{key: draft.data.get(key, "") for key in ("prompt", "outline")},
        **texts,
        "design": page.context["canvas_design_json"],
        "design_path": " ".join(draft.data["design"]["path"]),
    }
    before = dict(draft.data)
    client.post(reverse("authoring-draft", args=[draft.pk]), form)
    draft.refresh_from_db()
    assert draft.data["review"] == before["review"]
    # A new planted flaw typed in the review box is saved and checked with the rest of the question.
    extra = {
        "id": "extra",
        "component": "gateway",
        "kind": "retry_storm",
        "description": "Retries multiply the load.",
        "scenario": "peak-hour",
        "fix_category": "admission",
    }
    flaws = yaml_dump({"flaws": [*before["review"]["flaws"], extra]})
    client.post(reverse("authoring-draft", args=[draft.pk]), {**form, "review": flaws})
    draft.refresh_from_db()
    assert [flaw["id"] for flaw in draft.data["review"]["flaws"]][-1] == "extra"
    assert draft_check(draft.data)[1] == []
    client.post(
        reverse("authoring-draft", args=[draft.pk]), {**form, "review": flaws.replace("peak-hour", "x")}
    )
    draft.refresh_from_db()
    problems = draft_check(draft.data)[1]
    assert any(where.startswith("review.flaws") for where, _ in problems)


def _submit_a_marked_review(client, review_round, django_capture_on_commit_callbacks):
    design = dict(review_round.work.design)
    design["marks"] = [{"target": "q", "what": "The queue has no limit", "how": "it grows at peak"}]
    numbers = {"fixed--max_batch": "96 req", "fixed--queue_limit": "300 req"}
    save(client, review_round, revision=0, design=design, numbers=numbers, fixes=FIXES)
    with django_capture_on_commit_callbacks(execute=True):
        return round_submit(round_id=review_round.pk)


def test_submitting_a_review_runs_no_replay_inside_the_submission(
    client, alice, review_round, sent, monkeypatch, django_capture_on_commit_callbacks
):
    import grading.core.sim

    simulated = []
    monkeypatch.setattr(grading.core.sim, "run_scenario", lambda *args, **kw: simulated.append(args))
    client.force_login(alice)
    round_ = _submit_a_marked_review(client, review_round, django_capture_on_commit_callbacks)
    assert simulated == []
    assert round_.report["review"]["replays"] == {
        "pending": True,
        "scenarios": [],
        "fixed_meets": False,
        "fixed_met": 0,
        "given_failed": 0,
        "total": 2,
    }
    assert round_.score is None and round_.report["scores"]["review"] is None
    assert len(sent) == 6  # the replays went to the job queue instead (three sides, two scenarios)


def test_the_review_fills_in_from_its_replay_jobs_as_the_synchronous_grading_would(
    client, alice, review_round, sent, django_capture_on_commit_callbacks, settings
):
    from grading.core.review_check import grade_review
    from rounds.services.grading import round_submission
    from rounds.services.replays import replay_execute

    client.force_login(alice)
    round_ = _submit_a_marked_review(client, review_round, django_capture_on_commit_callbacks)
    header_url = f"/rounds/{round_.pk}/report/"
    polling = client.get(header_url, headers={"HX-Request": "true"}).content.decode()
    assert 'id="report-header"' in polling and 'hx-trigger="every 2s"' in polling
    assert "waiting for the replays" in polling

    for run_id in sent[:-1]:
        assert replay_execute(run_id=run_id) == "done"
    still = client.get(header_url, headers={"HX-Request": "true"}).content.decode()
    assert 'hx-trigger="every 2s"' in still  # one run left: still polling, still no score
    assert replay_execute(run_id=sent[-1]) == "done"

    done = client.get(header_url, headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in done.split('id="review-replays"')[0]  # the header stopped polling
    assert 'id="review-replays" class="review-replays" hx-swap-oob="true"' in done
    round_.refresh_from_db()
    version = round_.question_version
    synchronous = grade_review(
        version.spec,
        round_submission(round_),
        seed_key=round_.pk,
        version=version.number,
        seed_count=settings.REPLAY_SEEDS,
    )
    assert round_.report["review"]["replays"] == synchronous["review"]["replays"]
    assert round_.report["scores"] == synchronous["scores"]
    assert round_.score == synchronous["scores"]["overall"] is not None
    assert round_.score_numbers == synchronous["scores"].get("numbers")  # the history's columns follow
    assert f"Overall {round_.score:.0f} / 100" in done


def test_the_periodic_task_completes_a_review_nobody_has_looked_at_once_its_runs_are_done(
    client, alice, review_round, sent, django_capture_on_commit_callbacks
):
    from interview.tasks import complete_reviews
    from rounds.services.replays import replay_execute

    client.force_login(alice)
    round_ = _submit_a_marked_review(client, review_round, django_capture_on_commit_callbacks)
    assert complete_reviews.apply().get() == 0  # runs still queued: nothing to fold in
    for run_id in sent:
        replay_execute(run_id=run_id)
    assert complete_reviews.apply().get() == 1
    round_.refresh_from_db()
    assert round_.score is not None and "pending" not in round_.report["review"]["replays"]
    assert complete_reviews.apply().get() == 0  # done once


def test_the_two_sheets_are_kept_apart_the_analysis_graded_on_the_given_design_the_fixed_sheet_replayed(
    client, alice, review_round, sent, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    page = client.get(f"/rounds/{review_round.pk}/").content.decode()
    # The page says which sheet is which; sheet 2 opens on the given design (four replicas), never the fix.
    assert "Sheet 1 · Your analysis of the given design" in page and "Sheet 2 · Your fixed design" in page
    assert 'id="n-fixed--replicas" name="numbers.fixed--replicas" data-number="fixed--replicas"' in page
    assert 'value="4 replica"' in page and "10 replica" not in page
    read = client.post(
        f"/rounds/{review_round.pk}/read/", {"name": "fixed--replicas", "numbers.fixed--replicas": "7"}
    )
    assert read.status_code == 200 and "Read as 7 replica" in read.content.decode()
    # Sheet 1 analyses the given design: a batch of 256 asks 256 x 2,300 tokens of KV against
    # (80 GB x 0.9 - 16 GB) / 128 KiB = 427,246 tokens of room, 1.38x. Sheet 2 fixes the batch to 96 and
    # sizes the pool at seven replicas; neither changes how sheet 1 is graded.
    numbers = {
        "max_batch": "256 req",
        "kv_overcommit": "1.38",
        "fixed--replicas": "7",
        "fixed--max_batch": "96 req",
    }
    assert save(client, review_round, revision=0, numbers=numbers).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        round_ = round_submit(round_id=review_round.pk)
    verdicts = {line["name"]: line["verdict"] for line in round_.report["lines"]}
    assert verdicts["max_batch"] == "correct" and verdicts["kv_overcommit"] == "correct"
    # The fixed design replays on seven replicas with the batch of 96; the given design on its four of 256.
    runs = ReplayRun.objects.filter(round=round_, scenario="peak-hour")
    fixed, given = runs.get(side="candidate").inputs["params"], runs.get(side="reference").inputs["params"]
    assert (fixed["replicas"], fixed["max_batch"]) == (7, 96) and (given["replicas"], given["max_batch"]) == (
        4,
        256,
    )
    sheet = {line["name"]: line for line in round_.report["review"]["fixed_sheet"]}
    assert sheet["replicas"] == {
        "name": "replicas",
        "label": "Replicas in the pool",
        "unit": "replica",
        "given": "4 replicas",
        "yours": "7",
        "reference": "10 replicas",
    }
    report = client.get(f"/rounds/{round_.pk}/report/").content.decode()
    assert 'id="review-fixed-sheet"' in report and "Sheet 2 · your fixed design" in report
    assert 'id="review-sheets-note"' in report


def test_the_same_slip_on_one_sheet_moves_the_analysis_when_there_is_only_one():
    # Before the two sheets the batch edited to apply the fix was the analysis's batch too: the grader carried
    # 96 forward and marked the given design's 1.38x KV overcommit wrong (96 x 2,300 / 427,246 = 0.52).
    from grading.core.review_check import grade_review
    from tests.core.test_review_check import BANK, load_question

    spec = load_question(BANK / f"{REVIEW_QUESTION}.yaml")
    one_sheet = grade_review(
        spec, {"numbers": {"max_batch": "96 req", "kv_overcommit": "1.38"}}, run_replays=False
    )
    two = grade_review(
        spec,
        {"numbers": {"max_batch": "256 req", "kv_overcommit": "1.38"}, "fixed": {"max_batch": "96 req"}},
        run_replays=False,
    )
    assert (
        next(line for line in one_sheet["lines"] if line["name"] == "kv_overcommit")["verdict"] != "correct"
    )
    assert next(line for line in two["lines"] if line["name"] == "kv_overcommit")["verdict"] == "correct"
