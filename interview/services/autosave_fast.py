"""The page's autosave on PostgreSQL: one statement, shared by the saves of a process that arrive together,
instead of seven ORM queries each.

An autosave is the request a round sends most (every few seconds per candidate). Through the ORM it costs a
session query, a user query, a locking read and two writes, each compiled by the ORM: ~12 times a trivial
view. Here:

- a *read* joins the session, its user, the round and the work; the session is checked with Django's own
  rule (`_session_proves_user`) and the round with the ORM path's (`round_check_writable`);
- a *write* updates the work only if its revision and write time are still the ones read, the round is still
  open and share-locked (so a submit sees the save or refuses it), and the session row and the user's password
  are still exactly those that were checked; it appends the events in the same implicit transaction. Saves
  that arrive while another write of the process is in flight are written together in the next statement
  (`group_commit`), so they share its round trip and its commit; each keeps its own conditions;
- the process keeps what the read returned (a `Snapshot`) and brings it forward after each write, so the next
  save from the same tab needs the write only. The write's conditions make a snapshot that is out of date
  (logged out, password changed, round submitted, saved from another process) fail closed.

It is a strict subset of `round_save`: whenever it cannot prove the save is a plain, current save by the
round's logged-in owner (no session, another owner, a stale page, a locked round, a malformed field, a
concurrent save, a failed statement), it writes nothing and returns None, and the caller runs the full path,
which gives the precise answer.
"""

import json
import logging
from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.models import Session
from django.db import DatabaseError, connection
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from designs.models import Work, WorkEvent
from interview.models import QuestionVersion, Round, RoundStatus
from interview.services.group_commit import GroupCommit
from interview.services.prepared_statements import (
    Unavailable,
    execute_prepared,
    first_row,
    statement_would_join_the_callers_transaction,
)
from interview.services.rounds import (
    RoundError,
    SaveResult,
    round_check_writable,
    save_position,
    work_apply_changes,
)
from interview.services.version_outline import VersionOutline, version_outline

DB_SESSION_ENGINE = "django.contrib.sessions.backends.db"
SNAPSHOTS_MAX = 2048
READ_STATEMENT = b"sevenbox_autosave_read"
WRITE_STATEMENT = b"sevenbox_autosave_write"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    """What one read proved about a (session, round) pair, and the work as this process last read or wrote
    it."""

    session_data: str
    user_id: int
    password: str
    is_active: bool
    round: Round  # the clock only: started_at, deadline; never written
    outline: VersionOutline
    work: Work  # as read or last written here; copied, never changed in place


# (session key, round id) -> Snapshot, per process; cleared when full (a miss costs one read).
_snapshots: dict[tuple[str, int], Snapshot] = {}


@cache
def _statements() -> tuple[str, str]:
    tables = {
        "work": Work._meta.db_table,
        "event": WorkEvent._meta.db_table,
        "round": Round._meta.db_table,
        "version": QuestionVersion._meta.db_table,
        "user": get_user_model()._meta.db_table,
        "session": Session._meta.db_table,
    }
    read = """
        SELECT s.session_data, u.password, u.is_active,
               r.candidate_id, r.status, r.started_at, r.deadline, r.submitted_at,
               r.question_version_id, v.content_hash,
               w.id, w.revision, w.updated_at, w.design, w.numbers, w.scratch, w.fixes
        FROM {work} w
        JOIN {round} r ON r.id = w.round_id
        JOIN {version} v ON v.id = r.question_version_id
        JOIN {user} u ON u.id = r.candidate_id
        JOIN {session} s ON s.session_key = %(session_key)s AND s.expire_date > %(now)s
        WHERE w.round_id = %(round_id)s
    """.format(**tables)  # noqa: S608 - table names from model metadata, values are parameters
    # One save per element of the batch (see _write_all); the batch's saves are written in one statement.
    write = """
        WITH open_round AS (
            SELECT b.* FROM jsonb_to_recordset(%(batch)s::jsonb) AS b(
                n integer, session_key text, session_data text, user_id bigint, password text,
                is_active boolean, round_id bigint, work_id bigint, base_revision integer,
                updated_at timestamptz, at timestamptz, design jsonb, numbers jsonb, scratch text,
                fixes jsonb, t float8, phase text, changes jsonb)
            CROSS JOIN LATERAL (
                SELECT r.id FROM {round} r
                WHERE r.id = b.round_id AND r.candidate_id = b.user_id AND r.status = %(active)s::text
                    AND (r.deadline IS NULL OR r.deadline > b.at)
                FOR SHARE
            ) AS locked
            WHERE (SELECT u.password = b.password AND u.is_active = b.is_active
                   FROM {user} u WHERE u.id = b.user_id)
                AND (SELECT s.session_data = b.session_data AND s.expire_date > b.at
                     FROM {session} s WHERE s.session_key = b.session_key)
        ), saved AS (
            UPDATE {work} w
            SET design = COALESCE(o.design, w.design),
                numbers = w.numbers || COALESCE(o.numbers, '{{}}'::jsonb),
                scratch = COALESCE(o.scratch, w.scratch),
                fixes = COALESCE(o.fixes, w.fixes),
                revision = w.revision + 1, updated_at = o.at
            FROM open_round o
            WHERE w.id = o.work_id AND w.revision = o.base_revision AND w.updated_at = o.updated_at
            RETURNING o.n, w.round_id, w.revision, o.t, o.phase, o.at, o.changes
        ), logged AS (
            INSERT INTO {event} (round_id, revision, t, phase, field, value, created_at)
            SELECT saved.round_id, saved.revision, saved.t, saved.phase, change.item->>'field',
                   change.item->'value', saved.at
            FROM saved, jsonb_array_elements(saved.changes) WITH ORDINALITY AS change(item, k)
            ORDER BY saved.n, change.k
        )
        SELECT n, revision FROM saved
    """.format(**tables)  # noqa: S608
    return read, write


def autosave_fast_available() -> bool:
    return connection.vendor == "postgresql" and settings.SESSION_ENGINE == DB_SESSION_ENGINE


def autosave_fast(
    *, session_key: str, round_id: int, base_revision: int, body: dict[str, Any]
) -> SaveResult | None:
    """Save `body`'s fields if the session's user owns the round and the save is current; None: the caller
    must use round_save."""
    if not session_key or not autosave_fast_available():
        return None
    if not statement_would_join_the_callers_transaction():
        return None
    try:
        return _save(session_key=session_key, round_id=round_id, base_revision=base_revision, body=body)
    except Unavailable:  # if the write did land, the full path answers 409 and the page catches up
        return None


def _save(*, session_key: str, round_id: int, base_revision: int, body: dict[str, Any]) -> SaveResult | None:
    now = timezone.now()
    key = (session_key, round_id)
    snapshot = _snapshots.get(key)
    remembered = snapshot is not None and snapshot.work.revision == base_revision
    if not remembered:
        snapshot = _read_snapshot(session_key=session_key, round_id=round_id, now=now)
    if snapshot is None:
        return None
    work = copy(snapshot.work)
    work.numbers = dict(work.numbers)  # work_apply_changes edits the sheet in place
    try:
        round_check_writable(snapshot.round, work, base_revision=base_revision, now=now)
        changes = work_apply_changes(
            work,
            design=body.get("design"),
            numbers=body.get("numbers"),
            scratch=body.get("scratch"),
            fixes=body.get("fixes"),
            asked=snapshot.outline.asked_names,
        )
    except RoundError:
        return None
    if not changes:
        # Only a fresh read proves the session still holds; the page sends no empty saves anyway.
        return None if remembered else SaveResult(revision=work.revision, saved_fields=[])
    revision = _write(snapshot, session_key=session_key, round_id=round_id, changes=changes, at=now)
    if revision is None:  # logged out, submitted, past the deadline or saved elsewhere since the snapshot
        _snapshots.pop(key, None)
        return None
    work.revision, work.updated_at = revision, now
    _remember(key, replace(snapshot, work=work))
    return SaveResult(revision=revision, saved_fields=[field for field, _ in changes])


def _read_snapshot(*, session_key: str, round_id: int, now: datetime) -> Snapshot | None:
    read, _ = _statements()
    found = execute_prepared(
        READ_STATEMENT, read, {"session_key": session_key, "now": now, "round_id": round_id}
    )
    if not found.ntuples:
        return None
    row = first_row(found)
    (session_data, password, is_active, candidate_id, status, started_at, deadline, submitted_at,
     version_id, content_hash, work_id, revision, updated_at, design, numbers, scratch,
     fixes) = row  # fmt: skip
    if not _session_proves_user(session_data, user_id=candidate_id, password=password, is_active=is_active):
        return None
    return Snapshot(
        session_data=session_data,
        user_id=candidate_id,
        password=password,
        is_active=is_active,
        round=Round(
            pk=round_id, status=status, started_at=started_at, deadline=deadline, submitted_at=submitted_at
        ),
        outline=version_outline(version_id, content_hash),
        work=Work(
            pk=work_id,
            round_id=round_id,
            revision=revision,
            updated_at=updated_at,
            design=_json(design),
            numbers=_json(numbers),
            scratch=scratch,
            fixes=_json(fixes),
        ),
    )


def _write(
    snapshot: Snapshot,
    *,
    session_key: str,
    round_id: int,
    changes: list[tuple[str, Any]],
    at: datetime,
) -> int | None:
    """The new revision, or None when one of the snapshot's proofs no longer holds (nothing is written)."""
    t, phase = save_position(snapshot.round, now=at, plan=snapshot.outline.plan)
    save = {
        "session_key": session_key,
        "session_data": snapshot.session_data,
        "user_id": snapshot.user_id,
        "password": snapshot.password,
        "is_active": snapshot.is_active,
        "round_id": round_id,
        "work_id": snapshot.work.pk,
        "base_revision": snapshot.work.revision,
        "updated_at": snapshot.work.updated_at.isoformat(),
        "at": at.isoformat(),
        **_changed_columns(changes),
        "t": t,
        "phase": phase,
        "changes": [{"field": field, "value": value} for field, value in changes],
    }
    if connection.get_autocommit():
        return _writes.submit(save)
    return _write_all([save])[0]  # inside a transaction: on this thread's own connection, alone


def _write_all(saves: Sequence[dict[str, Any]]) -> list[int | None]:
    """Each save's new revision or None, written in one statement on the calling thread's connection."""
    _, write = _statements()
    batch = [{"n": n, **save} for n, save in enumerate(saves)]
    batch.sort(key=lambda save: save["work_id"])  # one order of rows in every process, against lock cycles
    params = {"batch": json.dumps(batch), "active": RoundStatus.ACTIVE.value}
    try:
        written = execute_prepared(WRITE_STATEMENT, write, params)
    except DatabaseError:
        # One save's fault must not fail the others it shared the statement with: nothing was written, and
        # each takes the full path, which answers for its own save.
        log.exception("autosave: a batch of %d saves failed; each is retried on the full path", len(saves))
        raise Unavailable from None
    revisions: list[int | None] = [None] * len(saves)
    for row in range(written.ntuples):
        revisions[int(written.get_value(row, 0))] = int(written.get_value(row, 1))
    return revisions


_writes: GroupCommit[dict[str, Any], int | None] = GroupCommit(_write_all)


def _changed_columns(changes: list[tuple[str, Any]]) -> dict[str, Any]:
    """Only what changed is sent (a missing column is kept); entries merge into the sheet."""
    changed = dict(changes)
    entries = {field[len("numbers.") :]: text for field, text in changes if field.startswith("numbers.")}
    columns = {name: changed[name] for name in ("design", "scratch", "fixes") if name in changed}
    return {**columns, "numbers": entries} if entries else columns


def _remember(key: tuple[str, int], snapshot: Snapshot) -> None:
    if len(_snapshots) >= SNAPSHOTS_MAX and key not in _snapshots:
        _snapshots.clear()
    _snapshots[key] = snapshot


def _session_proves_user(session_data: str, *, user_id: int, password: str, is_active: bool) -> bool:
    """Django's own test (django.contrib.auth.get_user) for a session logged in with the model backend under
    the current secret; anything else (fallback secrets, other backends) is left to the full path."""
    data = _session_store().decode(session_data)
    backend_path = data.get(BACKEND_SESSION_KEY)
    if data.get(SESSION_KEY) != str(user_id) or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return False
    backend = _model_backend(backend_path)
    user = get_user_model()(pk=user_id, password=password, is_active=is_active)
    if backend is None or not backend.user_can_authenticate(user):
        return False
    return constant_time_compare(data.get(HASH_SESSION_KEY) or "", user.get_session_auth_hash())


@cache
def _session_store():
    return import_module(DB_SESSION_ENGINE).SessionStore()


@cache
def _model_backend(path: str) -> ModelBackend | None:
    from django.contrib.auth import load_backend

    backend = load_backend(path)
    return backend if isinstance(backend, ModelBackend) else None


def _json(value: Any) -> Any:
    """Django's PostgreSQL backend hands jsonb to raw cursors as text."""
    return json.loads(value) if isinstance(value, str) else value
