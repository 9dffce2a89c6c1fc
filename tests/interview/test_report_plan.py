"""After submit the report shows the reference's plan with its figures at the round's values, a variant's
too (issue 31); before submit no page of the round shows it, and nobody but the round's people sees it."""

import pytest

from rounds.models import Round
from rounds.services.rounds import round_start, round_submit
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db


@pytest.fixture
def variant_round(tmp_path, alice):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice", variant=True, seed=5)
    # Pin the drawn values: 64,000-token conversations, prefill at 50% MFU, NVMe at 25 GB/s, 0.2 returns/s.
    values = {"context_tokens": 64000.0, "mfu_prefill": 0.5, "nvme_bw": 25e9, "return_rate": 0.2}
    Round.objects.filter(pk=round_.pk).update(variant_values={**round_.variant_values, **values})
    return Round.objects.get(pk=round_.pk)


def plan_section(page: str) -> str:
    return page.split('id="answer-plan"', 1)[1].split("</section>", 1)[0]


def test_a_variant_rounds_report_shows_the_plan_at_the_variants_values(client, alice, variant_round):
    round_submit(round_id=variant_round.pk)
    client.force_login(alice)
    plan = plan_section(client.get(f"/rounds/{variant_round.pk}/report/").content.decode())
    # By hand: 64,000 tok x 327,680 B/tok (2 x 80 x 8 x 128 x 2 B) = 20.97 GB, "21 GB" at three figures.
    assert "64,000 tokens = 21 GB;" in plan
    # HBM for KV: 640 GB x 0.9 - 70,553,706,496 x 2 B = 434.9 GB; / 20.97 GB = 20.7: 20 whole conversations.
    assert "~20 conversations fit in HBM" in plan
    # Recompute: (2 x 70.55e9 x 64,000 + 2 x 80 x 8,192 x 64,000^2) FLOP / (8 x 989 TFLOP/s x 0.5) = 3.64 s.
    assert "recompute ~3.64 s" in plan
    # The defaults' figures are gone: 30,000 tokens, 9.83 GB (30,000 x 327,680 B), ~44 conversations, 1.37 s.
    assert "30,000" not in plan and "9.83 GB" not in plan and "~44 " not in plan and "1.37 s" not in plan
    assert "{" not in plan and "…" not in plan


def test_a_round_at_the_defaults_shows_the_defaults_figures(tmp_path, client, alice):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_submit(round_id=round_start(candidate=alice, question=question, mode="practice").pk)
    client.force_login(alice)
    plan = plan_section(client.get(f"/rounds/{round_.pk}/report/").content.decode())
    # By hand: 30,000 tok x 327,680 B/tok = 9.8304 GB; (434.9 GB) / 9.83 GB = 44.2: 44 conversations.
    assert "30,000 tokens = 9.83 GB;" in plan and "~44 conversations fit in HBM" in plan


def test_before_submit_the_plan_is_on_no_page_of_the_round(client, alice, variant_round):
    client.force_login(alice)
    page = client.get(f"/rounds/{variant_round.pk}/").content.decode()
    assert 'id="answer-plan"' not in page and "21 GB" not in page and "3.64 s" not in page
    report = client.get(f"/rounds/{variant_round.pk}/report/")
    assert report.status_code == 302 and report["Location"] == f"/rounds/{variant_round.pk}/"


def test_nobody_else_reads_the_submitted_rounds_plan(client, charlie, variant_round):
    round_submit(round_id=variant_round.pk)
    client.force_login(charlie)
    assert client.get(f"/rounds/{variant_round.pk}/report/").status_code == 404
