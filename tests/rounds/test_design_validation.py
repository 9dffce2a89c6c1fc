"""The save's boundary checks on the canvas's free notes and group containers (rounds.validation)."""

import pytest

from rounds.validation import MAX_GROUPS, MAX_NOTE_TEXT, MAX_NOTES, WorkError, clean_design

BOXES = [
    {"id": "sch", "kind": "scheduler", "label": "Batcher"},
    {"id": "eng", "kind": "engine", "label": "Engine"},
]


def test_notes_and_groups_with_members_are_kept_as_sent():
    design = {
        "nodes": [{**BOXES[0], "parent": "replica"}, {**BOXES[1], "parent": "replica"}],
        "edges": [{"source": "sch", "target": "eng", "label": ""}],
        "groups": [
            {"id": "replica", "label": "replica", "parent": "region"},
            {"id": "region", "label": "region"},
        ],
        "notes": [{"id": "note", "text": "Ask about the p99 context", "x": 10, "y": 20}],
    }
    assert clean_design(design) == design


@pytest.mark.parametrize(
    "extra,message",
    [
        ({"notes": [{"id": "n", "text": "x" * (MAX_NOTE_TEXT + 1)}]}, "design.notes[0].text"),
        ({"notes": [{"text": "no id"}]}, "design.notes[0]: each note needs a string id"),
        (
            {"notes": [{"id": f"n{i}", "text": ""} for i in range(MAX_NOTES + 1)]},
            f"at most {MAX_NOTES} notes",
        ),
        ({"notes": "a note"}, "design.notes"),
        ({"groups": [{"id": f"g{i}"} for i in range(MAX_GROUPS + 1)]}, f"at most {MAX_GROUPS} groups"),
        ({"groups": [{"id": "g", "label": 7}]}, "design.groups[0].label"),
        ({"groups": [{"label": "no id"}]}, "design.groups[0]: each group needs a string id"),
    ],
)
def test_a_bad_note_or_group_is_refused_with_where_it_is(extra, message):
    with pytest.raises(WorkError, match=message.replace("[", r"\[").replace("]", r"\]")):
        clean_design({"nodes": BOXES, "edges": [], **extra})


def test_a_box_whose_parent_is_not_text_is_refused():
    with pytest.raises(WorkError, match=r"design.nodes\[1\].parent"):
        clean_design({"nodes": [BOXES[0], {**BOXES[1], "parent": 3}], "edges": []})
