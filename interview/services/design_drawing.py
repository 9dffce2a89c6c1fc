"""Two designs drawn side by side on the report: boxes in layers by their distance from the client, as SVG."""

from collections.abc import Mapping, Sequence
from typing import Any

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 150, 40, 20, 36, 10
TONE_LABELS = {
    "correct": "matched",
    "warn": "matched, words missing",
    "bad": "missing",
    "muted": "extra",
    "": "",
}


def _layers(ids: Sequence[str], edges: Sequence[Mapping[str, str]]) -> list[list[str]]:
    linked: dict[str, set[str]] = {node_id: set() for node_id in ids}
    for edge in edges:
        if edge.get("source") in linked and edge.get("target") in linked:
            linked[edge["source"]].add(edge["target"])
            linked[edge["target"]].add(edge["source"])
    depth: dict[str, int] = {}
    frontier = [node_id for node_id in ids if node_id == "client"] or list(ids[:1])
    for node_id in frontier:
        depth[node_id] = 0
    while frontier:
        nxt = []
        for node_id in frontier:
            for other in sorted(linked[node_id]):
                if other not in depth:
                    depth[other] = depth[node_id] + 1
                    nxt.append(other)
        frontier = nxt
    last = max(depth.values(), default=-1) + 1
    layers: dict[int, list[str]] = {}
    for node_id in ids:
        layers.setdefault(depth.get(node_id, last), []).append(node_id)
    return [layers[key] for key in sorted(layers)]


def design_drawing(
    design: Mapping[str, Any], tones: Mapping[str, str], names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Boxes (x, y, label, tone) and arrows (x1, y1, x2, y2) of `design`, each box's tone from `tones`."""
    nodes = [node for node in design.get("nodes", []) if isinstance(node, Mapping) and node.get("id")]
    by_id = {str(node["id"]): node for node in nodes}
    ids = list(by_id)
    edges = design.get("edges", [])
    if "client" not in by_id and any("client" in (e.get("source"), e.get("target")) for e in edges):
        by_id["client"] = {"id": "client", "kind": "client", "label": "Client"}
        ids.insert(0, "client")
    position: dict[str, tuple[int, int]] = {}
    boxes = []
    layers = _layers(ids, design.get("edges", []))
    for row, layer in enumerate(layers):
        for column, node_id in enumerate(layer):
            x, y = MARGIN + column * (BOX_W + GAP_X), MARGIN + row * (BOX_H + GAP_Y)
            position[node_id] = (x, y)
            node = by_id[node_id]
            label = str(node.get("label") or "").strip() or (names or {}).get(str(node.get("kind")), node_id)
            tone = tones.get(node_id, "")
            boxes.append(
                {
                    "id": node_id,
                    "x": x,
                    "y": y,
                    "label": label[:24],
                    "tone": tone,
                    "status": TONE_LABELS[tone],
                }
            )
    arrows = []
    for edge in design.get("edges", []):
        source, target = position.get(edge.get("source")), position.get(edge.get("target"))
        if source and target:
            arrows.append(
                {
                    "x1": source[0] + BOX_W // 2,
                    "y1": source[1] + BOX_H,
                    "x2": target[0] + BOX_W // 2,
                    "y2": target[1],
                }
            )
    widest = max((len(layer) for layer in layers), default=1)
    return {
        "boxes": boxes,
        "arrows": arrows,
        "width": 2 * MARGIN + widest * (BOX_W + GAP_X) - GAP_X,
        "height": 2 * MARGIN + len(layers) * (BOX_H + GAP_Y) - GAP_Y,
        "box_w": BOX_W,
        "box_h": BOX_H,
    }


def designs_compared(
    reference: Mapping[str, Any], candidate: Mapping[str, Any], design_report: Mapping[str, Any]
) -> dict[str, Any]:
    """The reference design with each component's verdict (matched or missing) and the candidate's design with
    each box matched to a component, or extra."""
    ref_nodes = [node for node in reference.get("nodes", []) if node.get("kind") != "client"]
    components = design_report.get("components", [])
    reference_tones, candidate_tones = {}, {}
    for node, component in zip(ref_nodes, components, strict=False):
        reference_tones[str(node["id"])] = component["tone"]
        for box_id in component.get("matched_ids", []):
            candidate_tones[box_id] = component["tone"]
    for extra in design_report.get("extra", []):
        candidate_tones.setdefault(extra["id"], "muted")
    return {
        "reference": design_drawing(reference, reference_tones),
        "candidate": design_drawing(candidate, candidate_tones),
    }


def question_headline(spec: Mapping[str, Any], report: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the report shows once the round is submitted as the question's headline: the seed's own figures
    (kept off titles and summaries, which a candidate reads before answering) and the headline quantity."""
    seeds = list(dict.fromkeys(figure["seed"] for figure in spec.get("figures", []) if figure.get("seed")))
    name = (spec.get("model") or {}).get("headline")
    line = next((line for line in (report or {}).get("lines", []) if line["name"] == name), None)
    return {"seeds": seeds, "line": line}
