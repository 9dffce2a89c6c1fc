"""The autosave's PostgreSQL path (interview/services/autosave_fast.py): it saves plain, current saves in one
statement and leaves every other case to the full path, so each refusal below must look exactly like the full
path's and write nothing, including when what the process remembers has gone out of date."""

import json
import threading
from datetime import timedelta

import psycopg
import pytest
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import DataError, connection
from django.db.models import F
from django.test import Client
from django.utils import timezone

from designs.models import Work, WorkEvent
from interview.models import Round, RoundStatus
from interview.services import autosave_fast as fast
from interview.services.rounds import round_save, round_start, round_submit
from tests.conftest import TEST_PASSWORD, USES_POSTGRES
from tests.interview.bank_fixtures import KV_QUESTION, load_questions
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        not USES_POSTGRES, reason="the fast path is PostgreSQL's: set DATABASE_URL=postgres://"
    ),
]
FIELD = "kv_bytes_per_token"


@pytest.fixture(autouse=True)
def forget_snapshots():
    fast._snapshots.clear()
    yield
    fast._snapshots.clear()


@pytest.fixture
def round_(alice, tmp_path):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    return round_start(candidate=alice, question=question, mode="timed")


@pytest.fixture
def tab(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def save(client: Client, round_: Round, **body):
    return client.post(f"/rounds/{round_.pk}/save/", json.dumps(body), content_type="application/json")


def remembered(client: Client, round_: Round) -> fast.Snapshot | None:
    return fast._snapshots.get((client.cookies["sessionid"].value, round_.pk))


def work_of(round_: Round) -> Work:
    return Work.objects.get(round=round_)


def test_a_plain_save_is_written_in_one_statement_with_its_events(tab, round_, django_assert_num_queries):
    assert save(tab, round_, revision=0, scratch="first").status_code == 200  # reads, then remembers
    with django_assert_num_queries(0):  # no ORM query: the session, user and round checks are in the write
        response = save(tab, round_, revision=1, numbers={FIELD: "320 KiB"}, scratch="second")
    assert response.status_code == 200, response.content
    assert response.json()["revision"] == 2 and response.json()["saved"] == [f"numbers.{FIELD}", "scratch"]
    work = work_of(round_)
    assert (work.revision, work.numbers, work.scratch) == (2, {FIELD: "320 KiB"}, "second")
    events = list(WorkEvent.objects.filter(round=round_).values_list("revision", "field", "value", "phase"))
    assert events == [
        (1, "scratch", "first", "intro"),
        (2, f"numbers.{FIELD}", "320 KiB", "intro"),
        (2, "scratch", "second", "intro"),
    ]
    assert remembered(tab, round_).work.revision == 2


def test_numbers_are_merged_into_the_sheet_not_replaced(tab, round_):
    save(tab, round_, revision=0, numbers={FIELD: "320 KiB"})
    save(tab, round_, revision=1, numbers={"kv_conv": "9.8 GB"})
    assert work_of(round_).numbers == {FIELD: "320 KiB", "kv_conv": "9.8 GB"}


def test_after_logging_out_the_remembered_session_saves_nothing(tab, round_):
    save(tab, round_, revision=0, scratch="mine")
    assert remembered(tab, round_) is not None
    session_key = tab.cookies["sessionid"].value
    tab.logout()
    tab.cookies["sessionid"] = session_key  # the old cookie, replayed
    response = save(tab, round_, revision=1, scratch="after logout")
    assert response.status_code == 302 and "login" in response["Location"]
    assert work_of(round_).scratch == "mine"


def test_after_a_password_change_the_old_session_saves_nothing(tab, alice, round_):
    save(tab, round_, revision=0, scratch="mine")
    assert remembered(tab, round_) is not None
    alice.set_password(TEST_PASSWORD + "-new")
    alice.save()
    response = save(tab, round_, revision=1, scratch="old session")
    assert response.status_code == 302
    assert work_of(round_).scratch == "mine"


def test_a_session_that_now_holds_someone_else_saves_nothing_in_the_old_owners_round(tab, round_, charlie):
    save(tab, round_, revision=0, scratch="mine")
    assert remembered(tab, round_) is not None
    session = SessionStore(session_key=tab.cookies["sessionid"].value)
    session[SESSION_KEY] = str(charlie.pk)
    session[HASH_SESSION_KEY] = charlie.get_session_auth_hash()
    session.save()
    assert save(tab, round_, revision=1, scratch="charlie's now").status_code == 404
    assert work_of(round_).scratch == "mine"


def test_a_deactivated_account_saves_nothing(tab, alice, round_):
    save(tab, round_, revision=0, scratch="mine")
    assert remembered(tab, round_) is not None
    alice.is_active = False
    alice.save()
    assert save(tab, round_, revision=1, scratch="inactive").status_code == 302
    assert work_of(round_).scratch == "mine"


def test_a_round_that_changed_hands_refuses_the_remembered_tab(tab, round_, charlie):
    save(tab, round_, revision=0, scratch="alice's")
    Round.objects.filter(pk=round_.pk).update(candidate=charlie)
    assert save(tab, round_, revision=1, scratch="still alice").status_code == 404
    assert work_of(round_).scratch == "alice's"


def test_someone_elses_round_answers_404_and_is_untouched(tab, round_, charlie):
    save(tab, round_, revision=0, scratch="alice's")
    intruder = Client()
    intruder.force_login(charlie)
    assert save(intruder, round_, revision=1, scratch="charlie's").status_code == 404
    assert work_of(round_).scratch == "alice's"


def test_a_round_submitted_elsewhere_refuses_the_remembered_tab(tab, round_):
    save(tab, round_, revision=0, scratch="before submit")
    assert remembered(tab, round_) is not None
    round_submit(round_id=round_.pk)
    response = save(tab, round_, revision=1, scratch="after submit")
    assert response.status_code == 423 and response.json()["locked"] is True
    assert work_of(round_).scratch == "before submit"


def test_the_deadline_locks_the_remembered_tab(tab, round_):
    save(tab, round_, revision=0, scratch="in time")
    assert remembered(tab, round_) is not None
    Round.objects.filter(pk=round_.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = save(tab, round_, revision=1, scratch="late")
    assert response.status_code == 423 and "Time is up" in response.json()["error"]
    assert Round.objects.get(pk=round_.pk).status == RoundStatus.SUBMITTED
    assert work_of(round_).scratch == "in time"


def test_a_save_made_through_another_process_makes_the_old_tab_stale(tab, alice, round_):
    save(tab, round_, revision=0, scratch="tab one")
    assert remembered(tab, round_) is not None
    round_save(round_id=round_.pk, base_revision=1, candidate_id=alice.pk, scratch="another device")
    response = save(tab, round_, revision=1, scratch="tab one again")
    assert response.status_code == 409 and response.json()["current_revision"] == 2
    assert work_of(round_).scratch == "another device"


def test_a_tab_ahead_of_what_this_process_remembers_reads_again(tab, alice, round_):
    save(tab, round_, revision=0, scratch="here")
    round_save(round_id=round_.pk, base_revision=1, candidate_id=alice.pk, numbers={FIELD: "1 KiB"})
    response = save(tab, round_, revision=2, scratch="the tab knew revision 2")
    assert response.status_code == 200 and response.json()["revision"] == 3
    assert work_of(round_).numbers == {FIELD: "1 KiB"}  # merged into the saved sheet, not the remembered one


def test_work_changed_without_a_new_revision_is_not_overwritten_from_memory(tab, round_):
    """A restored backup can hold the same revision with other content; the write time tells them apart."""
    save(tab, round_, revision=0, numbers={FIELD: "320 KiB"})
    assert remembered(tab, round_) is not None
    Work.objects.filter(round=round_).update(numbers={"kv_conv": "restored"}, updated_at=timezone.now())
    assert save(tab, round_, revision=1, scratch="note").status_code == 200
    assert work_of(round_).numbers == {"kv_conv": "restored"}


def test_work_restored_with_the_same_revision_is_compared_as_stored_not_as_remembered(tab, round_):
    """The tab sends back the text this process remembers; the database holds other text under the same
    revision, so the save must change it (a comparison with memory would find nothing to write)."""
    save(tab, round_, revision=0, scratch="remembered")
    Work.objects.filter(round=round_).update(scratch="restored", updated_at=timezone.now())
    response = save(tab, round_, revision=1, scratch="remembered", numbers={FIELD: "2 KiB"})
    assert response.status_code == 200 and response.json()["saved"] == [f"numbers.{FIELD}", "scratch"]
    assert work_of(round_).scratch == "remembered"


def test_a_revision_moved_on_without_a_new_write_time_makes_the_tab_stale(tab, round_):
    save(tab, round_, revision=0, scratch="mine")
    Work.objects.filter(round=round_).update(revision=F("revision") + 1)  # update() leaves updated_at alone
    response = save(tab, round_, revision=1, scratch="from a stale tab")
    assert response.status_code == 409 and response.json()["current_revision"] == 2
    assert work_of(round_).scratch == "mine"


def test_an_expired_session_saves_nothing(tab, round_):
    save(tab, round_, revision=0, scratch="mine")
    Session.objects.filter(session_key=tab.cookies["sessionid"].value).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    assert save(tab, round_, revision=1, scratch="expired").status_code == 302
    assert work_of(round_).scratch == "mine"


@pytest.mark.django_db(transaction=True)
def test_a_save_during_a_submit_waits_for_it_and_then_writes_nothing(tab, round_):
    """The submit locks the round and grades the work; a save must land before that lock or not at all."""
    save(tab, round_, revision=0, scratch="graded")
    answers = []
    with other_connection() as submitter, other_connection() as watcher:
        submitter.execute("BEGIN")
        submitter.execute("SELECT id FROM interview_round WHERE id = %s FOR UPDATE", [round_.pk])
        submitter.execute("UPDATE interview_round SET status = 'submitted' WHERE id = %s", [round_.pk])

        def save_now() -> None:
            answers.append(save(tab, round_, revision=1, scratch="during the submit").status_code)
            connection.close()

        thread = threading.Thread(target=save_now)
        thread.start()
        wait_for(lambda: backends_waiting_for_a_lock(watcher) == 1, timeout_s=10, what="the save to wait")
        submitter.execute("COMMIT")
        thread.join(timeout=30)
    assert answers == [423]
    assert work_of(round_).scratch == "graded"


def backends_waiting_for_a_lock(watcher: psycopg.Connection) -> int:
    """Read outside a transaction: inside one, PostgreSQL shows the same pg_stat_activity every time."""
    query = """
        SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
    """
    return watcher.execute(query).fetchone()[0]


def test_a_malformed_field_gets_the_full_paths_message(tab, round_):
    save(tab, round_, revision=0, scratch="ok")
    response = save(tab, round_, revision=1, numbers={"not_asked": "3"})
    assert response.status_code == 400 and "not_asked" in response.json()["error"]
    assert work_of(round_).revision == 1


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_database_dropped_is_replaced_and_the_save_lands(tab, round_):
    save(tab, round_, revision=0, scratch="before")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()
    terminate_backend(backend)  # what a database restart does to a persistent connection
    assert save(tab, round_, revision=1, scratch="after").status_code == 200
    assert work_of(round_).scratch == "after"

    terminate_backend(connection.connection.info.backend_pid)
    session_key = tab.cookies["sessionid"].value
    answer = fast.autosave_fast(
        session_key=session_key, round_id=round_.pk, base_revision=2, body={"scratch": "x"}
    )
    assert answer is None and connection.connection is None  # closed: the full path opens a new one


def terminate_backend(pid: int) -> None:
    with other_connection() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


def other_connection() -> psycopg.Connection:
    settings_dict = connection.settings_dict
    return psycopg.connect(
        host=settings_dict["HOST"],
        port=settings_dict["PORT"] or 5432,
        user=settings_dict["USER"],
        dbname=settings_dict["NAME"],
        autocommit=True,
    )


@pytest.mark.django_db(transaction=True)
def test_two_tabs_saving_from_the_same_revision_at_once_land_one_save(alice, round_):
    """Both tabs pass the remembered checks; the revision in the write lets exactly one through."""
    tabs = [Client(), Client()]
    for client in tabs:
        client.force_login(alice)
    save(tabs[0], round_, revision=0, scratch="start")
    for attempt in range(10):
        answers = save_at_once(tabs, round_, base=work_of(round_).revision, text=f"try {attempt}")
        assert sorted(answers) == [200, 409], answers
        assert work_of(round_).revision == attempt + 2
    assert WorkEvent.objects.filter(round=round_).count() == 11


def save_at_once(tabs: list[Client], round_: Round, *, base: int, text: str) -> list[int]:
    barrier = threading.Barrier(len(tabs))
    answers: list[int] = []

    def save_from(client: Client, index: int) -> None:
        barrier.wait()
        answers.append(save(client, round_, revision=base, scratch=f"tab {index} {text}").status_code)
        connection.close()

    threads = [threading.Thread(target=save_from, args=(client, i)) for i, client in enumerate(tabs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return answers


@pytest.mark.django_db(transaction=True)
def test_saves_arriving_during_a_write_share_the_next_statement_and_each_lands(
    alice, charlie, make_user, tmp_path, monkeypatch
):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    tabs = []
    for user in (alice, charlie, make_user("dora")):
        client = Client()
        client.force_login(user)
        round_ = round_start(candidate=user, question=question, mode="timed")
        assert save(client, round_, revision=0, scratch="first").status_code == 200
        tabs.append((client, round_))
    batch_sizes = hold_the_first_write_until_queued(monkeypatch, queued=2)

    answers = {}

    def save_from(index: int) -> None:
        client, round_ = tabs[index]
        answers[index] = save(client, round_, revision=1, scratch=f"second {index}").status_code
        connection.close()

    threads = [threading.Thread(target=save_from, args=(0,))]
    threads[0].start()
    wait_for(lambda: batch_sizes == [1], timeout_s=10, interval_s=0.002, what="the first write")
    for index in (1, 2):
        threads.append(threading.Thread(target=save_from, args=(index,)))
        threads[-1].start()
    for thread in threads:
        thread.join(timeout=30)

    assert answers == {0: 200, 1: 200, 2: 200}
    assert batch_sizes == [1, 2]  # the two saves that arrived during the first write shared the second
    for index, (_, round_) in enumerate(tabs):
        work = work_of(round_)
        assert (work.revision, work.scratch) == (2, f"second {index}")
        fields = list(WorkEvent.objects.filter(round=round_).order_by("id").values_list("revision", "value"))
        assert fields == [(1, "first"), (2, f"second {index}")]


def hold_the_first_write_until_queued(monkeypatch, *, queued: int) -> list[int]:
    """Record each write's number of saves; the first write waits until `queued` saves are waiting."""
    real = fast.execute_prepared
    sizes: list[int] = []

    def execute(name, sql, params):
        if name == fast.WRITE_STATEMENT:
            sizes.append(len(json.loads(params["batch"])))
            if len(sizes) == 1:
                wait_for(
                    lambda: len(fast._writes._queue) == queued,
                    timeout_s=10,
                    interval_s=0.002,
                    what="queued saves",
                )
        return real(name, sql, params)

    monkeypatch.setattr(fast, "execute_prepared", execute)
    return sizes


def test_a_write_the_database_refuses_sends_the_save_to_the_full_path(tab, round_, monkeypatch, caplog):
    assert save(tab, round_, revision=0, scratch="first").status_code == 200
    real = fast.execute_prepared

    def refuse_writes(name, sql, params):
        if name == fast.WRITE_STATEMENT:
            raise DataError("refused")
        return real(name, sql, params)

    monkeypatch.setattr(fast, "execute_prepared", refuse_writes)
    response = save(tab, round_, revision=1, scratch="second")
    assert response.status_code == 200 and response.json()["revision"] == 2  # written by round_save
    assert work_of(round_).scratch == "second"
    assert "each is retried on the full path" in caplog.text
