"""The pages people work in, at the four sizes they use (1920x1080, 1440x900, 1280x720, 390x844): the round
(design and review, every tab of the side panel), the report and the interviewer's console. On each: no
interactive control lies outside the window or the box that scrolls it, no table cell or diagram label is cut
without an ellipsis and a title saying the whole text, and the round's side panel never scrolls sideways.
SEVENBOX_SHOTS=folder saves a screenshot of each page at each size, to look at."""

import json
import os
from pathlib import Path

import pytest

from interview.services.interviewing.invitations import invitation_create_for_username
from rounds.models import ReplayRun, ReplayStatus, Work
from rounds.services.replays import replay_execute
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from tests.browser.canvas_helpers import canvas_root
from tests.browser.conftest import log_in, show_tab
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

REVIEW_QUESTION = "gateway-fallback-review"
EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kv-cache-tiering.submission.json"
SHOTS = os.environ.get("SEVENBOX_SHOTS")
LONG_FIX = (
    "Bound the queue at 300 requests and reject early with a 429 and a Retry-After header when it is full"
)

# Problems on the page: controls out of reach, cut text without ellipsis and title, a side panel wider than
# itself. A control is in reach when it lies in the window, or inside an ancestor that scrolls (then that box
# lets one reach it); an ancestor that hides its overflow and cuts the control off puts it out of reach.
PROBLEMS = """() => {
    const out = [];
    const shown = el => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"
            && !el.closest("[hidden], .visually-hidden, .ws-sr, .skip-link");
    };
    const name = el => (el.getAttribute("aria-label") || el.textContent || el.name || el.id || el.tagName)
        .trim().slice(0, 40);
    const controls = "a[href], button, input:not([type=hidden]), select, textarea, "
        + "[tabindex]:not([tabindex='-1'])";
    for (const el of document.querySelectorAll(controls)) {
        if (!shown(el)) continue;
        const r = el.getBoundingClientRect();
        let scroller = null;
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
            const style = getComputedStyle(up);
            const u = up.getBoundingClientRect();
            const scrolls = /(auto|scroll)/.test(style.overflowX + style.overflowY);
            if (scrolls) { scroller = up; break; }
            const clips = /(hidden|clip)/.test(style.overflowX + style.overflowY);
            if (clips && (r.right > u.right + 1 || r.left < u.left - 1)) {
                out.push(`control cut off by ${up.className || up.tagName}: ${name(el)}`);
                break;
            }
        }
        if (!scroller && (r.right > innerWidth + 1 || r.left < -1))
            out.push(`control outside the window at x=${Math.round(r.left)}: ${name(el)}`);
    }
    for (const cell of document.querySelectorAll("main td, main th")) {
        if (!shown(cell) || cell.scrollWidth <= cell.clientWidth + 1) continue;
        const style = getComputedStyle(cell);
        if (!/(hidden|clip)/.test(style.overflowX)) continue;
        if (style.textOverflow !== "ellipsis" || !cell.title) out.push(`cell cut: ${name(cell)}`);
    }
    for (const label of document.querySelectorAll(".design-drawing text")) {
        const box = label.parentElement.querySelector("rect").getBBox();
        const text = label.getBBox();
        const titled = label.parentElement.querySelector("title");
        if (text.x + text.width > box.x + box.width + 0.5 || text.y + text.height > box.y + box.height + 0.5)
            out.push(`diagram label outside its box: ${label.textContent}`);
        if (label.textContent.includes("…") && !titled)
            out.push(`shortened label with no title: ${label.textContent}`);
    }
    for (const panel of document.querySelectorAll(".ws-panel:not([hidden])")) {
        if (panel.scrollWidth > panel.clientWidth + 1)
            out.push(`side panel scrolls sideways: ${panel.id} ${panel.scrollWidth} > ${panel.clientWidth}`);
    }
    if (document.documentElement.scrollWidth > innerWidth + 1)
        out.push(`page scrolls sideways: ${document.documentElement.scrollWidth}`);
    return out;
}"""


@pytest.fixture
def rounds_to_visit(tmp_path, transactional_db, alice, bob) -> dict[str, int]:
    """A live round bob is invited to, a review round with a long fix, and a submitted round with its
    replays done, each with what a person would have put in it."""
    questions = load_questions(tmp_path, KV_QUESTION, REVIEW_QUESTION)
    example = json.loads(EXAMPLE.read_text())
    client = {
        "id": "client",
        "kind": "client",
        "label": "Client",
        "job": "",
        "failure": "",
        "x": 100,
        "y": 100,
    }
    nodes = [
        node | {"x": 100 + 240 * (index % 3), "y": 220 + 140 * (index // 3)}
        for index, node in enumerate(example["design"]["nodes"])
    ]
    long_label = "Inference engine with a paged KV cache and a host tier"
    long_box = {"id": "eng-long", "kind": "engine", "label": long_label, "job": "Run the forward passes"}
    long_box |= {"failure": "KV exhaustion", "x": 580, "y": 500}
    design = {"nodes": [client, *nodes, long_box], "edges": [*example["design"]["edges"]]}

    def fill(round_id: int, **fields) -> None:
        revision = Work.objects.get(round_id=round_id).revision
        work_save(round_id=round_id, base_revision=revision, **fields)

    live = round_start(candidate=alice, question=questions[KV_QUESTION], mode="timed")
    fill(live.pk, design=design, numbers=example["numbers"])
    invitation_create_for_username(round_=live, created_by=alice, username="bob")
    review = round_start(candidate=alice, question=questions[REVIEW_QUESTION], mode="timed")
    fill(
        review.pk,
        fixes=[{"text": LONG_FIX, "category": "admission"}, {"text": "Alert", "category": "correctness"}],
    )
    done = round_start(candidate=alice, question=questions[KV_QUESTION], mode="timed")
    fill(done.pk, design=design, numbers=example["numbers"])
    round_submit(round_id=done.pk)
    for run in ReplayRun.objects.filter(round_id=done.pk, status=ReplayStatus.QUEUED):
        replay_execute(run_id=run.pk)
    return {"live": live.pk, "review": review.pk, "done": done.pk}


def problems_on(page, what: str, width: int) -> list[str]:
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{what}-{width}.png", full_page=True)
    return [f"{what}: {problem}" for problem in page.evaluate(PROBLEMS)]


@pytest.mark.parametrize("width,height", [(1920, 1080), (1440, 900), (1280, 720), (390, 844)])
def test_the_round_the_report_and_the_console_keep_every_control_and_label_in_reach(
    page, second_page, rounds_to_visit, width, height
):
    found: list[str] = []
    page.set_viewport_size({"width": width, "height": height})
    log_in(page, "alice")
    for what, tabs in (("live", ("Box", "Numbers", "Scratch", "Question")), ("review", ("Fixes", "Numbers"))):
        page.goto(f"/rounds/{rounds_to_visit[what]}/")
        canvas_root(page)
        for tab in tabs:
            show_tab(page, tab)
            found += problems_on(page, f"round-{what}-{tab.lower()}", width)
    page.goto(f"/rounds/{rounds_to_visit['done']}/report/")
    page.locator("canvas[data-replay-chart][data-drawn]").first.wait_for()
    found += problems_on(page, "report", width)

    second_page.set_viewport_size({"width": width, "height": height})
    log_in(second_page, "bob")
    second_page.goto(f"/interviews/{rounds_to_visit['live']}/")
    second_page.wait_for_function("() => SevenboxCanvas.get(document.getElementById('live-canvas'))")
    found += problems_on(second_page, "console", width)
    assert found == [], "\n".join(found)


def test_the_staff_navigation_is_one_line_at_1440(page, admin_user):
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, admin_user.username)
    tops = page.locator(".nav a, .nav button").evaluate_all(
        "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(tops) >= 10 and max(tops) - min(tops) <= 6, tops  # every link on one row
