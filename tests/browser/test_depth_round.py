"""In real Chromium (issue 33): a timed round reaches its depth phase; the first curveball appears in the
side panel and on the canvas, the candidate answers its lines and changes the design, orders a follow-up's
options and types its number, submits, and reads a depth score that is what the report's items show."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from rounds.models import Round, Work
from tests.browser.canvas_helpers import add_box, set_job, wait_for_saved
from tests.browser.conftest import log_in, show_tab, wait_on_page
from tests.browser.round_helpers import start_timed_round
from tests.interview.bank_fixtures import load_questions

SLUG = "seven-boxes-serving-walkthrough"
BEFORE_DEPTH_MIN = 1 + 5 + 7 + 10  # intro, numbers, shape, arithmetic


@pytest.fixture
def question(tmp_path, transactional_db):
    return load_questions(tmp_path, SLUG)[SLUG]


def test_a_timed_round_answers_its_depth_phase_and_the_report_scores_what_it_shows(page, alice, question):
    log_in(page, "alice")
    round_id = start_timed_round(page, SLUG)
    show_tab(page, "Depth")
    expect(page.locator("#depth-panel")).to_contain_text("arrive when the clock reaches the depth phase")
    expect(page.locator("#canvas-curveball")).to_be_hidden()
    assert "Think time halves" not in page.content()

    Round.objects.filter(pk=round_id).update(
        started_at=timezone.now() - timedelta(minutes=BEFORE_DEPTH_MIN, seconds=5),
        deadline=timezone.now() + timedelta(minutes=45 - BEFORE_DEPTH_MIN),
    )
    page.reload()
    show_tab(page, "Depth")
    expect(page.locator("#curveball-think-time-halves")).to_contain_text("Users now come back after 10 s.")
    expect(page.locator("#canvas-curveball")).to_contain_text("Think time halves")
    expect(page.locator("#curveball-prompts-four-times-longer")).to_have_count(0)  # one at a time

    show_tab(page, "Box")
    box = add_box(page, "Autoscaler", "autoscaler")  # the design change: a box that scales ahead of demand
    set_job(page, box, "Add replicas ahead of demand from the queue depth")
    wait_for_saved(page, "#design-input")
    wait_on_page(
        page,
        lambda: "autoscaler" in str(Work.objects.get(round_id=round_id).design),
        timeout_s=20,
        what="the autosave of the autoscaler box",
    )
    show_tab(page, "Depth")
    # 2,000 / (10 + 10.5) s = 97.6 req/s; x 10.5 s = 1,024 in flight; / 44.8 = 22.9, so 23 replicas.
    curveball = page.locator("#curveball-think-time-halves")
    curveball.get_by_label("Request arrival rate").fill("97.6 req/s")
    curveball.get_by_label("Requests in flight").fill("1024")
    curveball.get_by_label("Replicas (think-time reading)").fill("23")
    decision = page.locator("#decision-batch-not-kv")
    decision.get_by_label(re.compile("^Set the batch from the TPOT target")).select_option("1")
    decision.get_by_label(re.compile("^Fill the KV cache")).select_option("2")
    decision.get_by_label("Decode batch per replica at the TPOT target").fill("64")
    page.get_by_role("button", name="Save depth answers").click()
    expect(page.locator("#depth-saved")).to_be_visible()

    show_tab(page, "Numbers")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url(f"**/rounds/{round_id}/report/")

    section = page.locator("#grading-report-depth")
    graded = section.locator("#depth-curveball-think-time-halves")
    expect(graded.locator("#depth-line-think-time-halves-replicas")).to_contain_text("Correct")
    expect(graded.locator(".depth-consequences")).to_contain_text("says it: add and remove replicas")
    expect(section.locator("#depth-option-batch-not-kv-fill-kv")).to_contain_text("Steps slow past")
    # Each item's score from the parts it shows, then the depth score as their mean.
    scores = []
    for item in section.locator(".depth-item-sum").all():
        text = " ".join(item.inner_text().split())
        lines = re.search(
            r"Lines ([\d.]+)% × ([\d.]+) \+ consequences (\d+) of (\d+) × ([\d.]+) = ([\d.]+)", text
        )
        order = re.search(
            r"Order: (\d+) of (\d+) places match = ([\d.]+)%"
            r"(?: × ([\d.]+) \+ number (inside|outside) the band × ([\d.]+))? = ([\d.]+)",
            text,
        )
        if lines:
            pct, share, met, total, rest, shown = lines.groups()
            computed = float(pct) * float(share) + 100 * int(met) / int(total) * float(rest)
        else:
            places, length, pct, share, where, number_share, shown = order.groups()
            assert float(pct) == pytest.approx(100 * int(places) / int(length), abs=0.05)
            computed = float(pct)
            if share:
                computed = float(pct) * float(share) + (100 if where == "inside" else 0) * float(number_share)
        assert float(shown) == pytest.approx(computed, abs=0.06), text
        scores.append(float(shown))
    depth = float(section.locator("#depth-score").inner_text())
    assert depth == pytest.approx(sum(scores) / len(scores), abs=0.06)
    # The clock had offered the first of the two curveballs when the round was submitted (the second comes 8
    # minutes into the depth phase): counted are that one and the five decisions; the second is listed as
    # never offered, and the score line says so.
    assert len(scores) == 1 + 5
    expect(section.locator("#depth-curveball-prompts-four-times-longer")).to_contain_text("Never offered")
    expect(section.locator("#depth-score-line")).to_contain_text(
        "1 curveball offered and 5 follow-ups; not counted: “Prompts are four times longer”, never offered"
    )
    expect(section.locator("#depth-offer-words")).to_contain_text("1 of 2 had been offered")
    think = scores[0]
    assert think == 100.0  # three lines right, the autoscaler named: 0.6 x 100 + 0.4 x 100
    expect(page.locator("#grading-report .report-score", has_text="Depth")).to_contain_text(str(round(depth)))
