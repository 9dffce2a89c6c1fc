"""A round's deadline passes while the candidate is saving: each save lands wholly before the deadline (and is
graded) or is refused; none is acknowledged and then left out of the grade. Real threads on PostgreSQL."""

import json
import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from rounds.models import Round, RoundStatus, WorkEvent
from rounds.services.rounds import round_close_if_expired, round_start
from rounds.services.work import SaveResult, WorkLocked, work_save
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db(transaction=True)

FIELD = "kv_conv"
RACES = 4


def save_through_the_service(round_id: int, base_revision: int, **fields) -> SaveResult:
    return work_save(round_id=round_id, base_revision=base_revision, **fields)


def save_like_the_page(client: Client):
    """The page's autosave: a JSON POST to the save view; its 423 is the service's WorkLocked."""

    def save(round_id: int, base_revision: int, **fields) -> SaveResult:
        response = client.post(
            f"/rounds/{round_id}/save/",
            json.dumps({"revision": base_revision, **fields}),
            content_type="application/json",
        )
        if response.status_code == 423:
            raise WorkLocked(response.json()["error"])
        assert response.status_code == 200, response.content
        return SaveResult(revision=response.json()["revision"], saved_fields=response.json()["saved"])

    return save


def race_the_deadline(
    round_id: int, deadline, save: Callable[..., SaveResult]
) -> tuple[dict[int, str], list[str]]:
    """A saver hammering saves and a visitor closing the round from the deadline on, in two threads."""
    acknowledged: dict[int, str] = {}
    problems: list[str] = []
    closed = threading.Event()

    def saver() -> None:
        revision, counter = 0, 0
        try:
            while True:
                counter += 1
                text = f"{counter} KiB/tok"
                try:
                    result = save(round_id, revision, numbers={FIELD: text}, scratch=str(counter))
                except WorkLocked:
                    if closed.wait(timeout=10):  # refused: only because the round closed or time is up
                        return
                    problems.append("a save was refused before the round closed")
                    return
                revision = result.revision
                acknowledged[revision] = text
        except Exception as error:  # noqa: BLE001
            problems.append(f"saver: {error!r}")
        finally:
            connection.close()

    def closer() -> None:
        try:
            while timezone.now() < deadline - timedelta(milliseconds=20):
                time.sleep(0.005)
            while True:
                round_ = round_close_if_expired(round_=Round.objects.get(pk=round_id))
                if round_.status == RoundStatus.SUBMITTED:
                    closed.set()
                    return
        except Exception as error:  # noqa: BLE001
            problems.append(f"closer: {error!r}")
            closed.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=saver), threading.Thread(target=closer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return acknowledged, problems


@pytest.mark.parametrize("path", ["service", "page"])
def test_a_save_racing_the_deadline_is_graded_or_refused_never_acknowledged_and_lost(tmp_path, alice, path):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    if path == "page":
        client = Client()
        client.force_login(alice)
        save = save_like_the_page(client)
        # The first request of a process pays for imports and the URL resolver (~0.5 s here), most of the
        # 600 ms race: one save on a practice round first, so the race measures the save, not the warm-up.
        warm_up = round_start(candidate=alice, question=question, mode="practice")
        save(warm_up.pk, 0, numbers={FIELD: "9.8 GB"})
    else:
        save = save_through_the_service
    for _ in range(RACES):
        round_ = round_start(candidate=alice, question=question, mode="timed")
        deadline = timezone.now() + timedelta(milliseconds=600)
        Round.objects.filter(pk=round_.pk).update(deadline=deadline)

        acknowledged, problems = race_the_deadline(round_.pk, deadline, save)

        assert not problems, problems
        assert acknowledged, "no save landed before the deadline"
        round_.refresh_from_db()
        assert round_.status == RoundStatus.SUBMITTED and round_.submitted_at <= deadline
        last = max(acknowledged)
        graded = {line["name"]: line["given_text"] for line in round_.report["lines"]}
        assert graded[FIELD] == acknowledged[last], "an acknowledged save was left out of the grade"
        round_.work.refresh_from_db()
        assert round_.work.revision == last and round_.work.numbers[FIELD] == acknowledged[last]
        limit = (deadline - round_.started_at).total_seconds()
        late = WorkEvent.objects.filter(round=round_, t__gt=limit).count()
        assert late == 0, "a change was recorded after the deadline"
