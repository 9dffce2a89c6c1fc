"""A variant round's title and prompt speak of the variant's values (issue 31); the question page and the
catalogue read the question's own values, never a placeholder."""

import pytest

from rounds.models import Round
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import load_questions

pytestmark = pytest.mark.django_db
SLUG = "two-region-failover"


@pytest.fixture
def question(tmp_path):
    return load_questions(tmp_path, SLUG)[SLUG]


def test_a_variant_round_reads_its_own_regions_and_load(client, alice, question):
    round_ = round_start(candidate=alice, question=question, mode="practice", variant=True, seed=5)
    # Pin the drawn values to known ones: three regions at 69% (base units: a count and a fraction).
    Round.objects.filter(pk=round_.pk).update(
        variant_values={**round_.variant_values, "n_regions": 3.0, "util": 0.69}
    )
    round_ = Round.objects.get(pk=round_.pk)
    assert round_.title == "3 regions at 69%: the first half-minute after one of them drops"
    client.force_login(alice)
    page = client.get(f"/rounds/{round_.pk}/").content.decode()
    assert "We serve our LLM API from 3 regions, each running at about 69% of its capacity at peak." in page
    assert "3 regions at 69%: the first half-minute" in page
    assert "{n_regions" not in page and "2 regions" not in page and "60%" not in page


def test_the_question_page_and_the_catalogue_read_the_questions_own_values(client, alice, question):
    assert question.title == "2 regions at 60%: the first half-minute after one of them drops"
    client.force_login(alice)
    page = client.get(f"/questions/{SLUG}/").content.decode()
    assert "We serve our LLM API from 2 regions, each running at about 60% of its capacity at peak." in page
    assert "{n_regions" not in page and "{util" not in page
    api = client.get(f"/api/questions/{SLUG}/").json()
    assert api["title"].startswith("2 regions at 60%")
    assert api["spec"]["prompt"].startswith("We serve our LLM API from 2 regions")


def test_the_interviewers_console_reads_the_variants_plan_and_prompt(alice, question):
    from interview.views.interviewer import _live_context

    round_ = round_start(candidate=alice, question=question, mode="practice", variant=True, seed=5)
    Round.objects.filter(pk=round_.pk).update(
        variant_values={**round_.variant_values, "n_regions": 4.0, "util": 0.45}
    )
    round_ = Round.objects.get(pk=round_.pk)
    live = _live_context(round_)
    assert live["clock"]["phase"] == "intro"
    assert live["clock"]["phase_expect"].startswith("Restates: 4 regions at 45% peak,")
    assert round_.shown_spec["prompt"].startswith(
        "We serve our LLM API from 4 regions, each running at about 45%"
    )


def test_the_interviewer_sees_a_review_rounds_second_sheet_apart_with_the_reference_fix(tmp_path, alice):
    from interview.views.interviewer import _live_context
    from rounds.models import Work

    slug = "gateway-fallback-review"
    review = load_questions(tmp_path / "review", slug)[slug]
    round_ = round_start(candidate=alice, question=review, mode="practice")
    work = Work.objects.get(round=round_)
    Work.objects.filter(pk=work.pk).update(numbers={**work.numbers, "fixed--replicas": "7"})
    rows = {row["name"]: row for row in _live_context(Round.objects.get(pk=round_.pk))["fixed_sheet"]}
    assert (rows["replicas"]["given"], rows["replicas"]["yours"], rows["replicas"]["reference"]) == (
        "4 replicas",
        "7",
        "10 replicas",
    )
    assert rows["max_batch"]["yours"] == "256 req"  # left as the given design has it


def test_a_kv_cache_variant_shows_its_answers_to_the_interviewer_in_the_arithmetic_phase_only(
    tmp_path, client, alice
):
    from datetime import timedelta

    from interview.views.interviewer import _live_context

    slug = "kv-cache-tiering"
    question = load_questions(tmp_path / "kv", slug)[slug]
    round_ = round_start(candidate=alice, question=question, mode="timed", variant=True, seed=5)
    # 64,000-token conversations; 14 minutes in: past intro (1), numbers (5) and shape (7), in arithmetic.
    Round.objects.filter(pk=round_.pk).update(
        variant_values={**round_.variant_values, "context_tokens": 64000.0, "mfu_prefill": 0.5},
        started_at=round_.started_at - timedelta(minutes=14),
    )
    round_ = Round.objects.get(pk=round_.pk)
    live = _live_context(round_)
    assert live["clock"]["phase"] == "arithmetic"
    # By hand: 64,000 tok x 327,680 B/tok = 20.97 GB, written "21 GB" at three figures.
    assert "64,000 tokens = 21 GB;" in live["clock"]["phase_expect"]
    client.force_login(alice)
    page_response = client.get(f"/rounds/{round_.pk}/")
    clock_response = client.get(f"/rounds/{round_.pk}/clock/")
    assert (page_response.status_code, clock_response.status_code) == (200, 200)
    page, clock = page_response.content.decode(), clock_response.content.decode()
    assert "64,000 tokens" in page  # the variant's premise
    assert "21 GB" not in page + clock and "20.97" not in page + clock


def test_a_variant_rounds_replays_run_at_the_variants_values(alice, question):
    from rounds.models import ReplayRun
    from rounds.services.replays import replays_enqueue_for_round

    round_ = round_start(candidate=alice, question=question, mode="practice", variant=True, seed=5)
    Round.objects.filter(pk=round_.pk).update(
        variant_values={**round_.variant_values, "n_regions": 3.0, "util": 0.69}
    )
    round_ = Round.objects.get(pk=round_.pk)
    replays_enqueue_for_round(round_=round_)
    runs = ReplayRun.objects.filter(round=round_, scenario="region-drops-n-minus-one")
    params = {run.side: run.inputs["params"] for run in runs}
    # By hand: a replica spends 2,000 / 28,035 s prefilling plus 10 s / 64 of shared decode = 0.2276 s a
    # request, so a region of 40 replicas carries 175.76 req/s; 3 regions at 69% offer 363.8 req/s (the
    # defaults, 2 at 60%, offer 210.9).
    assert params["reference"]["regions"] == 3 and params["candidate"]["regions"] == 3
    assert params["reference"]["arrival_rate"] == pytest.approx(363.8, rel=1e-3)
    assert params["candidate"]["arrival_rate"] == pytest.approx(363.8, rel=1e-3)  # both sides


def test_a_variant_rounds_report_scores_a_follow_up_number_against_the_band_the_variant_moves(
    tmp_path, client, alice
):
    from rounds.models import Work
    from rounds.services.rounds import round_submit

    slug = "kv-cache-tiering"
    kv = load_questions(tmp_path / "kv", slug)[slug]
    round_ = round_start(candidate=alice, question=kv, mode="practice", variant=True, seed=5)
    # 0.25 returns a second a replica, the other inputs at their defaults: the recomputes take 0.25 x
    # (1.368 s - 24.6 ms) = 33.6% of a replica, outside the defaults' 25-30% and inside it x 1.25.
    defaults = {"context_tokens": 30000.0, "mfu_prefill": 0.5, "nvme_bw": 25e9, "return_rate": 0.25}
    Round.objects.filter(pk=round_.pk).update(variant_values={**round_.variant_values, **defaults})
    depth = {"follow_ups": {"dram-tier-empty": {"order": ["returns-recompute"], "number": "33.6%"}}}
    Work.objects.filter(round=round_).update(depth=depth, depth_shown=1)  # the depth phase was opened
    round_submit(round_id=round_.pk)
    client.force_login(alice)
    page = client.get(f"/rounds/{round_.pk}/report/").content.decode()
    assert "recomputes now take: 33.6 % is inside 31.2 to 37.5 %." in page
    assert (
        "The band follows saved_frac to this round&#x27;s values: "
        "25 to 30 % at the question&#x27;s defaults × 1.25" in page
    )
