"""Backups (docs/backups.md): pg_dump -Fc of the database, pg_restore into a fresh one, and a graded round
read back through Django from the restored copy, its report identical to the byte.

The restored copy is read by a separate Django process whose DATABASE_URL names it, as a restored deployment
would (the test runner forbids a second database it did not create for the test)."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.db import connection

from rounds.models import Round
from rounds.services.rounds import round_start, round_submit
from rounds.services.work import work_save
from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[2]
READ_BACK = """
import json, sys
import django
django.setup()
from django.db import connection
from rounds.models import Round
round_ = Round.objects.select_related("work", "candidate").get(pk=int(sys.argv[1]))
with connection.cursor() as cursor:
    cursor.execute("SELECT report::text FROM interview_round WHERE id = %s", [round_.pk])
    stored = cursor.fetchone()[0]
print(json.dumps({
    "stored": stored,
    "report": round_.report,
    "score": round_.score,
    "status": round_.status,
    "submitted_at": round_.submitted_at.isoformat(),
    "candidate": round_.candidate.username,
    "numbers": round_.work.numbers,
    "scratch": round_.work.scratch,
    "revision": round_.work.revision,
    "events": round_.events.count(),
}))
"""


def stored_report(round_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT report::text FROM interview_round WHERE id = %s", [round_id])
        return cursor.fetchone()[0]


@pytest.fixture
def restore_copy(tmp_path):
    """Dump the test database and restore it into a new one; returns that database's URL. Dropped after."""
    source = connection.settings_dict
    host, port, user = (
        source["HOST"] or "127.0.0.1",
        str(source["PORT"] or 5432),
        source["USER"] or "postgres",
    )
    libpq = ["-h", host, "-p", port, "-U", user]
    env = {**os.environ, "PGPASSWORD": source.get("PASSWORD") or ""}
    name = f"{source['NAME']}_restored_{uuid.uuid4().hex[:8]}"

    def run(*command: str) -> None:
        subprocess.run(command, check=True, capture_output=True, timeout=300, env=env)

    def restore() -> str:
        dump = tmp_path / "sevenbox.dump"
        run("pg_dump", *libpq, "--format=custom", "--no-owner", f"--file={dump}", source["NAME"])
        run("createdb", *libpq, name)
        run("pg_restore", *libpq, "--no-owner", "--exit-on-error", f"--dbname={name}", str(dump))
        return f"postgres://{user}@{host}:{port}/{name}"

    yield restore
    run("dropdb", *libpq, "--if-exists", "--force", name)


def test_a_graded_round_restored_from_a_dump_reads_back_identical(tmp_path, alice, restore_copy):
    question = load_questions(tmp_path, KV_QUESTION)[KV_QUESTION]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    work_save(round_id=round_.pk, base_revision=0, numbers={"kv_conv": "9.8 GB"}, scratch="2·80")
    round_submit(round_id=round_.pk)
    original = Round.objects.select_related("work").get(pk=round_.pk)

    url = restore_copy()
    result = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(round_.pk)],
        cwd=REPO,
        env={**os.environ, "DATABASE_URL": url, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    copy = json.loads(result.stdout.strip().splitlines()[-1])

    assert copy["stored"].encode() == stored_report(round_.pk).encode()  # byte for byte, as stored
    assert json.dumps(copy["report"], sort_keys=True) == json.dumps(original.report, sort_keys=True)
    assert copy["score"] == original.score and copy["status"] == original.status
    assert copy["submitted_at"] == original.submitted_at.isoformat()
    assert copy["candidate"] == "alice" and copy["numbers"] == original.work.numbers
    assert copy["scratch"] == "2·80" and copy["revision"] == original.work.revision == 1
    assert copy["events"] == original.events.count() == 2
