"""Every number the report shows agrees with every other: each bank question answered three ways (the
reference's numbers, every line at 0.4 times its reference, every line at 2.5 times), submitted, replayed by a
real Celery worker and its report page read back. The failure-modes score in the header is the one in its
section, each scenario's score is what its "met in m of N runs" allows (never full marks beside a miss), the
score is the mean of the scenarios', and a review's "meets k of T" counts the scenarios met in every run.

The bank's serving scenarios are replayed at a fiftieth of their length (arrivals and events scaled alike),
so the whole bank fits in a few minutes; the report's arithmetic does not depend on the length."""

import re
import statistics

import pytest
import yaml
from django.urls import reverse

from grading.core.grader import grade
from grading.core.question_files import read_yaml
from questions.models import Question
from questions.services.question_bank import CORE_PACK, question_bank_load
from rounds.models import FINISHED_STATUSES, ReplayRun, Work
from rounds.services.rounds import round_start, round_submit
from tests.conftest import USES_POSTGRES, USES_REDIS
from tests.waiting import wait_for

NEEDS_SERVICES = "the real worker's writes beside the test's need PostgreSQL and Redis"
TIME_SCALE = 0.02
ANSWERS = {"reference": None, "weak": 0.4, "oversized": 2.5}
SCENARIO_ROW = re.compile(
    r'<li id="failure-score-(?P<name>[\w-]+)" data-credit="(?P<credit>[\d.]+)" data-met="(?P<met>\d+)" '
    r'data-runs="(?P<runs>\d+)"><strong>[^<]*: (?P<score>\d+) / 100\.</strong>(?P<lines>.*?)</li>',
    re.S,
)


def shortened(scenario: dict) -> dict:
    if scenario["family"] != "serving":
        return scenario
    events = [
        {**event, **{key: event[key] * TIME_SCALE for key in ("at", "duration") if key in event}}
        for event in scenario.get("events") or []
    ]
    return {**scenario, "duration_s": scenario["duration_s"] * TIME_SCALE, "events": events}


@pytest.fixture
def short_bank(tmp_path, transactional_db) -> list[Question]:
    folder = tmp_path / "bank"
    folder.mkdir()
    for path in sorted(CORE_PACK.glob("*.yaml")):
        data = read_yaml(path)  # the bank's reading rules: an id like "on" stays text
        if isinstance(data, dict) and data.get("scenarios"):
            data["scenarios"] = [shortened(scenario) for scenario in data["scenarios"]]
        (folder / path.name).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    report = question_bank_load(folder=folder)
    assert not report.errors, report.errors
    return [
        q for q in Question.objects.exclude(current_version=None) if q.current_version.spec.get("scenarios")
    ]


def typed(question: Question, factor: float | None) -> dict[str, str]:
    """Every asked line at `factor` times its reference, as a bare number (read in the line's unit); a line
    whose reference is no limit (null: a multiple of it is still no limit) is left to the given design."""
    if factor is None:
        return {}
    lines = grade(question.current_version.spec, {"numbers": {}})["lines"]
    return {
        line["name"]: f"{line['reference'] * factor:.4g}" for line in lines if line["reference"] is not None
    }


def submitted(alice, question: Question, numbers: dict[str, str]):
    round_ = round_start(candidate=alice, question=question, mode="practice")
    work = Work.objects.get(round=round_)
    Work.objects.filter(pk=work.pk).update(numbers={**work.numbers, **numbers})
    return round_submit(round_id=round_.pk)


def check_report(html: str, *, review: bool) -> None:
    header = re.search(r"failure modes <strong>(\d+) / 100</strong>", html)
    rows = list(SCENARIO_ROW.finditer(html))
    shown = re.search(r'<p id="report-header".*?</p>', html, re.S)
    assert header and rows, f"no failure-modes score or scenarios: {shown.group(0) if shown else html[:300]}"
    section = re.search(r'<span id="failure-score-value">(\d+)</span>', html)
    assert section and section.group(1) == header.group(1)
    scores = []
    for row in rows:
        met, runs, score = int(row["met"]), int(row["runs"]), int(row["score"])
        lines = row["lines"]
        if runs == 0:  # the simulator refused the numbers: no run, no credit
            assert "Could not be replayed on your numbers" in lines and score == 0, lines
            scores.append(0.0)
            continue
        assert f" {met} of {runs} run" in lines, lines
        breaks = "Built to break every design" in lines
        ceiling = 100 * (met + (runs - met) * (0.75 if breaks else 0.0)) / runs
        assert score <= round(ceiling) + 0.5, (row["name"], score, met, runs, lines)
        if met < runs:
            assert score < 100, (row["name"], lines)  # never full marks beside a missed run
        if "Your fleet costs" in lines and ceiling > 0:
            assert score < round(ceiling), (row["name"], lines)  # an oversized fleet earns less
        scores.append(float(row["credit"]) * 100)
    # Shown as a whole number of a score kept to one decimal: within 0.5 + 0.05 of the scenarios' mean.
    assert abs(statistics.mean(scores) - int(header.group(1))) <= 0.551
    if review:
        verdict = re.search(r"Your fixed design meets (\d+) of (\d+) scenarios|every scenario's SLO", html)
        full = sum(int(row["met"]) == int(row["runs"]) for row in rows)
        assert verdict and (verdict.group(1) is None or int(verdict.group(1)) == full)


@pytest.mark.celery_worker
@pytest.mark.skipif(not (USES_POSTGRES and USES_REDIS), reason=NEEDS_SERVICES)
def test_every_bank_report_scores_what_its_verdicts_show(client, alice, short_bank, celery_worker):
    rounds = []
    for question in short_bank:
        for factor in ANSWERS.values():
            rounds.append((question, submitted(alice, question, typed(question, factor))))
    wait_for(
        lambda: not ReplayRun.objects.exclude(status__in=FINISHED_STATUSES).exists(),
        timeout_s=600,
        interval_s=0.5,
        what="every replay to finish",
    )
    client.force_login(alice)
    for question, round_ in rounds:
        html = client.get(reverse("round-report", args=[round_.pk])).content.decode()
        review = question.current_version.spec.get("kind") == "review"
        try:
            check_report(html, review=review)
        except AssertionError as error:
            raise AssertionError(f"{question.slug}, round {round_.pk}: {error}") from None
