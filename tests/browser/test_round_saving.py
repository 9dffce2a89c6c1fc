"""Saving on the round page in Chromium: a reload a second after typing shows what was typed and leaves the
only tab current; a stale tab turns read-only, keeps its unsaved edits, and applies them onto the latest on
request."""

import pytest
from playwright.sync_api import expect

from rounds.models import Work
from tests.browser.canvas_helpers import add_box, read_design
from tests.browser.conftest import log_in, show_tab, wait_on_page
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


@pytest.fixture
def round_id(page, alice, tmp_path, transactional_db) -> int:
    load_questions(tmp_path, KV_QUESTION)
    log_in(page, "alice")
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    return int(page.url.rstrip("/").split("/")[-1])


def test_a_reload_a_second_after_typing_shows_what_was_typed_and_the_tab_stays_current(page, round_id):
    # The page before the reload sends its edits in a keepalive request that may land after the new page asked
    # for the latest revision; the new page's own save of them is then refused (409) and found to be held.
    page.problems.expect_console_error("status of 409")
    add_box(page, "api gateway")
    show_tab(page, "Numbers")
    page.get_by_label("KV cache of one conversation").fill("9.6 GB")  # no blur: the 5 s autosave has not run
    show_tab(page, "Scratch")
    page.locator("#scratch").fill("typed just before the reload")
    page.wait_for_timeout(200)
    page.reload()

    expect(page.locator("#scratch")).to_have_value("typed just before the reload")
    expect(page.get_by_label("KV cache of one conversation")).to_have_value("9.6 GB")
    assert [n["id"] for n in read_design(page)["nodes"]] == ["client", "gateway"]
    expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=10_000)
    page.wait_for_timeout(1500)
    expect(page.locator("#stale-banner")).to_be_hidden()
    typed = Work.objects.filter(round_id=round_id, scratch="typed just before the reload")
    work = wait_on_page(page, typed.first, timeout_s=10)
    assert work.numbers["kv_conv"] == "9.6 GB"
    assert [n["id"] for n in work.design["nodes"]] == ["client", "gateway"]

    # And the tab goes on saving as the only tab.
    show_tab(page, "Scratch")
    page.locator("#scratch").fill("and after it")
    page.locator("#scratch").blur()
    expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=10_000)
    assert Work.objects.get(round_id=round_id).scratch == "and after it"


def test_a_stale_tab_turns_read_only_keeps_its_edits_and_applies_them_onto_the_latest(
    page, second_page, round_id
):
    log_in(second_page, "alice")
    second_page.goto(f"/rounds/{round_id}/")
    show_tab(second_page, "Scratch")
    second_page.locator("#scratch").fill("written on the other device")
    second_page.locator("#scratch").blur()
    expect(second_page.locator("#save-status")).to_contain_text("All changes saved", timeout=10_000)

    page.problems.expect_console_error("status of 409")
    show_tab(page, "Numbers")
    field = page.get_by_label("KV cache of one conversation")
    field.fill("19.6 GB")
    field.blur()
    banner = page.locator("#stale-banner")
    expect(banner).to_be_visible(timeout=10_000)
    expect(page.locator("#stale-list")).to_contain_text("KV cache of one conversation")
    expect(page.locator("#stale-list")).to_contain_text("19.6 GB")
    assert field.evaluate("el => el.readOnly") and page.locator("#scratch").evaluate("el => el.readOnly")
    expect(page.locator("[data-sbc=search]")).to_have_count(1)
    assert page.locator("button[data-action=connect]").is_disabled()
    expect(field).to_have_value("19.6 GB")  # the edit stays on screen

    # "Reload the latest" says what it would drop before dropping anything.
    page.get_by_role("button", name="Reload the latest").click()
    expect(page.locator("#stale-drop")).to_contain_text("19.6 GB")
    expect(page.locator("#stale-reload-confirm")).to_be_visible()

    page.get_by_role("button", name="Apply my edits onto the latest").click()
    page.wait_for_load_state()
    expect(page.locator("#stale-banner")).to_be_hidden()
    show_tab(page, "Numbers")
    expect(page.get_by_label("KV cache of one conversation")).to_have_value("19.6 GB", timeout=10_000)
    expect(page.locator("#scratch")).to_have_value("written on the other device")
    work = Work.objects.get(round_id=round_id)
    assert work.numbers["kv_conv"] == "19.6 GB" and work.scratch == "written on the other device"
