"""A variant round's report shows the reference's plan at the variant's values once submitted, and the round
page before it shows no plan with figures (issue 31)."""

from playwright.sync_api import expect

from rounds.models import Round
from rounds.services.rounds import round_start
from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


def test_a_variant_rounds_report_shows_the_plan_at_its_values_only_after_submit(
    page, alice, tmp_path, transactional_db
):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice", variant=True, seed=5)
    # 64,000-token conversations at 50% MFU: 64,000 x 327,680 B = 20.97 GB, "21 GB"; 434.9 GB / 20.97 GB
    # = 20.7, so ~20 in HBM (the defaults: 30,000 tokens, 9.83 GB, ~44).
    Round.objects.filter(pk=round_.pk).update(
        variant_values={**round_.variant_values, "context_tokens": 64000.0, "mfu_prefill": 0.5}
    )
    log_in(page, "alice")
    page.goto(f"/rounds/{round_.pk}/")
    expect(page.locator("#answer-plan")).to_have_count(0)
    assert "21 GB" not in page.content()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url("**/report/")
    plan = page.locator("#answer-plan")
    expect(plan).to_be_visible()
    expect(plan.locator("#answer-plan-arithmetic")).to_contain_text("64,000 tokens = 21 GB;")
    expect(plan.locator("#answer-plan-arithmetic")).to_contain_text("~20 conversations fit in HBM")
    expect(plan).not_to_contain_text("9.83 GB")
