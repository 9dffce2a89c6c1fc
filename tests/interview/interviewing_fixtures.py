"""Shared set-up for the interviewing tests: a question, alice's round, bob invited by username."""

import pytest

from interview.services.interviewing.invitations import invitation_create_for_username
from rounds.models import Round
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import KV_QUESTION, load_questions


@pytest.fixture
def kv_question(tmp_path, db):
    return load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]


@pytest.fixture
def alice_round(alice, kv_question) -> Round:
    return round_start(candidate=alice, question=kv_question, mode="timed")


@pytest.fixture
def invited_round(alice_round, alice, bob) -> Round:
    invitation_create_for_username(round_=alice_round, created_by=alice, username="bob")
    return alice_round
