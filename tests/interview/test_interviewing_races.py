"""A single-use link stays single-use when several interviewers click it at once (threads with their own
connections)."""

import contextlib
import threading

import pytest
from django.db import connection

from interview.models import Invitation
from interview.roles import Role
from interview.services.interviewing.errors import InvitationInvalid
from interview.services.interviewing.invitations import invitation_accept, invitation_create_link
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

CLICKS = 6

pytestmark = pytest.mark.django_db(transaction=True)


def test_only_one_of_many_simultaneous_accepts_of_a_link_wins(transactional_db, tmp_path, alice, make_user):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="timed")
    _, token = invitation_create_link(round_=round_, created_by=alice)
    interviewers = [make_user(f"interviewer{i}", Role.INTERVIEWER) for i in range(CLICKS)]
    barrier = threading.Barrier(CLICKS)
    # SQLite's shared in-memory test database refuses concurrent writers instead of waiting: take turns there.
    turns = threading.Lock() if connection.vendor == "sqlite" else contextlib.nullcontext()
    outcomes: list[str] = []

    def click(user) -> None:
        try:
            barrier.wait()
            with turns:
                invitation_accept(token=token, user=user)
            outcomes.append("accepted")
        except InvitationInvalid:
            outcomes.append("refused")
        except BaseException as error:  # noqa: BLE001 - reported by the assertion
            outcomes.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=click, args=(user,)) for user in interviewers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["accepted"] + ["refused"] * (CLICKS - 1)
    assert Invitation.objects.filter(round=round_, used_at__isnull=False).count() == 1
