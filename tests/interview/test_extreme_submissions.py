"""Whatever a candidate types, submitting works and the report page renders: for every question of the
bank, a seeded mix of zeros, negatives, 1e30 and tiny numbers (and one size typed into every field) is saved,
the round is submitted, its replay jobs run, and nothing stored holds NaN or infinity. A round whose deadline
passed is graded when it is looked at, and that never fails the page."""

import html
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, example, given, settings

from rounds.models import ReplayRun, ReplayStatus, Round, RoundStatus
from rounds.services import replays
from rounds.services.replays import replay_execute
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from rounds.validation import WorkError
from tests.core.test_sim_extreme_inputs import SLUGS, typed_numbers
from tests.core.test_typed_input_properties import NOT_A_NUMBER, typed_sheets
from tests.interview.bank_fixtures import load_questions

pytestmark = pytest.mark.django_db

REVIEWS = [slug for slug in SLUGS if "review" in slug]


@pytest.fixture
def sent(monkeypatch):
    published: list[int] = []
    monkeypatch.setattr(replays, "_publish", published.append)
    return published


def finite(value) -> None:
    json.dumps(value, allow_nan=False)  # PostgreSQL refuses NaN in JSON, so a stored NaN is a 500 there


def submit_with(alice, question, numbers, django_capture_on_commit_callbacks) -> Round:
    round_ = round_start(candidate=alice, question=question, mode="practice")
    work_save(round_id=round_.pk, base_revision=round_.work.revision, numbers=numbers)
    with django_capture_on_commit_callbacks(execute=True):
        return round_submit(round_id=round_.pk)


@pytest.mark.parametrize("mix", ["extremes", "same size everywhere"])
def test_every_bank_question_submits_and_reports_whatever_is_typed(
    client, alice, tmp_path: Path, sent, mix, django_capture_on_commit_callbacks
):
    questions = load_questions(tmp_path, *SLUGS)
    client.force_login(alice)
    for slug in SLUGS:
        round_ = submit_with(
            alice, questions[slug], typed_numbers(slug, mix), django_capture_on_commit_callbacks
        )
        assert round_.status == RoundStatus.SUBMITTED, slug
        finite(round_.report)
        page = client.get(f"/rounds/{round_.pk}/report/")
        assert page.status_code == 200, slug


@pytest.mark.parametrize("slug", REVIEWS)
def test_a_review_round_with_ninety_gigabytes_everywhere_replays_and_reports(
    client, alice, tmp_path: Path, sent, slug, django_capture_on_commit_callbacks
):
    question = load_questions(tmp_path, slug)[slug]
    round_ = submit_with(
        alice, question, typed_numbers(slug, "same size everywhere"), django_capture_on_commit_callbacks
    )
    # every run, not only the two the fair queue sent first: the test is the worker here
    for run_id in ReplayRun.objects.filter(round=round_).values_list("pk", flat=True):
        assert replay_execute(run_id=run_id) in ("done", "failed")
    for run in ReplayRun.objects.filter(round=round_):
        finite(run.result)
        assert run.status == ReplayStatus.DONE or run.error  # a refusal says why, naming the input
    client.force_login(alice)
    page = client.get(f"/rounds/{round_.pk}/report/")
    assert page.status_code == 200
    round_.refresh_from_db()
    finite(round_.report)
    assert round_.report["review"]["replays"].get("pending") is None and round_.score is not None


def test_an_expired_round_with_extreme_numbers_is_graded_when_its_pages_are_viewed(
    client, alice, tmp_path: Path, sent
):
    slug = "training-cluster-review"
    question = load_questions(tmp_path, slug)[slug]
    round_ = round_start(candidate=alice, question=question, mode="timed")
    work_save(round_id=round_.pk, base_revision=0, numbers=typed_numbers(slug, "extremes"))
    Round.objects.filter(pk=round_.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    client.force_login(alice)
    for url in (f"/rounds/{round_.pk}/", f"/rounds/{round_.pk}/report/"):
        assert client.get(url, follow=True).status_code == 200, url
    round_.refresh_from_db()
    assert round_.status == RoundStatus.SUBMITTED
    finite(round_.report)


UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # NUL, lone surrogates


@pytest.fixture
def bank(tmp_path: Path):
    return load_questions(tmp_path, *SLUGS)


# Derandomized and without the example database, so every run (and CI) submits the same sheets; the rounds of
# one run pile up in the test's transaction, as a candidate's practice rounds do.
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sheet=typed_sheets())
@example(sheet=("kv-cache-tiering", {"kv_conv": "1e308"}))  # was "∞× too high" on the page
@example(sheet=("ten-thousand-gpu-cluster", {"train_flops": "1e-300"}))  # was a 500 (math domain error)
@example(sheet=("kv-cache-tiering", {"kv_conv": "5\x00 GB"}))  # refused at save, naming the field
def test_a_round_with_random_typed_text_submits_and_its_report_page_shows_no_nan_or_infinity(
    client, alice, bank, sent, django_capture_on_commit_callbacks, sheet
):
    slug, numbers = sheet
    try:
        round_ = submit_with(alice, bank[slug], numbers, django_capture_on_commit_callbacks)
    except WorkError as refusal:  # NUL or a lone surrogate, which PostgreSQL cannot store: a 400 naming it
        assert str(refusal).startswith(
            "Invalid input: numbers: the text holds a character that cannot be stored"
        )
        assert any(UNSTORABLE.search(text) for text in numbers.values())
        return
    assert round_.status == RoundStatus.SUBMITTED
    finite(round_.report)
    client.force_login(alice)
    page = client.get(f"/rounds/{round_.pk}/report/")
    assert page.status_code == 200
    shown = page.content.decode()
    for text in sorted(numbers.values(), key=len, reverse=True):  # what they typed is echoed: "nan" may be
        shown = shown.replace(html.escape(text.strip()), "").replace(text.strip(), "")
    assert not NOT_A_NUMBER.search(re.sub(r"<[^>]*>", " ", shown)), slug
