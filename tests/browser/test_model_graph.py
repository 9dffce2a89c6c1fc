"""The model check's dependency graph in the editor, laid out by dagre: every box inside the drawing (nothing
clipped), and no arrow running through a box other than the two it joins."""

import pytest
from playwright.sync_api import expect

from interview.services.authoring import draft_create, draft_save
from tests.browser.conftest import log_in
from tests.interview import authoring_fixtures as q

GEOMETRY = """() => {
  const svg = document.getElementById("model-graph");
  const width = Number(svg.getAttribute("width")), height = Number(svg.getAttribute("height"));
  const boxes = {};
  for (const g of svg.querySelectorAll("g.node")) {
    const r = g.querySelector("rect"), t = g.transform.baseVal.consolidate();
    const dx = t ? t.matrix.e : 0, dy = t ? t.matrix.f : 0;
    boxes[g.dataset.quantity] = {x: Number(r.getAttribute("x")) + dx, y: Number(r.getAttribute("y")) + dy,
      w: Number(r.getAttribute("width")), h: Number(r.getAttribute("height"))};
  }
  const edges = Array.from(svg.querySelectorAll(".edge")).map((e) => ({
    tag: e.tagName, source: e.dataset.source, target: e.dataset.target,
    points: e.getAttribute("points").trim().split(/\\s+/).map((p) => p.split(",").map(Number))}));
  return {width, height, boxes, edges, laidOut: svg.dataset.laidOut};
}"""


def crosses(box: dict, a: tuple[float, float], b: tuple[float, float], inset: float = 2.0) -> bool:
    """Whether the segment a-b passes through the inside of the box (sampled finely)."""
    for step in range(201):
        x = a[0] + (b[0] - a[0]) * step / 200
        y = a[1] + (b[1] - a[1]) * step / 200
        if (
            box["x"] + inset < x < box["x"] + box["w"] - inset
            and box["y"] + inset < y < box["y"] + box["h"] - inset
        ):
            return True
    return False


@pytest.fixture
def draft(author, transactional_db):
    return draft_save(draft=draft_create(owner=author, slug=q.SLUG, title=q.TITLE), data=q.question_dict())


def test_the_dependency_graph_is_laid_out_whole_with_no_arrow_behind_an_unrelated_box(page, draft):
    log_in(page, "ada")
    page.goto(f"/authoring/drafts/{draft.pk}/")
    expect(page.locator("#model-graph")).to_have_attribute("data-laid-out", "1")
    shape = page.evaluate(GEOMETRY)
    assert len(shape["boxes"]) == len(q.question_dict()["model"]["quantities"])
    assert shape["edges"] and all(edge["tag"] == "polyline" for edge in shape["edges"])
    for name, box in shape["boxes"].items():
        assert box["x"] >= 0 and box["y"] >= 0, name
        assert box["x"] + box["w"] <= shape["width"] and box["y"] + box["h"] <= shape["height"], name
    for edge in shape["edges"]:
        points = edge["points"]
        for name, box in shape["boxes"].items():
            if name in (edge["source"], edge["target"]):
                continue
            assert not any(crosses(box, a, b) for a, b in zip(points, points[1:], strict=False)), (edge, name)

    # Typing a new model swaps the check in place: the new graph is laid out too.
    page.locator("#f-model").fill(
        q.MODEL.replace("headroom, label: Headroom factor", "headroom, label: Spare")
    )
    expect(page.locator("#model-graph")).to_have_attribute("data-laid-out", "1")
