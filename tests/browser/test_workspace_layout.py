"""The round page fills the window at 1440x900, 1280x720 and 390x844: a sticky header with the clock, the
phase timeline and the save state; the canvas takes most of the screen; the side panel's tabs are on screen
without scrolling; nothing scrolls sideways."""

import os

import pytest
from playwright.sync_api import expect

from tests.browser.canvas_helpers import add_box, canvas_root
from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

REVIEW_QUESTION = "gateway-fallback-review"
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
    if width > 600:
        widths = segments.evaluate_all("els => els.map(e => e.getBoundingClientRect().width)")
        assert widths[4] / widths[1] == pytest.approx(16 / 5, rel=0.2)  # segments sized by their minutes
    else:  # a phone: every phase's name whole, and the whole title
        cut = page.locator("#phase-timeline .ws-seg, .ws-title h1").evaluate_all(
            "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim())"
        )
        assert cut == [], cut
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
    expect(page.get_by_label("KV cache of one conversation")).to_be_in_viewport()  # the sheet comes up
    assert no_sideways_scroll(page)


# Every button of the canvas's toolbar and of its view bar, and whether the toolbar shows text or icons only.
TOOLBAR_BUTTONS = """el => {
    const bar = el.querySelector(".sbc-toolbar");
    const buttons = [...el.querySelectorAll(".sbc-toolbar button, .sbc-viewbar button")]
        .filter(b => b.closest("[hidden]") === null);
    const outside = (r, u) =>
        r.left < u.left - 0.5 || r.right > u.right + 0.5 || r.top < u.top - 0.5 || r.bottom > u.bottom + 0.5;
    const problem = b => {
        const r = b.getBoundingClientRect();
        for (let up = b.parentElement; up; up = up.parentElement) {
            const style = getComputedStyle(up);
            if (up.scrollWidth > up.clientWidth + 1 && style.overflowX !== "visible")
                return "scrolls sideways: " + up.className;
            if (style.overflow !== "visible" && outside(r, up.getBoundingClientRect()))
                return "cut off by " + (up.className || up.tagName);
        }
        if (outside(r, {left: 0, top: 0, right: innerWidth, bottom: innerHeight})) return "off the window";
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return hit && b.contains(hit) ? "" : "covered by " + (hit && (hit.className || hit.tagName));
    };
    const tops = buttons.filter(b => bar.contains(b)).map(b => Math.round(b.getBoundingClientRect().top));
    return {
        iconsOnly: bar.classList.contains("sbc-icons-only"),
        rows: new Set(tops).size,
        buttons: buttons.map(b => ({
            action: b.dataset.action, name: b.getAttribute("aria-label"),
            width: b.getBoundingClientRect().width, problem: problem(b),
        })),
    };
}"""

EXPECTED_TOOLBAR = {
    "note", "connect", "group", "duplicate", "delete", "layout", "snap", "compact", "export",
    "undo", "redo", "zoom-out", "zoom-in", "fit",
}  # fmt: skip


def open_round(page, slug: str) -> None:
    log_in(page, "alice")
    page.goto(f"/questions/{slug}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    canvas_root(page)


@pytest.mark.parametrize(
    "slug,width,height,with_text",
    [
        (KV_QUESTION, 1440, 900, True),
        (KV_QUESTION, 1280, 720, True),
        (REVIEW_QUESTION, 1440, 900, True),  # review rounds add Mark (a failure path)
        (REVIEW_QUESTION, 1280, 720, True),
        (KV_QUESTION, 390, 844, False),
    ],
)
def test_every_toolbar_button_is_on_screen_whole_without_scrolling(
    page, alice, tmp_path, transactional_db, slug, width, height, with_text
):
    load_questions(tmp_path, slug)
    page.set_viewport_size({"width": width, "height": height})
    open_round(page, slug)
    tools = canvas_root(page).evaluate(TOOLBAR_BUTTONS)
    actions = {b["action"] for b in tools["buttons"]}
    assert actions == EXPECTED_TOOLBAR | ({"mark"} if slug == REVIEW_QUESTION else set())
    assert [b for b in tools["buttons"] if b["problem"]] == []
    assert all(b["name"] and b["width"] >= 28 for b in tools["buttons"]), "each named, big enough to hit"
    assert tools["iconsOnly"] is (not with_text)
    assert tools["rows"] == 1, "the buttons are one row (narrow: below the search)"
    # The export formats open below their button, whole and on screen.
    canvas_root(page).locator("[data-action=export]").click()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/toolbar-{slug}-{width}x{height}.png")
    formats = canvas_root(page).evaluate(TOOLBAR_BUTTONS.replace(".sbc-viewbar button", ".sbc-menu button"))
    opened = [b for b in formats["buttons"] if b["action"].startswith("export-")]
    assert [b["action"] for b in opened] == ["export-png", "export-svg"]
    assert [b for b in opened if b["problem"]] == []
    page.keyboard.press("Escape")
    expect(canvas_root(page).locator("[data-action=export-png]")).to_be_hidden()
    expect(canvas_root(page).locator("[data-action=export]")).to_be_focused()
