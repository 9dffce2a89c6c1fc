"""What a candidate reads first, in real Chromium: the failure-modes score beside the verdicts it comes from,
and the check page's warning before the first check."""

import re

from django.urls import reverse
from playwright.sync_api import expect

from rounds.models import ReferenceCheck, ReplayRun, ReplayStatus, Work
from rounds.services.replays import replay_execute
from rounds.services.rounds import round_start, round_submit
from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import load_questions


def submitted(alice, question, numbers: dict):
    """A timed round with `numbers` on its sheet, submitted, its replays finished in this process."""
    round_ = round_start(candidate=alice, question=question, mode="timed")
    work = Work.objects.get(round=round_)
    Work.objects.filter(pk=work.pk).update(numbers={**work.numbers, **numbers})
    round_submit(round_id=round_.pk)
    for run in ReplayRun.objects.filter(round=round_, status=ReplayStatus.QUEUED):
        replay_execute(run_id=run.pk)
    return round_


def failure_score_shown(page, round_) -> int:
    page.goto(reverse("round-report", args=[round_.pk]))
    header = page.locator("#report-header")
    expect(header).to_contain_text("failure modes")
    shown = re.search(r"failure modes (\d+) / 100", header.inner_text())
    assert shown, header.inner_text()
    expect(page.locator("#failure-score-value")).to_have_text(shown.group(1))
    return int(shown.group(1))


def test_a_review_round_whose_fix_fails_its_scenarios_scores_failure_modes_below_half_and_says_why(
    page, alice, tmp_path, transactional_db
):
    slug = "eight-gpu-design-review"
    question = load_questions(tmp_path, slug)[slug]
    round_ = submitted(alice, question, {})  # the given design's numbers, unchanged: no fix at all
    log_in(page, "alice")
    assert failure_score_shown(page, round_) < 50
    section = page.locator("#failure-score")
    expect(section).to_contain_text("never against the given design")
    for row in section.locator("li").all():
        expect(row).to_contain_text("Met its SLO in 0 of 2 runs: 0 / 100.")
    expect(page.locator("#review-replays-verdict")).to_contain_text("Your fixed design meets 0 of 3")


def test_an_oversized_fleet_scores_below_the_right_sized_one_and_the_report_says_it_costs_more(
    page, alice, tmp_path, transactional_db
):
    slug = "video-generation-serving"
    question = load_questions(tmp_path, slug)[slug]
    right = submitted(alice, question, {"nodes_needed": "34 nodes"})  # 28 with headroom, under 1.25x its cost
    oversized = submitted(alice, question, {"nodes_needed": "56 nodes"})
    log_in(page, "alice")
    right_score = failure_score_shown(page, right)
    oversized_score = failure_score_shown(page, oversized)
    assert oversized_score < right_score
    expect(page.locator("#failure-score")).to_contain_text(
        "Your fleet costs $448 a run against the reference's $224"
    )
    expect(page.locator("#replays")).to_contain_text("Met its SLO in 2 of 2 runs")  # met, yet scored less


def test_the_check_page_warns_before_the_first_check(page, alice, tmp_path, transactional_db):
    questions = load_questions(tmp_path, "kv-cache-tiering", "llm-batching-system")
    log_in(page, "alice")
    page.goto(reverse("practice-check", args=["kv-cache-tiering"]))
    warning = page.locator("#reference-seen-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("every later round you start on this question")
    expect(warning).to_contain_text(questions["llm-batching-system"].title)
    button = page.get_by_role("button", name=re.compile("mark later rounds “reference seen”"))
    expect(button).to_be_visible()
    assert warning.bounding_box()["y"] < button.bounding_box()["y"]  # read before the button is reached
    assert not ReferenceCheck.objects.exists()
    page.locator("input[type=text]").first.fill("9.8 GB")
    button.click()
    expect(page.locator("#reference-seen-warning")).to_contain_text("You have checked this question before")
    assert ReferenceCheck.objects.filter(user=alice).count() == 2  # this question and the one sharing its KV
