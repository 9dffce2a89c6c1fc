"""The report at 390 px (a phone): the page and every table on it fit the width, no sideways scrolling."""

import os

from playwright.sync_api import expect

from tests.browser.conftest import log_in, show_tab
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

OVERFLOWING = """() => {
    const width = window.innerWidth;
    const out = [];
    const page = document.documentElement.scrollWidth;
    if (page > width) out.push("page " + page);
    for (const el of document.querySelectorAll("main *")) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || getComputedStyle(el).visibility === "hidden") continue;
        const name = el.tagName + "." + el.className;
        if (r.right > width + 1) out.push(name + " ends at " + Math.round(r.right));
        if (el.tagName === "TABLE" || el.classList.contains("report-table-wrap")) {
            if (el.scrollWidth > el.clientWidth + 1) out.push(name + " scrolls");
        }
    }
    return out.slice(0, 10);
}"""


def test_the_report_and_its_tables_fit_390_px(page, alice, tmp_path, transactional_db):
    load_questions(tmp_path, KV_QUESTION)
    log_in(page, "alice")
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    show_tab(page, "Numbers")
    page.get_by_label("KV cache per token").fill("320 KB")
    page.get_by_label("KV cache per token").blur()
    expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=15_000)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url("**/report/")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.locator("body")).to_contain_text("KV cache per token")
    if os.environ.get("SEVENBOX_SHOTS"):
        page.screenshot(path=f"{os.environ['SEVENBOX_SHOTS']}/report-390.png", full_page=True)
    assert page.locator("main table").count() >= 1
    overflowing = page.evaluate(OVERFLOWING)
    assert overflowing == [], overflowing
