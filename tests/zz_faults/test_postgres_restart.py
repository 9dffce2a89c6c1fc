"""PostgreSQL restarted while a candidate's autosave keeps saving: saves fail cleanly (503 JSON the client
retries), succeed again afterwards without restarting the app, and nothing acknowledged before is lost."""

import threading
import time

import pytest
import requests
from django.test import Client

from rounds.models import Work, WorkEvent
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions
from tests.waiting import wait_for
from tests.zz_faults.services import postgres_restart

pytestmark = pytest.mark.django_db(transaction=True)

CSRF = "f" * 32
FIELD = "kv_conv"


class Autosave:
    """What round.js does: save with the last acknowledged revision; retry on anything but 409 and 423."""

    def __init__(self, base_url: str, round_id: int, sessionid: str) -> None:
        self.url = f"{base_url}/rounds/{round_id}/save/"
        self.session = requests.Session()
        self.session.cookies.set("sessionid", sessionid)
        self.session.cookies.set("csrftoken", CSRF)
        self.revision = 0
        self.acknowledged: dict[int, str] = {}  # revision -> the text that revision saved
        self.answers: list[tuple[float, int, dict]] = []
        self.counter = 0

    def save_once(self) -> int:
        self.counter += 1
        text = f"{300 + self.counter} KiB/tok"
        response = self.session.post(
            self.url,
            json={"revision": self.revision, "numbers": {FIELD: text}},
            headers={"X-CSRFToken": CSRF, "Accept": "application/json"},
            timeout=30,
        )
        body = response.json()  # every answer, even a failure, is JSON the client can read
        self.answers.append((time.monotonic(), response.status_code, body))
        if response.status_code == 200:
            self.revision = body["revision"]
            self.acknowledged[self.revision] = text
        elif response.status_code == 409:  # a save whose commit outcome was unknown did land: catch up
            self.revision = body["current_revision"]
        return response.status_code


def test_saves_fail_cleanly_during_a_postgres_restart_and_succeed_after_it(tmp_path, alice, live_server):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client = Client()
    client.force_login(alice)
    autosave = Autosave(live_server.url, round_.pk, client.cookies["sessionid"].value)
    for _ in range(3):
        assert autosave.save_once() == 200
    saved_before = dict(autosave.acknowledged)

    stop = threading.Event()
    errors: list[BaseException] = []

    def keep_saving() -> None:
        try:
            while not stop.is_set():
                autosave.save_once()
                time.sleep(0.05)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    saver = threading.Thread(target=keep_saving, daemon=True)
    saver.start()
    try:
        time.sleep(0.3)
        postgres_restart()
        restarted_at = time.monotonic()
        wait_for(
            lambda: sum(1 for t, code, _ in autosave.answers if t > restarted_at and code == 200) >= 3,
            timeout_s=30,
            what="saves to succeed again after the restart",
        )
    finally:
        stop.set()
        saver.join(timeout=30)

    assert not errors, errors
    codes = [code for _, code, _ in autosave.answers]
    assert set(codes) <= {200, 409, 503}, codes
    assert 503 in codes, "no save met the restart: the test proved nothing"
    for _, code, body in autosave.answers:
        if code == 503:
            assert "database is restarting" in body["error"] and body["retry"] is True

    # Nothing acknowledged is lost: each acknowledged revision is in the history with its text, and the sheet
    # holds the last one.
    assert set(saved_before) <= set(autosave.acknowledged)
    history = dict(
        WorkEvent.objects.filter(round=round_, field=f"numbers.{FIELD}").values_list("revision", "value")
    )
    for revision, text in autosave.acknowledged.items():
        assert history[revision] == text
    work = Work.objects.get(round=round_)
    assert work.revision == autosave.revision
    assert work.numbers[FIELD] == history[work.revision]

    # The pages serve again, from the same server process.
    page = autosave.session.get(f"{live_server.url}/rounds/{round_.pk}/", timeout=30)
    assert page.status_code == 200


def test_a_page_answers_503_html_and_an_api_call_503_json_while_the_database_is_unreachable(rf, settings):
    from django.db import OperationalError

    from config.db_errors import DatabaseUnavailableMiddleware

    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    page = middleware.process_exception(rf.get("/rounds/1/"), OperationalError("server closed"))
    api = middleware.process_exception(rf.get("/api/rounds/"), OperationalError("server closed"))
    assert page.status_code == 503 and b"database is restarting" in page.content
    assert page["Content-Type"].startswith("text/html") and page["Retry-After"] == "5"
    assert api.status_code == 503 and api["Content-Type"] == "application/json"
    assert middleware.process_exception(rf.get("/"), ValueError("a bug")) is None
