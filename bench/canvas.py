"""How many actions the round page's canvas takes to draw a question's reference design, by mouse and by
keyboard, in real Chromium.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sevenbox_bench_canvas .venv/bin/python bench/canvas.py

Starts the development server on 127.0.0.1 (a fresh scratch database, the bank loaded, one candidate with
two timed rounds on kv-cache-tiering), then draws the seven boxes of the question's reference design (their
kinds, jobs and ways to fail) and six arrows along its path, once with the mouse (typing only the texts and
the palette queries) and once with the keyboard alone. It prints the actions each took beyond the characters
of the texts (jobs and ways to fail); the palette queries are counted as keystrokes. Goals: at most 40 mouse
actions, at most 150 keystrokes. Each run checks the drawn design against the reference before it counts.
"""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.scratch_site import candidate_session, fresh_database, wait_until_serving  # noqa: E402

PORT = int(os.environ.get("BENCH_PORT", "8791"))
DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sevenbox_bench_canvas")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
QUESTION = "kv-cache-tiering"
# The reference path, in the order it is drawn; the palette query that finds each kind.
QUERIES = {
    "gateway": "gatew",
    "router": "router",
    "admission_queue": "admis",
    "scheduler": "sched",
    "engine": "engine",
    "kv_tier": "kv tier",
    "streamer": "stream",
}
MOUSE_GOAL, KEYS_GOAL = 40, 150


def prepare() -> tuple[str, list[int], list[dict]]:
    """Fresh schema and bank, a candidate with two rounds; returns (session, round ids, reference boxes)."""
    os.environ.update(DATABASE_URL=DATABASE_URL, DEBUG="1", SECRET_KEY="bench-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    fresh_database(DATABASE_URL)
    import django

    django.setup()
    from django.core.management import call_command

    from interview.services.accounts import user_sign_up
    from questions.models import Question
    from questions.services.question_bank import question_bank_load
    from rounds.services.rounds import round_start

    call_command("migrate", "--noinput", verbosity=0)
    question_bank_load()
    question = Question.objects.get(slug=QUESTION)
    user = user_sign_up(username="drawer", email="drawer@example.com", password="bench-pass-123456")
    rounds = [round_start(candidate=user, question=question, mode="timed").pk for _ in range(2)]
    reference = question.current_version.spec["design"]["nodes"]
    by_kind = {node["kind"]: node for node in reference}
    boxes = [by_kind[kind] for kind in QUERIES]
    return candidate_session(user), rounds, boxes


class Counter:
    """Mouse actions (a click, a drag) and keystrokes beyond the texts typed."""

    def __init__(self, page) -> None:
        self.page = page
        self.mouse = 0
        self.keys = 0
        self.text_chars = 0

    def click(self, locator) -> None:
        self.mouse += 1
        locator.click()

    def drag(self, start: tuple[float, float], end: tuple[float, float], via: tuple[float, float]) -> None:
        """Press on the source box's arrow handle, drag to the target, release: one action."""
        self.mouse += 1
        self.page.mouse.move(*start)
        self.page.mouse.move(*via)
        self.page.mouse.down()
        self.page.mouse.move(*end, steps=10)
        self.page.wait_for_timeout(250)
        self.page.mouse.up()

    def press(self, key: str) -> None:
        self.keys += 1
        self.page.keyboard.press(key)

    def query(self, text: str) -> None:
        self.keys += len(text)
        self.page.keyboard.type(text)

    def text(self, text: str) -> None:
        self.text_chars += len(text)
        self.page.keyboard.type(text)


def canvas_call(page, call: str):
    return page.locator("#canvas").evaluate(f"el => SevenboxCanvas.get(el).{call}")


def check(page, boxes: list[dict]) -> None:
    design = canvas_call(page, "getDesign()")
    drawn = [n for n in design["nodes"] if n["kind"] in QUERIES]
    assert [n["kind"] for n in drawn] == list(QUERIES), [n["kind"] for n in drawn]
    for node, reference in zip(drawn, boxes, strict=True):
        assert (node["job"], node["failure"]) == (reference["job"], reference["failure"]), node
    ids = [n["id"] for n in drawn]
    pairs = sorted((e["source"], e["target"]) for e in design["edges"])
    assert pairs == sorted(zip(ids, ids[1:], strict=False)), pairs


def draw_by_mouse(page, boxes: list[dict]) -> Counter:
    count = Counter(page)
    search = page.locator("[data-sbc=search]")
    job = page.locator("[data-sbc-field=job]")
    failure = page.locator("[data-sbc-field=failure]")
    for kind, box in zip(QUERIES, boxes, strict=True):
        count.click(search)
        count.query(QUERIES[kind])
        option = page.locator(f"[data-sbc=results] [data-kind={kind}]").first
        count.click(option)
        count.click(job)
        count.text(box["job"])
        count.click(failure)
        count.text(box["failure"])
    ids = [n["id"] for n in canvas_call(page, "getDesign()")["nodes"] if n["kind"] in QUERIES]
    for source, target in zip(ids, ids[1:], strict=False):
        a = canvas_call(page, f"boxRect({source!r})")
        b = canvas_call(page, f"boxRect({target!r})")
        handle = (a["x"] + a["width"] / 2, a["y"])  # the handle sits on the box's top edge
        count.drag(handle, (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2), via=handle)
    return count


def draw_by_keyboard(page, boxes: list[dict]) -> Counter:
    count = Counter(page)
    # From the page as it loads: Tab to the palette search (the skip link, the site's links, the header...).
    for _ in range(60):
        if page.evaluate("document.activeElement && document.activeElement.dataset.sbc") == "search":
            break
        count.press("Tab")
    for kind, box in zip(QUERIES, boxes, strict=True):
        count.query(QUERIES[kind])
        count.press("Enter")  # adds the best match and selects it; focus stays in the search
        count.press("Escape")  # an empty search: Escape goes to the new box in the list
        count.press("j")
        count.text(box["job"])
        count.press("Escape")
        count.press("f")
        count.text(box["failure"])
        count.press("Escape")
        count.press("a")  # back to the search for the next box
    ids = [n["id"] for n in canvas_call(page, "getDesign()")["nodes"] if n["kind"] in QUERIES]
    page_focus = "document.activeElement && document.activeElement.dataset.id"
    count.press("Escape")  # out of the search, onto the last box
    while page.evaluate(page_focus) != ids[0]:
        count.press("Shift+Tab")
    for _ in ids[1:]:
        count.press("c")  # focus moves to the next box in the list: the arrow's target
        count.press("Enter")  # connected; focus stays on the target, the next arrow's source
    return count


def main() -> None:
    session, rounds, boxes = prepare()
    env = {**os.environ, "SECURE_SSL_REDIRECT": "0"}
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{PORT}"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_serving(PORT, timeout_s=60)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
            )
            results = {}
            for name, draw, round_id in (
                ("mouse", draw_by_mouse, rounds[0]),
                ("keyboard", draw_by_keyboard, rounds[1]),
            ):
                context = browser.new_context(viewport={"width": 1440, "height": 900})
                context.add_cookies(
                    [{"name": "sessionid", "value": session, "url": f"http://127.0.0.1:{PORT}"}]
                )
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{PORT}/rounds/{round_id}/")
                page.locator("[data-sevenbox-mounted]").wait_for()
                results[name] = draw(page, boxes)
                check(page, boxes)
                context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    mouse, keys = results["mouse"], results["keyboard"]
    print(f"reference design: {len(QUERIES)} boxes, {len(QUERIES) - 1} arrows, jobs and ways to fail")
    print(f"text typed (jobs and ways to fail): {mouse.text_chars} characters, not counted")
    print(f"mouse:    {mouse.mouse} mouse actions + {mouse.keys} keystrokes (palette queries)")
    print(f"keyboard: {keys.keys} keystrokes (palette queries included), {keys.mouse} mouse actions")
    print(f"goals: mouse <= {MOUSE_GOAL}: {'met' if mouse.mouse <= MOUSE_GOAL else 'missed'}; ", end="")
    print(f"keyboard <= {KEYS_GOAL}: {'met' if keys.keys <= KEYS_GOAL else 'missed'}")


if __name__ == "__main__":
    main()
