"""The design canvas on a real round page in Chromium: arrows by drag, multi-select, clipboard, groups, notes,
export, undo and redo, zoom, snap, layout, the diagram's text, touch, and the keyboard-only path."""

import base64
import json
import struct
import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect

from rounds.models import Work
from tests.browser.canvas_helpers import (
    add_box,
    box_center,
    canvas_parts,
    canvas_root,
    connect_boxes,
    connect_boxes_by_drag,
    read_design,
    select_box,
    selected_id,
    set_failure,
    set_job,
)
from tests.browser.conftest import close_quietly, log_in, open_page, wait_on_page
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

SVG = "{http://www.w3.org/2000/svg}"


def start_round(page) -> int:
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    canvas_root(page)
    return int(page.url.rstrip("/").split("/")[-1])


@pytest.fixture
def questions(tmp_path, transactional_db):
    load_questions(tmp_path, KV_QUESTION)


@pytest.fixture
def round_page(page, alice, questions):
    log_in(page, "alice")
    page.round_id = start_round(page)
    return page


def canvas(page, call: str):
    """Call the mounted canvas's controller: canvas(page, "selection()")."""
    return canvas_root(page).evaluate(f"el => SevenboxCanvas.get(el).{call}")


def box_ids(page) -> set[str]:
    return {n["id"] for n in read_design(page)["nodes"]}


def edge_pairs(page) -> list[tuple[str, str]]:
    return sorted((e["source"], e["target"]) for e in read_design(page)["edges"])


def focus_stage(page) -> None:
    canvas_root(page).locator("[data-sbc=stage]").focus()


def shift_click(page, box: str) -> None:
    page.keyboard.down("Shift")
    page.mouse.click(*box_center(page, box))
    page.keyboard.up("Shift")


def overlap(a: dict, b: dict) -> bool:
    return a["x1"] < b["x2"] and a["x2"] > b["x1"] and a["y1"] < b["y2"] and a["y2"] > b["y1"]


def test_arrows_drawn_by_drag_in_sequence_connect_the_boxes_dragged_between(round_page):
    page = round_page
    a = add_box(page, "api gateway")
    b = add_box(page, "token bucket")
    c = add_box(page, "model router")
    d = add_box(page, "admission queue")
    connect_boxes_by_drag(page, a, b)
    connect_boxes_by_drag(page, b, c)
    connect_boxes_by_drag(page, c, d)
    assert edge_pairs(page) == sorted([(a, b), (b, c), (c, d)])


def test_shift_click_and_a_selection_box_select_boxes_that_move_and_delete_together_with_undo_and_redo(
    round_page,
):
    page = round_page
    a, b, c = add_box(page, "api gateway"), add_box(page, "token bucket"), add_box(page, "model router")
    connect_boxes(page, a, b)
    page.mouse.click(*box_center(page, a))
    shift_click(page, b)
    assert sorted(canvas(page, "selection()")) == sorted([a, b])

    before = {n["id"]: (n["x"], n["y"]) for n in read_design(page)["nodes"]}
    x, y = box_center(page, a)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 90, steps=8)
    page.mouse.up()
    after = {n["id"]: (n["x"], n["y"]) for n in read_design(page)["nodes"]}
    moved = {box: (after[box][0] - before[box][0], after[box][1] - before[box][1]) for box in (a, b)}
    assert moved[a] == moved[b] and moved[a] != (0, 0)  # moved together (and snapped to the grid)
    assert after[a][0] % 20 == 0 and after[a][1] % 20 == 0
    assert after[c] == before[c]

    # A selection box: shift-drag on the empty canvas around all three.
    stage = canvas_root(page).locator("[data-sbc=stage]").bounding_box()
    page.mouse.click(stage["x"] + stage["width"] - 5, stage["y"] + stage["height"] - 5)  # clear the selection
    rects = [canvas(page, f"boxRect({json.dumps(box)})") for box in (a, b, c)]
    left = min(r["x"] for r in rects) - 15
    top = min(r["y"] for r in rects) - 15
    right = max(r["x"] + r["width"] for r in rects) + 15
    bottom = max(r["y"] + r["height"] for r in rects) + 15
    page.keyboard.down("Shift")
    page.mouse.move(left, top)
    page.mouse.down()
    page.mouse.move(right, bottom, steps=10)
    page.mouse.up()
    page.keyboard.up("Shift")
    assert set(canvas(page, "selection()")) >= {a, b, c}

    page.keyboard.press("Delete")
    assert not box_ids(page) & {a, b, c} and read_design(page)["edges"] == []
    page.keyboard.press("Control+z")
    assert box_ids(page) >= {a, b, c} and edge_pairs(page) == [(a, b)]
    page.keyboard.press("Control+Shift+z")
    assert not box_ids(page) & {a, b, c}
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")  # and the move before it
    assert {n["id"]: (n["x"], n["y"]) for n in read_design(page)["nodes"]} == before  # every box back


def test_copy_paste_and_duplicate_make_new_boxes_with_their_arrow_and_undo_takes_them_back(round_page):
    page = round_page
    a, b = add_box(page, "continuous batcher"), add_box(page, "vllm")
    set_job(page, a, "Choose the sequences for each step")
    connect_boxes(page, a, b)
    start = box_ids(page)  # with the client box the round opens with
    page.mouse.click(*box_center(page, a))
    shift_click(page, b)
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    design = read_design(page)
    assert len(design["nodes"]) == len(start) + 2 and len(design["edges"]) == 2
    pasted = sorted(set(canvas(page, "selection()")) - {n for n in canvas(page, "selection()") if "->" in n})
    copies = {n["id"]: n for n in design["nodes"] if n["id"] in pasted}
    assert len(copies) == 2 and not set(copies) & {a, b}
    assert {n["label"] for n in copies.values()} == {n["label"] for n in design["nodes"] if n["id"] in (a, b)}
    assert any(n["job"] == "Choose the sequences for each step" for n in copies.values())
    new_edge = [e for e in design["edges"] if e["source"] in copies][0]
    assert new_edge["target"] in copies  # the copy's arrow joins the copies, not the originals

    page.keyboard.press("Control+d")  # duplicate the pasted pair
    assert len(read_design(page)["nodes"]) == len(start) + 4 and len(read_design(page)["edges"]) == 3
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")
    assert box_ids(page) == start
    # Ctrl+V in a text field pastes text, never boxes.
    canvas_parts(page).locator(f"[data-sbc=boxes] button[data-id={json.dumps(a)}]").click()
    job = canvas_parts(page).locator("[data-sbc-field=job]")
    job.focus()
    page.keyboard.press("Control+v")
    assert box_ids(page) == start


def test_a_group_is_a_container_stored_in_the_design_and_kept_after_a_reload(round_page):
    page = round_page
    batcher, engine, router = (
        add_box(page, "continuous batcher"),
        add_box(page, "vllm"),
        add_box(page, "router"),
    )
    page.mouse.click(*box_center(page, batcher))
    shift_click(page, engine)
    page.keyboard.press("g")  # focus was on the stage: G groups, then the label field takes the name
    label = canvas_parts(page).locator("[data-sbc-field=label]")
    expect(label).to_be_focused()
    label.fill("replica")
    label.press("Escape")
    design = read_design(page)
    assert [(g["label"], g.get("parent")) for g in design["groups"]] == [("replica", None)]
    group = design["groups"][0]["id"]
    parents = {n["id"]: n.get("parent") for n in design["nodes"]}
    assert [parents[box] for box in (batcher, engine, router)] == [group, group, None]
    geometry = canvas(page, "geometry()")
    assert all(overlap(geometry["boxes"][group], geometry["boxes"][box]) for box in (batcher, engine))
    expect(canvas_parts(page).locator("[data-sbc=groups]")).to_contain_text("replica")

    wait_on_page(
        page,
        lambda: Work.objects.get(round_id=page.round_id).design.get("groups"),
        timeout_s=10,
        what="the group to be saved (" + page.locator("#save-status").inner_text() + ")",
    )
    page.reload()
    design = read_design(page)
    assert design["groups"][0]["label"] == "replica"
    assert {n["id"] for n in design["nodes"] if n.get("parent") == group} == {batcher, engine}


def test_a_free_note_is_drawn_and_stored_apart_from_the_boxes(round_page):
    page = round_page
    add_box(page, "api gateway")
    focus_stage(page)
    page.keyboard.press("n")
    note_field = canvas_parts(page).locator("[data-sbc-field=note-text]")
    expect(note_field).to_be_focused()
    note_field.type("Ask: is the 30k context a p50 or a p99?")
    design = read_design(page)
    assert [n["text"] for n in design["notes"]] == ["Ask: is the 30k context a p50 or a p99?"]
    assert "gateway" in box_ids(page) and not box_ids(page) & {n["id"] for n in design["notes"]}  # not a box
    assert "30k context" in canvas(page, "svg()")


def read_png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_export_writes_a_png_and_an_svg_that_show_the_boxes(round_page, tmp_path):
    page = round_page
    a, b = add_box(page, "api gateway"), add_box(page, "model router")
    set_job(page, a, "Authenticate the caller")
    connect_boxes(page, a, b)
    select_box(page, a)
    assert selected_id(page) == a  # exported with a box selected: the picture has no selection highlight
    canvas_root(page).locator("[data-action=export]").click()
    with page.expect_download() as png_download:
        canvas_root(page).locator("[data-action=export-png]").click()
    png = png_download.value
    assert png.suggested_filename == "design.png"
    data = (tmp_path / "design.png").read_bytes() if png.save_as(tmp_path / "design.png") is None else b""
    width, height = read_png_size(data)
    assert width > 300 and height > 50
    # The browser decodes it, and it is not blank: dark pixels where the boxes and their text are.
    dark = page.evaluate(
        """async (src) => {
            const img = new Image();
            img.src = src;
            await img.decode();
            const c = document.createElement("canvas");
            c.width = img.width; c.height = img.height;
            const ctx = c.getContext("2d");
            ctx.drawImage(img, 0, 0);
            const d = ctx.getImageData(0, 0, c.width, c.height).data;
            let n = 0, highlight = 0;
            for (let i = 0; i < d.length; i += 4) {
                if (d[i] < 128 && d[i + 1] < 128 && d[i + 2] < 128) n++;
                // the selection's blue, #1d4ed8
                if (Math.abs(d[i] - 29) < 24 && Math.abs(d[i + 1] - 78) < 24 && Math.abs(d[i + 2] - 216) < 24)
                    highlight++;
            }
            return [n, highlight];
        }""",
        "data:image/png;base64," + base64.b64encode(data).decode(),
    )
    dark, highlight = dark
    assert dark > 500 and highlight == 0
    assert selected_id(page) == a  # and the box is still selected on the canvas

    expect(canvas_root(page).locator("[data-action=export-svg]")).to_be_hidden()  # the formats closed
    canvas_root(page).locator("[data-action=export]").click()
    with page.expect_download() as svg_download:
        canvas_root(page).locator("[data-action=export-svg]").click()
    svg_path = tmp_path / "design.svg"
    svg_download.value.save_as(svg_path)
    root = ET.parse(svg_path).getroot()
    assert root.tag == f"{SVG}svg"
    boxes = {g.get("data-id"): "".join(g.itertext()) for g in root.iter(f"{SVG}g") if g.get("class") == "box"}
    assert set(boxes) == box_ids(page) >= {a, b}
    assert "API gateway" in boxes[a] and "Authenticate the caller" in boxes[a]
    arrows = [g for g in root.iter(f"{SVG}g") if g.get("class") == "arrow"]
    assert [(g.get("data-source"), g.get("data-target")) for g in arrows] == [(a, b)]


def test_each_box_shows_its_job_and_way_to_fail_long_labels_wrap_and_compact_hides_them(round_page):
    page = round_page
    box = add_box(page, "admission queue")
    set_job(page, box, "Bound the waiting work")
    set_failure(page, box, "Unbounded queue grows past the SLO")
    long_label = "Admission queue with per-tenant fairness and a deadline-aware shedding policy"
    canvas_parts(page).locator("[data-sbc-field=label]").fill(long_label)
    root = ET.fromstring(canvas(page, "svg()").split("\n", 1)[1])
    group = next(g for g in root.iter(f"{SVG}g") if g.get("data-id") == box)
    lines = [t.text for t in group.iter(f"{SVG}tspan")]
    assert " ".join(lines).startswith(long_label.split()[0]) and len(lines) >= 4
    assert "Job: Bound the waiting work" in " ".join(lines)
    assert "Fails: Unbounded queue grows past the SLO" in " ".join(lines)
    rect = next(group.iter(f"{SVG}rect"))
    assert float(rect.get("height")) >= 15 * len(lines)  # the box grew to hold its lines

    focus_stage(page)
    page.keyboard.press("t")
    root = ET.fromstring(canvas(page, "svg()").split("\n", 1)[1])
    group = next(g for g in root.iter(f"{SVG}g") if g.get("data-id") == box)
    text = " ".join(t.text for t in group.iter(f"{SVG}tspan"))
    assert "Job:" not in text and "Admission queue" in text
    expect(canvas_root(page).locator("[data-action=compact]")).to_have_attribute("aria-pressed", "true")


def test_arrow_labels_are_placed_off_the_boxes(round_page):
    page = round_page
    ids = [add_box(page, q) for q in ("api gateway", "token bucket", "model router")]
    # Pack the boxes tight, so a label at the middle of an arrow would sit on a box.
    canvas_root(page).evaluate(
        """(el, ids) => {
            const c = SevenboxCanvas.get(el);
            const d = c.getDesign();
            d.nodes.forEach((n, i) => { n.x = 100; n.y = 100 + i * 70; });
            d.edges = [{source: ids[0], target: ids[1], label: "HTTP/2 stream per request"},
                       {source: ids[1], target: ids[2], label: "admitted requests only"},
                       {source: ids[0], target: ids[2], label: "bypass for health checks"},
                       {source: ids[2], target: ids[1], label: "offload"}];
            c.setDesign(d);
        }""",
        ids,
    )
    geometry = canvas(page, "geometry()")
    assert len(geometry["labels"]) == 4
    for edge, label in geometry["labels"].items():
        for box, rect in geometry["boxes"].items():
            assert not overlap(label, rect), f"the label of {edge} covers {box}"
    # Nor one another, even on a pair of opposite arrows (they bend apart: each label is on its own curve).
    canvas_root(page).evaluate(
        """(el, ids) => {
            const c = SevenboxCanvas.get(el);
            const d = c.getDesign();
            d.nodes.forEach((n, i) => { n.x = 100 + i * 240; n.y = i === 1 ? 270 : 100; });
            d.edges = [{source: ids[0], target: ids[1], label: "offload"},
                       {source: ids[1], target: ids[0], label: "reload"},
                       {source: ids[1], target: ids[2], label: "admitted"},
                       {source: ids[2], target: ids[1], label: "answers"}];
            c.setDesign(d);
        }""",
        ids,
    )
    labels = list(canvas(page, "geometry()")["labels"].items())
    assert len(labels) == 4
    for i, (edge, label) in enumerate(labels):
        for other, rect in labels[i + 1 :]:
            assert not overlap(label, rect), f"the labels of {edge} and {other} overlap"


def test_zoom_with_the_wheel_and_keys_fit_and_auto_layout(round_page):
    page = round_page
    ids = [add_box(page, q) for q in ("api gateway", "token bucket", "model router", "vllm")]
    for source, target in zip(ids, ids[1:], strict=False):
        connect_boxes(page, source, target)
    start = canvas(page, "zoom()")
    stage = canvas_root(page).locator("[data-sbc=stage]").bounding_box()
    page.mouse.move(stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2)

    def zoomed_in() -> bool:
        # cytoscape ignores the wheel for 250 ms after anything on the page scrolled (the palette list did).
        page.mouse.wheel(0, -200)
        return canvas(page, "zoom()") > start * 1.05

    wait_on_page(page, zoomed_in, timeout_s=5, what="the wheel to zoom in")
    focus_stage(page)
    zoomed = canvas(page, "zoom()")
    page.keyboard.press("-")
    assert canvas(page, "zoom()") < zoomed
    # A staircase down to the left, so the last box is where the view bar is when fitted without it in mind.
    canvas_root(page).evaluate(
        """el => {
            const c = SevenboxCanvas.get(el);
            const d = c.getDesign();
            d.nodes.forEach((n, i) => { n.x = -i * 300; n.y = i * 300; });
            c.setDesign(d);
        }"""
    )
    page.keyboard.press("0")  # fit: every box is in view, none under the view bar in the corner
    bar = canvas_root(page).locator(".sbc-viewbar").bounding_box()
    bar = {"x1": bar["x"], "y1": bar["y"], "x2": bar["x"] + bar["width"], "y2": bar["y"] + bar["height"]}
    for box in ids:
        r = canvas(page, f"boxRect({json.dumps(box)})")
        assert stage["x"] <= r["x"] and r["x"] + r["width"] <= stage["x"] + stage["width"] + 1
        assert stage["y"] <= r["y"] and r["y"] + r["height"] <= stage["y"] + stage["height"] + 1
        drawn = {"x1": r["x"], "y1": r["y"], "x2": r["x"] + r["width"], "y2": r["y"] + r["height"]}
        assert not overlap(drawn, bar), f"the view bar covers {box}"

    # Scramble, then lay out: the chain reads left to right.
    canvas_root(page).evaluate(
        """el => {
            const c = SevenboxCanvas.get(el);
            const d = c.getDesign();
            d.nodes.forEach((n, i) => { n.x = 400 - i * 90; n.y = (i % 2) * 300; });
            c.setDesign(d);
        }"""
    )
    page.keyboard.press("l")
    xs = {n["id"]: n["x"] for n in read_design(page)["nodes"]}
    assert xs[ids[0]] < xs[ids[1]] < xs[ids[2]] < xs[ids[3]]
    page.keyboard.press("Control+z")
    assert {n["id"]: n["x"] for n in read_design(page)["nodes"]} != xs


def test_touch_connects_by_tapping_the_source_connect_and_the_target(browser, live_server, alice, questions):
    page, problems = open_page(
        browser, live_server.url, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page.problems = problems
    try:
        log_in(page, "alice")
        start_round(page)
        a, b = add_box(page, "api gateway"), add_box(page, "model router")
        page.touchscreen.tap(*box_center(page, a))
        assert canvas(page, "selection()") == [a]
        canvas_root(page).locator("[data-action=connect]").tap()
        page.touchscreen.tap(*box_center(page, b))
        assert edge_pairs(page) == [(a, b)]
    finally:
        close_quietly(page)
    problems.assert_none()


def pinch(page, center: tuple[float, float], start_gap: float, end_gap: float, steps: int = 12) -> None:
    """Two fingers on a touchscreen, side by side around `center`, moving from `start_gap` pixels apart to
    `end_gap` (real touch input through the DevTools protocol, as a tablet sends it: the left finger lands
    first, the right one a moment later)."""
    cdp = page.context.new_cdp_session(page)
    x, y = center

    def fingers(gap: float) -> list[dict]:
        return [{"x": x - gap / 2, "y": y, "id": 0}, {"x": x + gap / 2, "y": y, "id": 1}]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": fingers(start_gap)[:1]})
    page.wait_for_timeout(30)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": fingers(start_gap)})
    for step in range(1, steps + 1):
        gap = start_gap + (end_gap - start_gap) * step / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": fingers(gap)})
        page.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def model_point_under(page, box: str, client_point: tuple[float, float]) -> tuple[float, float]:
    """The model coordinates drawn at a client pixel, from where box `box` (model x, y) is drawn now."""
    node = next(n for n in read_design(page)["nodes"] if n["id"] == box)
    centre = box_center(page, box)
    zoom = canvas(page, "zoom()")
    return (
        node["x"] + (client_point[0] - centre[0]) / zoom,
        node["y"] + (client_point[1] - centre[1]) / zoom,
    )


@pytest.mark.parametrize(
    "device",
    [
        {"viewport": {"width": 1280, "height": 720}},  # a touchscreen laptop
        {"viewport": {"width": 390, "height": 844}, "is_mobile": True},  # a phone, which could zoom the page
    ],
)
def test_a_pinch_zooms_the_canvas_about_the_fingers_and_leaves_the_boxes_where_they_are(
    browser, live_server, alice, questions, device
):
    page, problems = open_page(browser, live_server.url, has_touch=True, **device)
    page.problems = problems
    try:
        log_in(page, "alice")
        start_round(page)
        a, b = add_box(page, "api gateway"), add_box(page, "model router")
        focus_stage(page)
        page.keyboard.press("0")  # fit, then zoom out a little so a pinch has room both ways
        page.keyboard.press("-")
        before = {n["id"]: (n["x"], n["y"]) for n in read_design(page)["nodes"]}
        stage = canvas_root(page).locator("[data-sbc=stage]").bounding_box()
        below = (stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] * 0.8)
        start = canvas(page, "zoom()")
        anchor = model_point_under(page, b, below)

        pinch(page, below, 60, 200)  # fingers apart, on the background
        wider = canvas(page, "zoom()")
        assert wider > start * 1.3, f"a pinch out zoomed from {start} to {wider}"
        assert model_point_under(page, b, below) == pytest.approx(anchor, abs=3)  # zoomed about the fingers

        expect(canvas_root(page).locator("[data-sbc=stage]")).to_be_focused()  # the keys still work after it
        page.keyboard.press("0")
        fitted = canvas(page, "zoom()")
        on_box = box_center(page, a)
        pinch(page, (on_box[0] + 90, on_box[1]), 180, 60)  # fingers together, the first starting on a box
        narrower = canvas(page, "zoom()")
        assert narrower < fitted / 1.3, f"a pinch in zoomed from {fitted} to {narrower}"

        assert {n["id"]: (n["x"], n["y"]) for n in read_design(page)["nodes"]} == before
        assert page.evaluate("window.visualViewport.scale") == 1, "the page zoomed instead of the canvas"
    finally:
        close_quietly(page)
    problems.assert_none()


def test_the_keyboard_alone_draws_names_connects_groups_and_undoes_and_shortcuts_never_type(round_page):
    page = round_page
    start = box_ids(page)
    focus_stage(page)
    boxes = []
    page.keyboard.press("a")  # to the palette search; it keeps the focus after each box it adds
    for query in ("api gateway", "model router", "vllm"):
        page.keyboard.type(query)
        page.keyboard.press("Enter")
        boxes.append(read_design(page)["nodes"][-1]["id"])
    first = canvas_parts(page).locator(f"[data-sbc=boxes] button[data-id={json.dumps(boxes[0])}]")
    first.focus()
    page.keyboard.press("j")
    job = canvas_parts(page).locator("[data-sbc-field=job]")
    expect(job).to_be_focused()
    page.keyboard.type("a g n / c")  # every one a shortcut elsewhere: here they are text
    assert job.input_value() == "a g n / c"
    assert len(box_ids(page)) == len(start) + 3 and "notes" not in read_design(page)
    page.keyboard.press("Escape")
    expect(first).to_be_focused()
    page.keyboard.press("c")
    for _ in range(5):
        if page.evaluate("document.activeElement.dataset.id") == boxes[1]:
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert edge_pairs(page) == [(boxes[0], boxes[1])]
    # Select two with Shift+Space and group them.
    focused = canvas_parts(page).locator(f"[data-sbc=boxes] button[data-id={json.dumps(boxes[1])}]")
    focused.focus()
    page.keyboard.press("Shift+Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Space")
    assert sorted(canvas(page, "selection()")) == sorted(boxes[1:])
    page.keyboard.press("g")
    page.keyboard.type("replica")
    page.keyboard.press("Escape")
    assert [g["label"] for g in read_design(page)["groups"]] == ["replica"]
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")
    assert not read_design(page).get("groups")
    page.keyboard.press("Control+y")
    assert len(read_design(page)["groups"]) == 1


def test_the_keyboard_help_lists_the_keys_of_where_the_focus_is(round_page):
    page = round_page
    add_box(page, "api gateway")
    help_ = canvas_parts(page).locator("[data-sbc=help]")
    help_.locator("summary").click()
    keys = help_.locator("dt")
    canvas_root(page).locator("[data-sbc=search]").focus()
    expect(help_).to_have_attribute("data-context", "search")
    assert "A" not in keys.all_inner_texts() and "Enter" in keys.all_inner_texts()
    focus_stage(page)
    expect(help_).to_have_attribute("data-context", "canvas")
    assert "A" in keys.all_inner_texts() and "Shift+Space" not in keys.all_inner_texts()
    canvas_parts(page).locator("[data-sbc-field=job]").focus()
    expect(help_).to_have_attribute("data-context", "field")
    assert keys.all_inner_texts() == ["Type", "Escape"]
    # Export by keyboard: Enter opens the formats with the focus on the first; their keys are the help's.
    canvas_root(page).locator("[data-action=export]").focus()
    page.keyboard.press("Enter")
    expect(canvas_root(page).locator("[data-action=export-png]")).to_be_focused()
    expect(help_).to_have_attribute("data-context", "export")
    assert keys.all_inner_texts() == ["Tab", "Enter", "Escape"]
    page.keyboard.press("Escape")
    expect(canvas_root(page).locator("[data-action=export-png]")).to_be_hidden()
    expect(help_).to_have_attribute("data-context", "canvas")
    # The list view keeps its screen-reader labels.
    item = canvas_parts(page).locator("[data-sbc=boxes] button[data-id=gateway]")
    assert item.get_attribute("aria-label").startswith("Box API gateway")
