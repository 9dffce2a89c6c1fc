"""A database at the schema before the apps moved (issue 29) migrates forward without losing a row.

The database is put back at that schema: the migrations are unapplied down to interview's and drills' last
ones before the move, and the tables of the removed designs and grading apps are made again by their own
migrations as they were (kept in tests/rounds/before_the_move/migrations). Rows are written through that
schema's models, the migrations run forward, and every row is read back through today's models.
"""

import importlib

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from drills.models import DrillCard
from interview.models import Comment, Invitation
from questions.models import Question
from rounds.models import ReferenceCheck, ReplayRun, Round, Work, WorkEvent

BEFORE_THE_MOVE = [("interview", "0009_version_title"), ("drills", "0001_initial")]
NEW_APPS_UNAPPLIED = [("rounds", None), ("questions", None)]
LEGACY_MIGRATIONS = [
    ("designs", "0001_initial"),
    ("designs", "0002_work_fixes"),
    ("designs", "0003_workevent_one_index"),
    ("grading", "0001_initial"),
]
LEGACY_TABLES = ["designs_workevent", "designs_work", "grading_replayrun"]


def _database_before_the_move():
    """Unapply the move, then remake the removed apps' tables with their own migrations; return the state."""
    MigrationExecutor(connection).migrate(BEFORE_THE_MOVE + NEW_APPS_UNAPPLIED)
    with connection.schema_editor() as editor:
        for table in LEGACY_TABLES:
            editor.execute(f"DROP TABLE {editor.quote_name(table)}")
    state = MigrationExecutor(connection).loader.project_state(BEFORE_THE_MOVE)
    recorder = MigrationRecorder(connection)
    for app_label, name in LEGACY_MIGRATIONS:
        module = importlib.import_module(f"tests.rounds.before_the_move.migrations.{app_label}_{name}")
        for operation in module.Migration.operations:
            new_state = state.clone()
            operation.state_forwards(app_label, new_state)
            with connection.schema_editor() as editor:
                operation.database_forwards(app_label, editor, state, new_state)
            state = new_state
        recorder.record_applied(app_label, name)
    return state


def _fill(apps) -> dict:
    user_model = apps.get_model("auth", "User")
    alice = user_model.objects.create(username="alice")
    bob = user_model.objects.create(username="bob")
    publish = apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="interview", codename="publish_questions"
    )
    bob.user_permissions.add(publish)
    question = apps.get_model("interview", "Question").objects.create(
        slug="kv-moved", title="KV moved", track="inference", difficulty="medium"
    )
    version = apps.get_model("interview", "QuestionVersion").objects.create(
        question=question, number=1, spec={"title": "KV moved"}, title="KV moved", content_hash="ab" * 32
    )
    question.current_version = version
    question.save()
    round_ = apps.get_model("interview", "Round").objects.create(
        candidate=alice, question_version=version, status="submitted", score=71.5, report={"scores": {"x": 1}}
    )
    apps.get_model("designs", "Work").objects.create(
        round=round_,
        design={"nodes": [{"id": "n1", "kind": "gateway"}]},
        numbers={"rate": "40 req/s"},
        revision=3,
    )
    apps.get_model("designs", "WorkEvent").objects.create(
        round=round_, revision=3, t=12.5, phase="estimate", field="numbers.rate", value="40 req/s"
    )
    apps.get_model("grading", "ReplayRun").objects.create(
        round=round_, scenario="burst", side="candidate", seed=7, simulator_version="s1", status="done"
    )
    apps.get_model("interview", "ReferenceCheck").objects.create(user=alice, question=question)
    apps.get_model("interview", "Comment").objects.create(
        question=question, author=bob, body_markdown="why 64?", body_html="<p>why 64?</p>"
    )
    apps.get_model("interview", "Invitation").objects.create(round=round_, interviewer=bob, created_by=alice)
    apps.get_model("drills", "DrillCard").objects.create(user=alice, question=question, line="rate")
    work_type = apps.get_model("contenttypes", "ContentType").objects.get(app_label="designs", model="work")
    return {"round": round_.pk, "question": question.pk, "version": version.pk, "work_type": work_type.pk}


@pytest.mark.django_db(transaction=True)
def test_rows_written_before_the_move_are_read_by_todays_models():
    ids = _fill(_database_before_the_move().apps)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()

    round_ = Round.objects.get(pk=ids["round"])
    assert (round_.candidate.username, round_.status, round_.score) == ("alice", "submitted", 71.5)
    assert round_.question_version.pk == ids["version"]
    assert Question.objects.get(pk=ids["question"]).current_version_id == ids["version"]
    work = Work.objects.get(round=round_)
    assert work.design["nodes"][0]["kind"] == "gateway"
    assert (work.numbers, work.revision) == ({"rate": "40 req/s"}, 3)
    assert list(WorkEvent.objects.filter(round=round_).values_list("field", "value")) == [
        ("numbers.rate", "40 req/s")
    ]
    assert ReplayRun.objects.get(round=round_).scenario == "burst"
    assert ReferenceCheck.objects.get(user__username="alice").question_id == ids["question"]
    assert Comment.objects.get(question_id=ids["question"]).body_markdown == "why 64?"
    assert Invitation.objects.get(round=round_).interviewer.username == "bob"
    assert DrillCard.objects.get(question_id=ids["question"]).line == "rate"
    # Content types follow the models, so what was granted on them still holds.
    assert ContentType.objects.get_for_model(Work).pk == ids["work_type"]
    bob = get_user_model().objects.get(username="bob")
    assert bob.has_perm("questions.publish_questions")
    old_grants = Permission.objects.filter(content_type__app_label="interview", codename="publish_questions")
    assert not old_grants.exists()


@pytest.mark.django_db(transaction=True)
def test_a_new_database_gets_the_moved_tables_from_the_new_apps():
    tables = set(connection.introspection.table_names())
    moved = {
        "interview_question",
        "interview_round",
        "designs_work",
        "designs_workevent",
        "grading_replayrun",
    }
    assert moved <= tables
    applied = MigrationRecorder(connection).applied_migrations()
    assert ("rounds", "0001_initial") in applied and ("questions", "0001_initial") in applied
