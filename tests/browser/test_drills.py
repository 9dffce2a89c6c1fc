"""A five-step drill session done with the keyboard alone, in Chromium."""

import re

from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


def number(text: str) -> float:
    return float(re.match(r"[\d,.]+", text).group(0).replace(",", ""))


def answer_by_hand(page) -> tuple[str, bool]:
    """Work the step out from the givens on the page (the two KV lines by hand; other lines get a guess)."""
    givens = {
        item.locator(".given-label").inner_text(): number(item.locator("strong").inner_text())
        for item in page.locator(".drill-givens li").all()
    }
    question = page.locator(".drill-question").inner_text()
    if question.startswith("KV cache per token"):
        kib = 2 * givens["Transformer layers"] * givens["KV heads (GQA)"] * givens["Head dimension"]
        return f"{kib * givens['Bytes per cached element'] / 1024:g} KiB/tok", True
    if question.startswith("KV cache of one conversation"):
        tokens, per_token_kib = givens["Tokens in a conversation"], givens["KV cache per token"]
        return f"{tokens * per_token_kib * 1024 / 1e9:.4g} GB", True
    return "-123.456", False  # no line of a sizing chain is negative: surely wrong


def test_a_candidate_does_a_five_step_session_by_keyboard(page, alice, tmp_path):
    load_questions(tmp_path / "pack", KV_QUESTION)
    log_in(page, "alice")
    page.goto(f"/drills/questions/{KV_QUESTION}/?first=kv_bytes_per_token,kv_conv")
    expected_right = 0
    for step in range(1, 6):
        expect(page.locator(".drill-count")).to_contain_text(f"Step {step} of 5")
        expect(page.locator("#drill-answer")).to_be_focused()
        answer, right = answer_by_hand(page)
        expected_right += right
        page.keyboard.type(answer)
        expect(page.locator("#drill-reading")).to_contain_text("Read as")
        page.keyboard.press("Enter")
        result = page.locator("#drill-result")
        expect(result).to_be_visible()
        if right:
            expect(result.locator(".verdict")).to_contain_text("Correct (within")
        else:
            expect(result.locator(".drill-arithmetic")).to_contain_text("=")
        expect(page.locator("#drill-next")).to_be_focused()
        if step < 5:
            page.keyboard.press("Enter")
    expect(page.locator("#drill-session-done")).to_have_text(f"Session done: {expected_right} of 5 right.")
    assert expected_right >= 2
    page.keyboard.press("Enter")  # "Another five"
    expect(page.locator(".drill-count")).to_contain_text("Step 1 of 5")


def test_the_progress_page_draws_the_weeks_chart_after_a_session(page, alice, tmp_path):
    load_questions(tmp_path / "pack", KV_QUESTION)
    log_in(page, "alice")
    page.goto(f"/drills/questions/{KV_QUESTION}/?first=kv_bytes_per_token")
    answer, _ = answer_by_hand(page)
    page.locator("#drill-answer").fill(answer)
    page.locator("#drill-answer").press("Enter")
    expect(page.locator("#drill-result")).to_be_visible()
    page.goto("/drills/progress/")
    expect(page.locator("#drill-streak")).to_contain_text("Streak: 1 day")
    expect(page.locator("#drill-tracks")).to_contain_text("inference")
    expect(page.locator("#drill-weeks-table tbody tr")).to_have_count(1)
    page.wait_for_function("() => window.Chart && window.Chart.getChart('drill-weeks-chart') !== undefined")
