"""The report's drawings of two designs: boxes where the person drew them, every label whole or shortened with
"…" (its full text in the box's title), arrows from border to border (their heads outside the boxes), and both
drawings one width so a phone shows them at one scale. Expected geometry worked by hand from BOX_W 170,
BOX_H 46 and MARGIN 10."""

from interview.services.design_drawing import design_drawing, designs_compared, label_lines


def test_boxes_keep_the_places_they_were_drawn_at():
    # Centres (100, 100), (400, 100), (400, 300): left edge 100 - 85 = 15, top 100 - 23 = 77.
    design = {
        "nodes": [
            {"id": "client", "label": "Client", "x": 100, "y": 100},
            {"id": "gw", "label": "Gateway", "x": 400, "y": 100},
            {"id": "eng", "label": "Engine", "x": 400, "y": 300},
        ],
        "edges": [{"source": "client", "target": "gw"}, {"source": "gw", "target": "eng"}],
    }
    drawing = design_drawing(design, {})
    places = {box["id"]: (box["x"], box["y"]) for box in drawing["boxes"]}
    assert places == {"client": (10, 10), "gw": (310, 10), "eng": (310, 210)}
    # client -> gw, side by side: right border of client (180, 33) to left border of gw (310, 33).
    # gw -> eng, one above the other: bottom of gw (395, 56) to top of eng (395, 210).
    assert drawing["arrows"] == [
        {"x1": 180, "y1": 33, "x2": 310, "y2": 33},
        {"x1": 395, "y1": 56, "x2": 395, "y2": 210},
    ]
    assert (drawing["width"], drawing["height"]) == (310 + 170 + 10, 210 + 46 + 10)


def test_a_long_label_wraps_to_two_lines_and_is_shortened_with_an_ellipsis():
    assert label_lines("Inference engine + KV cache") == (["Inference engine + KV", "cache"], False)
    lines, shortened = label_lines("Inference engine with a paged KV cache and a host DRAM tier")
    assert len(lines) == 2 and lines[1].endswith("…") and shortened
    assert all(len(line) <= 22 for line in lines)


def test_both_drawings_are_one_width():
    wide = {"nodes": [{"id": "a", "label": "A", "x": 0, "y": 0}, {"id": "b", "label": "B", "x": 900, "y": 0}]}
    narrow = {"nodes": [{"id": "a", "label": "A", "x": 0, "y": 0}]}
    drawings = designs_compared(wide, narrow, {"components": [], "extra": []})
    assert drawings["reference"]["width"] == drawings["candidate"]["width"] == 900 + 170 + 10 + 10
