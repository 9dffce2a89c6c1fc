"""A design-review round in real Chromium: mark failure paths on the given design, rank fixes, edit its
numbers, submit, and read which planted flaws were found and missed beside the two replays."""

import json

import pytest
from playwright.sync_api import expect

from rounds.models import ReplayRun, ReplayStatus, Round, RoundStatus
from rounds.services.replays import replay_execute
from tests.browser.canvas_helpers import arrow_item, box_item, canvas_parts, read_design, wait_for_saved
from tests.browser.conftest import log_in, show_tab
from tests.interview.bank_fixtures import load_questions

REVIEW_QUESTION = "gateway-fallback-review"


@pytest.fixture
def review_question(tmp_path, transactional_db):
    return load_questions(tmp_path, REVIEW_QUESTION)[REVIEW_QUESTION]


def mark(page, item, what: str, how: str) -> None:
    """Select a box or an arrow in the canvas's lists, press M, and add the mark with the form."""
    item.focus()
    page.keyboard.press("m")
    root = canvas_parts(page)
    form = root.locator("[data-sbc=mark-form]")
    expect(form).to_be_visible()
    form.locator("[data-sbc-field=mark-what]").fill(what)
    form.locator("[data-sbc-field=mark-how]").fill(how)
    form.locator("[data-action=mark-save]").click()
    expect(form).to_be_hidden()


def add_fix(page, text: str, category: str) -> None:
    show_tab(page, "Fixes")
    page.get_by_label("New fix").fill(text)
    page.get_by_label("Category", exact=True).select_option(category)
    page.get_by_role("button", name="Add fix").click()


def test_a_candidate_marks_ranks_edits_and_submits_a_review_round(page, alice, review_question):
    log_in(page, "alice")
    page.goto(f"/questions/{REVIEW_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    round_id = int(page.url.rstrip("/").split("/")[-1])

    # The canvas opens with the given design and its numbers.
    design = read_design(page)
    assert {node["id"] for node in design["nodes"]} == {"client", "gw", "q", "sch", "eng", "fb", "obs"}
    assert len(design["edges"]) == 6
    sheet1, sheet2 = page.locator("#sheet .sheet-phase:not(.sheet-fixed)"), page.locator("#sheet-fixed")
    expect(sheet1.get_by_label("Batch size per replica")).to_have_value("256 req")
    expect(sheet1.get_by_label("Queue limit")).to_have_value("no limit")  # the design has none (issue 30)
    # Sheet 2, the fixed design, opens on the given design too (four replicas), never on the reference fix.
    expect(sheet2.get_by_label("Replicas in the pool")).to_have_value("4 replica")
    expect(sheet2.get_by_label("Batch size per replica")).to_have_value("256 req")

    # Two failure paths: a box and an arrow.
    mark(page, box_item(page, "q"), "The queue has no limit", "It grows without bound at peak")
    mark(page, arrow_item(page, "gw", "obs"), "Fallback answers count as successes", "The outage is masked")
    saved = wait_for_saved(page, "#design-input")
    assert [m["target"] for m in saved["marks"]] == ["q", "gw->obs"]

    # Three fixes, ranked: the infrastructure one is added first, then moved to the end.
    add_fix(page, "Buy a fallback quota sized for the load", "infrastructure")
    add_fix(page, "Report fallback answers as degraded and alert on them", "correctness")
    add_fix(page, "Bound the queue at 300 and cap the batch at 96", "admission")
    page.get_by_role("button", name="Move fix 1 down").click()
    page.get_by_role("button", name="Move fix 2 down").click()
    expect(page.locator("#fixes-list li")).to_have_count(3)
    expect(page.get_by_label("Fix 3", exact=True)).to_have_value("Buy a fallback quota sized for the load")

    # A deleted fix comes back where it was with Undo.
    page.get_by_role("button", name="Delete fix 2").click()
    expect(page.locator("#fixes-list li")).to_have_count(2)
    page.locator("#fix-undo").get_by_role("button", name="Undo").click()
    expect(page.locator("#fixes-list li")).to_have_count(3)
    restored = page.get_by_label("Fix 2", exact=True)
    expect(restored).to_have_value("Bound the queue at 300 and cap the batch at 96")
    expect(page.locator("#fix-undo")).to_be_hidden()

    # The Numbers tab says which sheet is which; apply the admission fix and the pool's growth on sheet 2.
    show_tab(page, "Numbers")
    expect(page.locator("#sheet-analysis-title")).to_have_text("Sheet 1 · Your analysis of the given design")
    expect(page.locator("#sheet-analysis-note")).to_contain_text("Graded against the given design")
    expect(page.locator("#sheet-fixed-title")).to_have_text("Sheet 2 · Your fixed design")
    expect(page.locator("#sheet-fixed-note")).to_contain_text(
        'size the design replayed as "your fixed design"'
    )
    sheet2.get_by_label("Batch size per replica").fill("96 req")
    sheet2.get_by_label("Queue limit").fill("300 req")
    sheet2.get_by_label("Replicas in the pool").fill("10")
    sheet2.get_by_label("Replicas in the pool").blur()
    expect(page.locator("#reading-fixed--replicas")).to_contain_text("Read as 10 replica")
    expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=15_000)

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url(f"**/rounds/{round_id}/report/")
    round_ = Round.objects.get(pk=round_id)
    assert round_.status == RoundStatus.SUBMITTED
    numbers = round_.work.numbers
    assert numbers["fixed--max_batch"] == "96 req" and numbers["fixed--queue_limit"] == "300 req"
    assert numbers["max_batch"] == "256 req" and numbers["fixed--replicas"] == "10"  # sheet 1 as given
    assert [fix["category"] for fix in round_.work.fixes] == ["correctness", "admission", "infrastructure"]

    # With a broker (CI), no worker runs here: finish the queued replays in this process, then look again
    # (away from the report, whose polling would meet the runs' writes on SQLite's one-writer lock).
    report_url = page.url
    page.goto("about:blank")
    for run in ReplayRun.objects.filter(round=round_, status=ReplayStatus.QUEUED):
        replay_execute(run_id=run.pk)
    page.goto(report_url)

    review = page.locator("#review-report")
    expect(review).to_contain_text("2 of 5 planted flaws found")
    expect(review).to_contain_text("0 false alarms")
    found = page.locator("#review-flaw-queue-without-limit")
    expect(found).to_contain_text("Found")
    expect(page.locator("#review-flaw-fallback-reported-as-success")).to_contain_text("Found")
    missed = page.locator("#review-flaw-batch-larger-than-kv")
    expect(missed).to_contain_text("Missed")
    expect(missed).to_contain_text("cap the batch near 96")  # the planted flaw's description, now shown
    expect(page.locator("#review-ranking")).to_contain_text("before any new infrastructure")

    # The report keeps the two sheets apart and shows sheet 2 beside the given design and the reference fix.
    expect(page.locator("#review-sheets-note")).to_contain_text("graded above against the given")
    expect(page.locator("#review-fixed-replicas")).to_contain_text("4 replica")
    expect(page.locator("#review-fixed-replicas .review-fixed-yours")).to_have_text("10")

    # The replays of each scenario, side by side: the given design, the fixed one and the reference fix.
    for scenario in ("peak-hour", "pool-outage"):
        sides = page.locator(f"#replay-scenario-{scenario} .replay-sides")
        expect(sides.locator(".replay-run")).to_have_count(3)
        expect(sides).to_contain_text("Given design")
        expect(sides).to_contain_text("Your fixed design")
        expect(sides).to_contain_text("Reference fix")
        expect(sides.locator(".replay-done")).to_have_count(3)
        boxes = [sides.locator(f".replay-side-{side}").bounding_box() for side in ("candidate", "reference")]
        assert abs(boxes[0]["y"] - boxes[1]["y"]) < 5 and boxes[0]["x"] != boxes[1]["x"]  # beside each other
    given = page.locator("#replay-scenario-peak-hour .replay-side-reference")
    expect(given).to_contain_text("Missed its SLO")
    report = json.loads(json.dumps(Round.objects.get(pk=round_id).report))
    assert set(report["review"]["found"]) == {"queue-without-limit", "fallback-reported-as-success"}


def test_a_review_round_with_ninety_gigabytes_in_six_fields_submits_and_its_report_fills_in(
    page, alice, tmp_path, transactional_db
):
    """Typed into six fields of eight-gpu-design-review, "90 GB" once put NaN into a replay's SLO check:
    submit answered 500 and the round stayed open. Now the submit lands on the report, whose header waits for
    the replays and fills in (without a reload) once they are done."""
    slug = "eight-gpu-design-review"
    load_questions(tmp_path, slug)
    log_in(page, "alice")
    page.goto(f"/questions/{slug}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    round_id = int(page.url.rstrip("/").split("/")[-1])
    show_tab(page, "Numbers")
    fields = page.locator("input[data-number]")
    assert fields.count() >= 6
    for index in range(6):  # one at a time: each save lands before the next field changes
        fields.nth(index).fill("90 GB")
        fields.nth(index).blur()
        expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=15_000)

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url(f"**/rounds/{round_id}/report/")
    round_ = Round.objects.get(pk=round_id)
    assert round_.status == RoundStatus.SUBMITTED
    assert sum(text == "90 GB" for text in round_.work.numbers.values()) == 6
    header = page.locator("#report-header")
    expect(header).to_contain_text("waiting for the replays")
    expect(page.locator("#review-replays-verdict")).to_contain_text("are replaying")

    # With a broker (CI), no worker runs here: finish the queued replays in this process; the header polls.
    for run in ReplayRun.objects.filter(round=round_, status=ReplayStatus.QUEUED):
        replay_execute(run_id=run.pk)
    expect(header).to_contain_text("Overall", timeout=10_000)
    expect(header).not_to_contain_text("waiting for the replays", timeout=10_000)
    expect(header).not_to_have_attribute("hx-trigger", "every 2s")
    expect(page.locator("#review-replays-verdict")).to_contain_text("the given design misses")
    expect(page.locator("#review-score")).to_contain_text("/ 100")
    report_text = page.locator("main").inner_text()
    assert "nan" not in report_text.lower().split() and "NaN" not in report_text
    stored = Round.objects.get(pk=round_id)
    json.dumps(stored.report, allow_nan=False)
    assert stored.score is not None
    for run in ReplayRun.objects.filter(round=round_):
        json.dumps(run.result, allow_nan=False)
