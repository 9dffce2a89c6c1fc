"""The report at 1440x900 (issue 35: "the numbers table's 'Why' column is clipped at the right edge with no
cue to scroll"): every table on the report either fits its box, or scrolls inside it with a cue a person can
see (a shadow at the edge there is more to) and reach by keyboard (the box is a focusable, named region). The
page itself never scrolls sideways. Before the fix the numbers table overflowed at 1440 with neither."""

import json
from pathlib import Path

from rounds.models import Round, Work
from rounds.services.rounds import round_submit
from rounds.services.work import work_save
from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kv-cache-tiering.submission.json"
# Long notes after the answers, as a hurried candidate types them: they widen "You wrote" and "Why".
NOTE = " (assuming bf16 KV, GQA with 8 KV heads, and no prefix sharing across the conversations of a replica)"

TABLE_BOXES = """() => [...document.querySelectorAll("main .report-table-wrap")].map(wrap => {
    const style = getComputedStyle(wrap);
    return {
        table: wrap.querySelector("table") ? wrap.querySelector("table").className : "",
        scrolls: wrap.scrollWidth > wrap.clientWidth + 1,
        clips: style.overflowX === "hidden" || style.overflowX === "clip",
        focusable: wrap.tabIndex === 0,
        named: wrap.getAttribute("role") === "region" && !!wrap.getAttribute("aria-label"),
        shadow: style.backgroundImage.includes("gradient"),
    };
})"""


def test_a_report_table_wider_than_its_box_scrolls_there_with_a_visible_and_reachable_cue_at_1440(
    page, alice, tmp_path, transactional_db
):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, "alice")
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    round_ = Round.objects.get(pk=int(page.url.rstrip("/").split("/")[-1]))
    assert round_.question == question
    example = json.loads(EXAMPLE.read_text())
    client = {"id": "client", "kind": "client", "label": "Client", "job": "", "failure": ""}
    design = example["design"] | {"nodes": [client, *example["design"]["nodes"]]}
    asked = set(Work.objects.get(round=round_).numbers) | set(example["numbers"])
    numbers = {name: text + NOTE for name, text in example["numbers"].items() if name in asked}
    work = Work.objects.get(round=round_)
    work_save(round_id=round_.pk, base_revision=work.revision, design=design, numbers=numbers)
    round_submit(round_id=round_.pk)

    page.goto(f"/rounds/{round_.pk}/report/")
    # At 1440 the tables fit; at 1000 (a laptop with a side bar) the numbers table scrolls and shows the cue.
    for width, numbers_table_scrolls in ((1440, False), (1000, True)):
        page.set_viewport_size({"width": width, "height": 900})
        boxes = page.evaluate(TABLE_BOXES)
        lines = next(box for box in boxes if box["table"] == "report-lines")
        assert lines["scrolls"] is numbers_table_scrolls, (width, lines)
        for box in boxes:
            assert not box["clips"], (width, box)
            if box["scrolls"]:
                assert box["focusable"] and box["named"] and box["shadow"], (width, box)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), width
