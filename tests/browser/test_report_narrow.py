"""The report at 390 px (a phone): the page and every table on it fit the width, no sideways scrolling, with
a whole submission on it (every number, a drawn design with long labels, the failure replays' charts)."""

import json
import os
from pathlib import Path

from playwright.sync_api import expect

from rounds.models import ReplayRun, ReplayStatus, Work
from rounds.services.replays import replay_execute
from rounds.services.work import work_save
from tests.browser.conftest import log_in, show_tab
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kv-cache-tiering.submission.json"

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
    page.get_by_label("KV cache of one conversation").fill("9.6 GB")
    page.get_by_label("KV cache of one conversation").blur()
    expect(page.locator("#save-status")).to_contain_text("All changes saved", timeout=15_000)
    # The rest of the example submission, saved as the page would: the design, every other number.
    round_id = int(page.url.rstrip("/").split("/")[-1])
    example = json.loads(EXAMPLE.read_text())
    client = {"id": "client", "kind": "client", "label": "Client", "job": "", "failure": ""}
    design = example["design"] | {"nodes": [client, *example["design"]["nodes"]]}
    numbers = example["numbers"] | {"kv_conv": "9.6 GB"}
    revision = Work.objects.get(round_id=round_id).revision
    work_save(round_id=round_id, base_revision=revision, design=design, numbers=numbers)
    page.reload()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit for grading").click()
    page.wait_for_url("**/report/")
    runs = ReplayRun.objects.filter(round_id=round_id, status=ReplayStatus.QUEUED)
    assert runs.exists()
    for run in runs:
        assert replay_execute(run_id=run.pk) == "done"
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.locator("body")).to_contain_text("KV cache of one conversation")
    expect(page.locator("main")).to_contain_text("Session-affine router")
    expect(page.locator("main canvas").first).to_be_visible()  # a replay's chart
    expect(page.locator("#report-bands")).to_contain_text("“within 3×”")  # what the bands mean, once
    if os.environ.get("SEVENBOX_SHOTS"):
        page.screenshot(path=f"{os.environ['SEVENBOX_SHOTS']}/report-390.png", full_page=True)
    assert page.locator("main table").count() >= 1
    overflowing = page.evaluate(OVERFLOWING)
    assert overflowing == [], overflowing
    # Wide tables read as one card per row: each cell is named by its column, the header row is off screen.
    cards = page.evaluate(
        """() => [...document.querySelectorAll("main table")]
            .filter(t => t.tHead && t.tHead.rows[0].cells.length >= 4)
            .map(t => ({
                table: t.className,
                display: getComputedStyle(t.rows[1]).display,
                named: [...t.querySelectorAll("tbody td")]
                    .map(td => getComputedStyle(td, "::before").content),
                header: t.tHead.getBoundingClientRect().height,
            }))"""
    )
    assert {card["table"] for card in cards} >= {"report-lines", "report-components"}
    for card in cards:
        assert card["display"] == "block" and card["header"] <= 1, card["table"]
        assert all(name not in ("none", "normal", '""') for name in card["named"]), card
    lines = next(card for card in cards if card["table"] == "report-lines")
    assert lines["named"][:5] == ['"Verdict"', '"You wrote"', '"Your inputs imply"', '"Reference"', '"Why"']
