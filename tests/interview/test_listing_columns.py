"""The history and the catalogue list stored columns: no round's report, no version's spec is read."""

import importlib
import re

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.template.defaultfilters import floatformat
from django.test.utils import CaptureQueriesContext

from rounds.models import Round
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions

pytestmark = pytest.mark.django_db

JSON_COLUMNS = ('"interview_round"."report"', '"interview_questionversion"."spec"')


@pytest.fixture
def questions(tmp_path):
    return load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)


@pytest.fixture
def submitted(alice, questions):
    round_ = round_start(candidate=alice, question=questions[KV_QUESTION], mode="practice")
    work_save(round_id=round_.pk, base_revision=0, numbers={"kv_conv": "9.8 GB"})
    return round_submit(round_id=round_.pk)


def json_columns_read(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries if any(column in query["sql"] for column in JSON_COLUMNS)]


def test_the_history_shows_the_reports_scores_without_reading_a_report_or_a_spec(
    client, alice, questions, submitted
):
    round_start(candidate=alice, question=questions[PLAN_QUESTION], mode="timed")
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/rounds/").content.decode()
    assert json_columns_read(queries) == []
    scores = submitted.report["scores"]
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)
    (row,) = [row for row in rows if f'href="/rounds/{submitted.pk}/report/"' in row]
    cells = re.findall(r"<td>([^<]*)</td>", row)[-4:]
    assert cells == [floatformat(scores[phase], 0) for phase in ("numbers", "shape", "arithmetic", "overall")]
    assert questions[KV_QUESTION].title in page and questions[PLAN_QUESTION].title in page
    assert "Resume" in page


def test_the_catalogue_lists_the_bank_without_reading_a_spec(client, alice, questions, submitted):
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/").content.decode()
    assert json_columns_read(queries) == []
    assert questions[KV_QUESTION].title in page and questions[PLAN_QUESTION].title in page
    assert f"best {floatformat(submitted.score, 0)}" in page


def _apps_at(interview_migration: str):
    """The models as that migration saw them (since issue 29 the question and round models live elsewhere)."""
    return MigrationExecutor(connection).loader.project_state(("interview", interview_migration)).apps


def test_the_version_title_migration_copies_each_specs_title(questions):
    from questions.models import QuestionVersion

    QuestionVersion.objects.update(title="")
    migration = importlib.import_module("interview.migrations.0009_version_title")
    migration.version_titles_fill(_apps_at("0009_version_title"), connection.schema_editor())
    for version in QuestionVersion.objects.all():
        assert version.title == version.spec["title"] and version.title


def test_the_migration_copies_existing_reports_scores_into_the_columns(submitted):
    Round.objects.update(score_numbers=None, score_shape=None, score_arithmetic=None)
    migration = importlib.import_module("interview.migrations.0007_round_phase_scores")
    migration.round_scores_fill(_apps_at("0007_round_phase_scores"), connection.schema_editor())
    stored = Round.objects.values("score_numbers", "score_shape", "score_arithmetic").get(pk=submitted.pk)
    scores = submitted.report["scores"]
    assert stored == {f"score_{phase}": scores[phase] for phase in ("numbers", "shape", "arithmetic")}
    assert scores["numbers"] is not None
