"""Drive the design canvas (static/js/design-canvas.js) from a browser test without knowing its DOM.

Each function takes a playwright `page` on which the widget is mounted; `canvas` picks the widget's container
when a page has more than one (a CSS selector, default: the first `[data-sevenbox-canvas]`). Boxes are named
by their id in the design JSON (`add_box` returns it). Everything goes through the keyboard, as a person
without a mouse would, except `connect_boxes_by_drag`, which draws the arrow with the mouse.

    box = add_box(page, "token bucket")          # adds "Rate limiter / quota", returns "rate_limiter"
    connect_boxes(page, "gateway", box)
    set_job(page, box, "Keep each tenant inside its token budget")
    assert read_design(page)["edges"] == [{"source": "gateway", "target": "rate_limiter", "label": ""}]
"""

import json
from typing import Any

from playwright.sync_api import Locator, Page

CANVAS = "[data-sevenbox-canvas]"


def canvas_root(page: Page, canvas: str = CANVAS) -> Locator:
    """The widget's container, once the widget is mounted on it."""
    root = page.locator(canvas).first
    root.and_(page.locator("[data-sevenbox-mounted]")).wait_for()
    return root


def canvas_parts(page: Page, canvas: str = CANVAS) -> Locator:
    """The widget's container and, where the page hosts it elsewhere (the round's side panel), its panel:
    search this for the box list, the details form and the marks."""
    root = canvas_root(page, canvas)
    host = root.get_attribute("data-panel-host")
    return page.locator(f"{canvas}, #{host}") if host else root


def read_design(page: Page, canvas: str = CANVAS) -> dict[str, Any]:
    """The design as the widget holds it now (before the ~300 ms debounced onChange)."""
    root = canvas_root(page, canvas)
    return root.evaluate("el => SevenboxCanvas.get(el).getDesign()")


def wait_for_saved(page: Page, target_input: str, canvas: str = CANVAS) -> dict[str, Any]:
    """Wait until the hidden field (a CSS selector) holds the current design: the debounced change fired."""
    root = canvas_root(page, canvas)
    page.wait_for_function(
        """([el, input]) => {
            const field = document.querySelector(input);
            return field && field.value && JSON.stringify(JSON.parse(field.value))
                === JSON.stringify(SevenboxCanvas.get(el).getDesign());
        }""",
        arg=[root.element_handle(), target_input],
    )
    return json.loads(page.locator(target_input).input_value())


def box_item(page: Page, box_id: str, canvas: str = CANVAS) -> Locator:
    """The box's entry in the keyboard-usable box list."""
    return canvas_parts(page, canvas).locator(f"[data-sbc=boxes] button[data-id={json.dumps(box_id)}]")


def arrow_item(page: Page, source: str, target: str, canvas: str = CANVAS) -> Locator:
    """The arrow's entry in the arrow list."""
    edge_id = json.dumps(f"{source}->{target}")
    return canvas_parts(page, canvas).locator(f"[data-sbc=arrows] button[data-id={edge_id}]")


def selected_id(page: Page, canvas: str = CANVAS) -> str | None:
    """Id of the selected box, or `source->target` of the selected arrow."""
    current = canvas_parts(page, canvas).locator(".sbc-list button[aria-current=true]")
    return current.first.get_attribute("data-id") if current.count() else None


def add_box(page: Page, query: str, kind: str | None = None, canvas: str = CANVAS) -> str:
    """Type `query` in the palette search and add the best match (or the match of `kind`); returns its id."""
    root = canvas_root(page, canvas)
    before = {node["id"] for node in read_design(page, canvas)["nodes"]}
    search = root.locator("[data-sbc=search]")
    search.focus()
    search.fill(query)
    if kind is not None:
        options = root.locator("[data-sbc=results] [role=option]")
        index = options.evaluate_all("(els, kind) => els.findIndex(o => o.dataset.kind === kind)", kind)
        assert index >= 0, f"no palette match of kind {kind!r} for {query!r}"
        for _ in range(index + 1 if not query.strip() else index):
            search.press("ArrowDown")
    search.press("Enter")
    added = [node["id"] for node in read_design(page, canvas)["nodes"] if node["id"] not in before]
    assert len(added) == 1, f"adding {query!r} added {added}"
    return added[0]


def add_free_label(page: Page, text: str, canvas: str = CANVAS) -> str:
    """Add a box with no palette kind (kind "") labelled `text`; returns its id."""
    return add_box(page, text, kind="", canvas=canvas)


def select_box(page: Page, box_id: str, canvas: str = CANVAS) -> None:
    """Focus the box in the list, which selects it."""
    box_item(page, box_id, canvas).focus()


def connect_boxes(page: Page, source: str, target: str, canvas: str = CANVAS) -> None:
    """Keyboard only: focus the source box, press C (focus moves to the next box in the list), Tab or
    Shift+Tab to the target box, press Enter."""
    root = canvas_root(page, canvas)
    focused_id = "() => document.activeElement && document.activeElement.dataset.id"
    count = len(read_design(page, canvas)["edges"])
    ids = [node["id"] for node in read_design(page, canvas)["nodes"]]
    select_box(page, source, canvas)
    page.keyboard.press("c")
    here = root.evaluate(focused_id)
    step = "Tab" if here in ids and ids.index(target) >= ids.index(here) else "Shift+Tab"
    for _ in range(len(ids) + 1):
        if root.evaluate(focused_id) == target:
            break
        page.keyboard.press(step)
    else:
        raise AssertionError(f"could not Tab to box {target!r}")
    page.keyboard.press("Enter")
    edges = read_design(page, canvas)["edges"]
    assert len(edges) == count + 1, f"connecting {source} to {target} did not add an arrow"


def box_center(page: Page, box_id: str, canvas: str = CANVAS) -> tuple[float, float]:
    """Where to click, tap or drag a box: its centre in page pixels, after scrolling the canvas into view."""
    root = canvas_root(page, canvas)
    root.locator("[data-sbc=stage]").scroll_into_view_if_needed()
    rect = root.evaluate("(el, id) => SevenboxCanvas.get(el).boxRect(id)", box_id)
    assert rect, f"no box {box_id!r}"
    return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2


def connect_boxes_by_drag(page: Page, source: str, target: str, canvas: str = CANVAS) -> None:
    """Mouse: hover the source box, drag its handle onto the target box."""
    root = canvas_root(page, canvas)
    start = box_center(page, source, canvas)
    end = box_center(page, target, canvas)
    page.mouse.move(*start)
    handle = root.locator(".sbc-handle")
    handle.wait_for()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(*end, steps=12)
    page.wait_for_timeout(300)  # edgehandles waits for its hover delay before it previews the arrow
    page.mouse.up()


def _fill_field(page: Page, box_id: str, field: str, text: str, canvas: str) -> None:
    select_box(page, box_id, canvas)
    canvas_parts(page, canvas).locator(f"[data-sbc-field={field}]").fill(text)


def set_job(page: Page, box_id: str, text: str, canvas: str = CANVAS) -> None:
    """Write the box's job (max 200 characters) in the side panel."""
    _fill_field(page, box_id, "job", text, canvas)


def set_failure(page: Page, box_id: str, text: str, canvas: str = CANVAS) -> None:
    """Write the box's way to fail (max 200 characters) in the side panel."""
    _fill_field(page, box_id, "failure", text, canvas)


def rename_box(page: Page, box_id: str, label: str, canvas: str = CANVAS) -> None:
    """Keyboard: focus the box, press R, type the new label, press Enter."""
    select_box(page, box_id, canvas)
    page.keyboard.press("r")
    field = canvas_parts(page, canvas).locator("[data-sbc-field=label]")
    field.fill(label)
    field.press("Enter")


def delete_box(page: Page, box_id: str, canvas: str = CANVAS) -> None:
    """Keyboard: focus the box and press Delete (its arrows go with it)."""
    box_item(page, box_id, canvas).focus()
    page.keyboard.press("Delete")


def undo(page: Page, canvas: str = CANVAS) -> None:
    canvas_root(page, canvas).locator("button[data-action=undo]").click()


def redo(page: Page, canvas: str = CANVAS) -> None:
    canvas_root(page, canvas).locator("button[data-action=redo]").click()
