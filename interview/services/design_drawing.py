"""Two designs drawn side by side on the report: boxes in layers by their distance from the client, as SVG."""

from collections.abc import Mapping, Sequence
from typing import Any

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 170, 46, 24, 40, 10
LINE_CHARS, LINE_H = 22, 15  # a label wraps to two lines of about this many characters at 12 px
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


def label_lines(label: str) -> tuple[list[str], bool]:
    """A label as at most two lines that fit a box, and whether it was shortened (then with "…")."""
    words, lines, line = label.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > LINE_CHARS:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    lines = [text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…" for text in lines]
    if len(lines) > 2:
        lines = [lines[0], lines[1][: LINE_CHARS - 1].rstrip() + "…"]
    shortened = " ".join(line.rstrip("…") for line in lines) != " ".join(words) or any(
        "…" in x for x in lines
    )
    return lines, shortened


def _positions(
    nodes: Mapping[str, Mapping[str, Any]], ids: list[str], edges
) -> dict[str, tuple[float, float]]:
    """Each box's top-left corner: where the person drew it (the canvas stores centres) when every box has a
    place, else in layers by distance from the client."""
    placed = {
        node_id: (float(nodes[node_id]["x"]), float(nodes[node_id]["y"]))
        for node_id in ids
        if isinstance(nodes[node_id].get("x"), int | float)
        and isinstance(nodes[node_id].get("y"), int | float)
    }
    if ids and len(placed) == len(ids):
        left = min(x for x, _ in placed.values()) - BOX_W / 2
        top = min(y for _, y in placed.values()) - BOX_H / 2
        return {
            node_id: (round(x - BOX_W / 2 - left + MARGIN), round(y - BOX_H / 2 - top + MARGIN))
            for node_id, (x, y) in placed.items()
        }
    return {
        node_id: (MARGIN + column * (BOX_W + GAP_X), MARGIN + row * (BOX_H + GAP_Y))
        for row, layer in enumerate(_layers(ids, edges))
        for column, node_id in enumerate(layer)
    }


def _border_point(box: tuple[float, float], towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre towards a point leaves the box."""
    cx, cy = box[0] + BOX_W / 2, box[1] + BOX_H / 2
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    scale = min(BOX_W / 2 / abs(dx) if dx else float("inf"), BOX_H / 2 / abs(dy) if dy else float("inf"))
    return cx + dx * scale, cy + dy * scale


def design_drawing(
    design: Mapping[str, Any], tones: Mapping[str, str], names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Boxes (x, y, label lines, tone) and arrows (x1, y1, x2, y2, border to border) of `design`, each box
    where it was drawn and its tone from `tones`."""
    nodes = [node for node in design.get("nodes", []) if isinstance(node, Mapping) and node.get("id")]
    by_id = {str(node["id"]): node for node in nodes}
    ids = list(by_id)
    edges = design.get("edges", [])
    if "client" not in by_id and any("client" in (e.get("source"), e.get("target")) for e in edges):
        by_id["client"] = {"id": "client", "kind": "client", "label": "Client"}
        ids.insert(0, "client")
    position = _positions(by_id, ids, edges)
    boxes = []
    for node_id in ids:
        x, y = position[node_id]
        node = by_id[node_id]
        label = str(node.get("label") or "").strip() or (names or {}).get(str(node.get("kind")), node_id)
        lines, shortened = label_lines(label)
        tone = tones.get(node_id, "")
        first = y + BOX_H / 2 - (len(lines) - 1) * LINE_H / 2 + 4
        boxes.append(
            {
                "id": node_id,
                "x": x,
                "y": y,
                "label": label,
                "lines": [{"text": text, "y": round(first + i * LINE_H)} for i, text in enumerate(lines)],
                "shortened": shortened,
                "tone": tone,
                "status": TONE_LABELS[tone],
            }
        )
    arrows = []
    for edge in edges:
        source, target = position.get(edge.get("source")), position.get(edge.get("target"))
        if source and target and source != target:
            centre = (target[0] + BOX_W / 2, target[1] + BOX_H / 2)
            x1, y1 = _border_point(source, centre)
            x2, y2 = _border_point(target, (source[0] + BOX_W / 2, source[1] + BOX_H / 2))
            arrows.append({"x1": round(x1), "y1": round(y1), "x2": round(x2), "y2": round(y2)})
    return {
        "boxes": boxes,
        "arrows": arrows,
        "width": max((x for x, _ in position.values()), default=0) + BOX_W + MARGIN,
        "height": max((y for _, y in position.values()), default=0) + BOX_H + MARGIN,
        "box_w": BOX_W,
        "box_h": BOX_H,
    }


def designs_compared(
    reference: Mapping[str, Any], candidate: Mapping[str, Any], design_report: Mapping[str, Any]
) -> dict[str, Any]:
    """The reference design with each component's verdict (matched or missing) and the candidate's design with
    each box matched to a component, or extra; both drawn to one width, so a page that fits them to its
    width (a phone) shows them at the same scale."""
    ref_nodes = [node for node in reference.get("nodes", []) if node.get("kind") != "client"]
    components = design_report.get("components", [])
    reference_tones, candidate_tones = {}, {}
    for node, component in zip(ref_nodes, components, strict=False):
        reference_tones[str(node["id"])] = component["tone"]
        for box_id in component.get("matched_ids", []):
            candidate_tones[box_id] = component["tone"]
    for extra in design_report.get("extra", []):
        candidate_tones.setdefault(extra["id"], "muted")
    drawings = {
        "reference": design_drawing(reference, reference_tones),
        "candidate": design_drawing(candidate, candidate_tones),
    }
    width = max(drawing["width"] for drawing in drawings.values())
    for drawing in drawings.values():
        drawing["width"] = width
    return drawings


def question_headline(spec: Mapping[str, Any], report: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the report shows once the round is submitted as the question's headline: the seed's own figures
    (kept off titles and summaries, which a candidate reads before answering) and the headline quantity."""
    seeds = list(dict.fromkeys(figure["seed"] for figure in spec.get("figures", []) if figure.get("seed")))
    name = (spec.get("model") or {}).get("headline")
    line = next((line for line in (report or {}).get("lines", []) if line["name"] == name), None)
    return {"seeds": seeds, "line": line}
