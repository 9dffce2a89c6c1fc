"""The round page fills the window at 1440x900, 1280x720 and 390x844: a sticky header with the clock, the
phase timeline and the save state; the canvas takes most of the screen; the side panel's tabs are on screen
without scrolling; nothing scrolls sideways."""

import os

import pytest
from playwright.sync_api import expect

from tests.browser.canvas_helpers import add_box, canvas_root
from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

SHOTS = os.environ.get("SEVENBOX_SHOTS")  # a folder: save a screenshot of each size there, to look at


def rect(page, selector: str) -> dict:
    return page.locator(selector).first.evaluate(
        "el => { const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; }"
    )


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width,height", [(1440, 900), (1280, 720), (390, 844)])
def test_the_round_fills_the_window_with_the_clock_canvas_and_panel_on_screen(
    page, alice, tmp_path, transactional_db, width, height
):
    load_questions(tmp_path, KV_QUESTION)
    page.set_viewport_size({"width": width, "height": height})
    log_in(page, "alice")
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    canvas_root(page)
    add_box(page, "api gateway")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/round-{width}x{height}.png")

    stage = rect(page, "[data-sbc=stage]")
    tabs = rect(page, ".ws-tabs")
    clock = rect(page, "#clock")
    segments = page.locator("#phase-timeline .ws-seg")
    # The kv-cache-tiering plan: intro 1, numbers 5, shape 7, arithmetic 10, depth 16, failures 5, close 1.
    minutes = [int(m) for m in segments.evaluate_all("els => els.map(e => e.dataset.minutes)")]
    assert minutes == [1, 5, 7, 10, 16, 5, 1]
    widths = segments.evaluate_all("els => els.map(e => e.getBoundingClientRect().width)")
    assert widths[4] / widths[1] == pytest.approx(16 / 5, rel=0.2)  # segments sized by their minutes
    expect(page.locator("#phase-timeline .ws-plan")).to_have_count(1)
    expect(page.locator("#save-status")).to_be_in_viewport()
    assert clock["y"] >= 0 and clock["y"] + clock["h"] <= height
    assert tabs["y"] + tabs["h"] <= height, "the side panel's tabs need scrolling to reach"
    assert no_sideways_scroll(page)
    if width >= 1000:
        assert stage["w"] * stage["h"] >= 0.45 * width * height, "the canvas should take most of the screen"
        assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")
    else:
        assert stage["w"] >= width - 30 and stage["h"] >= 0.4 * height
        # The page scrolls under a header that stays.
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        clock = rect(page, "#clock")
        assert clock["y"] >= 0 and clock["y"] + clock["h"] <= height
    page.get_by_role("tab", name="Numbers").click()
    expect(page.get_by_label("KV cache per token")).to_be_visible()
    assert no_sideways_scroll(page)
