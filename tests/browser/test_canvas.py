"""The design canvas on a real round page in Chromium: drawing arrows by drag, selection, clipboard, groups,
notes, export, undo and redo, touch, and the keyboard-only path."""

import pytest

from tests.browser.canvas_helpers import add_box, connect_boxes_by_drag, read_design
from tests.browser.conftest import log_in
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


@pytest.fixture
def round_page(page, alice, tmp_path, transactional_db):
    load_questions(tmp_path, KV_QUESTION)
    log_in(page, "alice")
    page.goto(f"/questions/{KV_QUESTION}/")
    page.get_by_role("button", name="Start a timed round").click()
    page.wait_for_url("**/rounds/*/")
    return page


def edge_pairs(page) -> list[tuple[str, str]]:
    return sorted((e["source"], e["target"]) for e in read_design(page)["edges"])


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
