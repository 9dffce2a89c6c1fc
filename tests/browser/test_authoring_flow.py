"""The authoring story in real Chromium: an author writes a question from scratch, the live model check
catches a unit error and a cycle, a sample answer is saved, the question is published; a candidate completes
a round on it; the author edits the model, sees the sample's verdict change, and the old report stays."""

import pytest
from playwright.sync_api import expect

from interview.services.authoring import publish_grant_set
from questions.models import Question
from rounds.models import Round, RoundStatus
from tests.browser.canvas_helpers import add_box, connect_boxes, wait_for_saved
from tests.browser.conftest import log_in, show_tab
from tests.interview import authoring_fixtures as q

CANVAS = "#design-canvas"


@pytest.fixture
def publishing_author(author, transactional_db):
    publish_grant_set(user=author, granted=True)  # an admin let ada publish
    return author


def type_model(page, text: str) -> None:
    page.locator("#f-model").fill(text)


def test_an_author_writes_publishes_and_edits_a_question_a_candidate_has_answered(
    page, second_page, publishing_author, alice
):
    log_in(page, "ada")
    page.goto("/authoring/")
    page.get_by_label("Slug").fill(q.SLUG)
    page.get_by_label("Title").fill(q.TITLE)
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/authoring/drafts/*/")
    draft_url = page.url

    page.locator("#f-summary").fill(q.SUMMARY)
    page.locator("#f-prompt").fill(q.PROMPT)
    page.locator("#f-plan").fill(q.PLAN)

    # Live validation: a unit error, then a cycle, each named by quantity; then the model that works.
    type_model(page, q.MODEL_WITH_UNIT_ERROR)
    expect(page.locator("#model-problems")).to_contain_text(
        "peak_tok_rate: formula gives tok/s, declared req/s"
    )
    type_model(page, q.MODEL_WITH_CYCLE)
    expect(page.locator("#model-problems")).to_contain_text("formulas form a cycle: peak_users →")
    expect(page.locator("#model-graph .edge.cycle").first).to_be_attached()
    type_model(page, q.MODEL)
    expect(page.locator("#model-ok")).to_have_text("The model checks out.")
    expect(page.locator("#model-values tr[data-quantity=gpus_needed] td.value")).to_have_text("125 GPUs")
    expect(page.locator("#model-values tr[data-quantity=monthly_cost] td.value")).to_have_text("233,600 USD")
    assert page.locator("#model-graph g.node").count() == 15

    page.locator("#f-asked").fill(q.ASKED)
    gateway = add_box(page, "api gateway", canvas=CANVAS)
    router = add_box(page, "model router", canvas=CANVAS)
    engine = add_box(page, "vllm", canvas=CANVAS)
    connect_boxes(page, gateway, router, canvas=CANVAS)
    connect_boxes(page, router, engine, canvas=CANVAS)
    wait_for_saved(page, "#design-input", canvas=CANVAS)
    page.locator("#f-rubric").fill(q.RUBRIC)
    page.locator("#f-outline").fill(q.OUTLINE)
    page.locator("#f-scenarios").fill(q.SCENARIOS)
    page.locator("#f-concepts").fill(q.CONCEPTS)
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#draft-valid")).to_be_visible()

    # Preview the whole round page as a candidate sees it (clock, canvas, sheet), grade a typed sheet, keep it
    # as a sample answer.
    page.get_by_role("link", name="Preview and try it").click()
    expect(page.locator("#preview #clock")).to_have_text("45:00 left")
    expect(page.locator("#preview #phase")).to_have_text("Intro")
    page.wait_for_function(
        "() => window.SevenboxCanvas && SevenboxCanvas.get(document.getElementById('canvas'))"
    )
    show_tab(page, "Question")
    expect(page.locator("#preview #ws-panel-question")).to_contain_text(q.PROMPT)
    expect(page.locator("#preview #invite-panel, #preview #submit-form")).to_have_count(0)
    show_tab(page, "Numbers")
    for name, text in q.GOOD_SHEET.items():
        page.locator(f"#n-{name}").fill(text)
    page.get_by_role("button", name="Grade this sheet").click()
    expect(page.locator("#try-lines tr[data-line=gpus_needed]")).to_contain_text("Correct (whole number, ±1)")
    page.locator("#sample-name").fill("a good one")
    page.get_by_role("button", name="Save sample answer").click()
    page.wait_for_url(draft_url)
    expect(page.locator("#samples")).to_contain_text("every expected verdict holds")

    page.get_by_role("link", name="Publish…").click()
    expect(page.locator("#samples")).to_contain_text("a good one")
    page.locator("#confirm-publish").click()
    expect(page.locator("#versions tr[data-version='1']")).to_contain_text("draft by ada")

    # A candidate completes a round on the new question and gets a grade.
    log_in(second_page, "alice")
    second_page.goto(f"/questions/{q.SLUG}/")
    second_page.get_by_role("button", name="Start a timed round").click()
    second_page.wait_for_url("**/rounds/*/")
    round_id = int(second_page.url.rstrip("/").split("/")[-1])
    show_tab(second_page, "Numbers")
    for name, text in q.GOOD_SHEET.items():
        second_page.locator(f"#n-{name}").fill(text)
    second_page.locator(f"#n-{name}").blur()
    expect(second_page.locator("#save-status")).to_contain_text("All changes saved", timeout=15_000)
    second_page.once("dialog", lambda dialog: dialog.accept())
    second_page.get_by_role("button", name="Submit for grading").click()
    second_page.wait_for_url(f"**/rounds/{round_id}/report/")
    expect(second_page.locator(".score-line")).to_contain_text("Overall")
    score_text = second_page.locator(".score-line").inner_text()
    round_ = Round.objects.get(pk=round_id)
    assert round_.status == RoundStatus.SUBMITTED and round_.score is not None
    report_before = round_.report

    # The author edits the model: the sample answer's changed verdict is shown, before and on publishing.
    page.goto(draft_url)
    type_model(page, q.MODEL_EDITED)
    expect(page.locator("#model-values tr[data-quantity=gpus_needed] td.value")).to_have_text("156 GPUs")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#samples")).to_contain_text("gpus_needed: expected Correct, now Arithmetic slip")
    page.get_by_role("link", name="Publish…").click()
    expect(page.locator("#samples")).to_contain_text("now Arithmetic slip")
    expect(page.locator("#diff")).to_contain_text("model.gpu_tok_rate")
    page.locator("#confirm-publish").click()
    expect(page.locator("#versions tr[data-version='2']")).to_be_visible()
    assert Question.objects.get(slug=q.SLUG).current_version.number == 2

    # The candidate's old report is unchanged: same version, same report, same page.
    round_ = Round.objects.get(pk=round_id)
    assert round_.question_version.number == 1 and round_.report == report_before
    second_page.reload()
    expect(second_page.locator(".score-line")).to_have_text(score_text)


PAYLOAD = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


def test_user_text_stays_text_in_the_editor_the_canvas_labels_and_the_live_model_check(
    page, transactional_db, author
):
    from interview.services.authoring import draft_create, draft_save

    draft = draft_create(owner=author, slug=q.SLUG, title=q.TITLE)
    data = q.question_dict()
    data["title"] = PAYLOAD
    data["design"]["nodes"][0]["label"] = PAYLOAD
    data["design"]["nodes"][0]["job"] = PAYLOAD
    draft_save(draft=draft, data=data)
    log_in(page, "ada")
    page.goto(f"/authoring/drafts/{draft.pk}/")
    expect(page.locator("h1")).to_contain_text(PAYLOAD)
    canvas = page.locator(CANVAS)
    expect(canvas.locator("[data-sbc=boxes] button[data-id=gateway]")).to_contain_text("<img src=x")
    type_model(page, q.MODEL.replace("label: Daily users", "label: '" + PAYLOAD.replace("'", "") + "'"))
    expect(page.locator("#model-ok")).to_be_visible()
    expect(page.locator("#model-graph g.node[data-quantity=daily_users] title")).to_have_text(PAYLOAD)
    page.get_by_role("link", name="Preview and try it").click()
    expect(page.locator("#preview h1")).to_have_text(PAYLOAD)
    assert page.evaluate("window.pwned") is None
    assert page.locator("main img, #model-check script").count() == 0
