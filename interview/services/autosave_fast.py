"""The page's autosave on PostgreSQL in one statement instead of seven ORM queries.

An autosave is the request a round sends most (every few seconds per candidate). Through the ORM it costs a
session query, a user query, a locking read and two writes, each compiled by the ORM: ~12 times a trivial
view. Here:

- a *read* joins the session, its user, the round and the work; the session is checked with Django's own
  rule (`_session_proves_user`) and the round with the ORM path's (`round_check_writable`);
- a *write* updates the work only if its revision and write time are still the ones read, the round is still
  open and share-locked (so a submit sees the save or refuses it), and the session row and the user's password
  are still exactly those that were checked; it appends the events in the same implicit transaction;
- the process keeps what the read returned (a `Snapshot`) and brings it forward after each write, so the next
  save from the same tab needs the write only. The write's conditions make a snapshot that is out of date
  (logged out, password changed, round submitted, saved from another process) fail closed.

It is a strict subset of `round_save`: whenever it cannot prove the save is a plain, current save by the
round's logged-in owner (no session, another owner, a stale page, a locked round, a malformed field, a
concurrent save), it writes nothing and returns None, and the caller runs the full path, which gives the
precise answer.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from copy import copy
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from importlib import import_module
from typing import Any

import psycopg
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.models import Session
from django.db import DatabaseError, connection
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from designs.models import Work, WorkEvent
from interview.models import QuestionVersion, Round, RoundStatus
from interview.services.rounds import (
    RoundError,
    SaveResult,
    round_check_writable,
    save_position,
    work_apply_changes,
)
from interview.services.version_outline import VersionOutline, version_outline

DB_SESSION_ENGINE = "django.contrib.sessions.backends.db"
PREPARE_ONLY_WHEN_ASKED = 2**62
SNAPSHOTS_MAX = 2048


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


class ConnectionLost(Exception):
    """The persistent database connection had died; it is closed now."""


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
    write = """
        WITH open_round AS (
            SELECT r.id FROM {round} r
            JOIN {user} u ON u.id = r.candidate_id AND u.password = %(password)s
                AND u.is_active = %(is_active)s
            JOIN {session} s ON s.session_key = %(session_key)s AND s.session_data = %(session_data)s
                AND s.expire_date > %(now)s
            WHERE r.id = %(round_id)s AND r.candidate_id = %(user_id)s AND r.status = %(active)s
                AND (r.deadline IS NULL OR r.deadline > %(now)s)
            FOR SHARE OF r
        ), saved AS (
            UPDATE {work}
            SET design = COALESCE(%(design)s::jsonb, design),
                numbers = numbers || COALESCE(%(numbers)s::jsonb, '{{}}'::jsonb),
                scratch = COALESCE(%(scratch)s, scratch),
                fixes = COALESCE(%(fixes)s::jsonb, fixes),
                revision = revision + 1, updated_at = %(now)s
            WHERE id = %(work_id)s AND revision = %(base_revision)s AND updated_at = %(updated_at)s
                AND EXISTS (SELECT 1 FROM open_round)
            RETURNING revision
        )
        INSERT INTO {event} (round_id, revision, t, phase, field, value, created_at)
        SELECT %(round_id)s, saved.revision, %(t)s, %(phase)s, change.item->>'field', change.item->'value',
               %(now)s
        FROM saved, jsonb_array_elements(%(changes)s::jsonb) WITH ORDINALITY AS change(item, n)
        ORDER BY change.n
        RETURNING revision
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
    try:
        return _save(session_key=session_key, round_id=round_id, base_revision=base_revision, body=body)
    except ConnectionLost:  # if the write did land, the full path answers 409 and the page catches up
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
    with _prepared_cursor() as cursor:
        cursor.execute(read, {"session_key": session_key, "now": now, "round_id": round_id}, prepare=True)
        row = cursor.fetchone()
    if row is None:
        return None
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
    _, write = _statements()
    t, phase = save_position(snapshot.round, now=at, plan=snapshot.outline.plan)
    params = {
        "session_key": session_key,
        "session_data": snapshot.session_data,
        "user_id": snapshot.user_id,
        "password": snapshot.password,
        "is_active": snapshot.is_active,
        "round_id": round_id,
        "active": RoundStatus.ACTIVE.value,
        "work_id": snapshot.work.pk,
        "base_revision": snapshot.work.revision,
        "updated_at": snapshot.work.updated_at,
        **_changed_columns(changes),
        "now": at,
        "t": t,
        "phase": phase,
        "changes": json.dumps([{"field": field, "value": value} for field, value in changes]),
    }
    with _prepared_cursor() as cursor:
        cursor.execute(write, params, prepare=True)
        written = cursor.fetchall()
    return written[0][0] if written else None


def _changed_columns(changes: list[tuple[str, Any]]) -> dict[str, str | None]:
    """The write's column values: only what changed is sent (None keeps the column); entries merge into the
    sheet."""
    changed = dict(changes)
    entries = {field[len("numbers.") :]: text for field, text in changes if field.startswith("numbers.")}
    return {
        "design": json.dumps(changed["design"]) if "design" in changed else None,
        "numbers": json.dumps(entries) if entries else None,
        "scratch": changed.get("scratch"),
        "fixes": json.dumps(changed["fixes"]) if "fixes" in changed else None,
    }


def _remember(key: tuple[str, int], snapshot: Snapshot) -> None:
    if len(_snapshots) >= SNAPSHOTS_MAX and key not in _snapshots:
        _snapshots.clear()
    _snapshots[key] = snapshot


@contextmanager
def _prepared_cursor() -> Iterator[psycopg.Cursor]:
    """A server-side binding cursor on Django's connection, so that `prepare=True` keeps each statement's plan
    for the connection's life: planning the read's five-table join costs ten times running it. Django turns
    psycopg's statement preparation off (threshold None) and its own client-side cursors never prepare; a
    threshold no query reaches lets psycopg prepare exactly what asks for it.

    Django's per-request health check (one more round trip) is left out: the statement is the check, and a
    connection found dead (a database restart) is closed and reported as ConnectionLost, after which the
    caller's full path opens a new one."""
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw = connection.connection
    if raw.prepare_threshold is None:
        raw.prepare_threshold = PREPARE_ONLY_WHEN_ASKED
    try:
        with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
            yield cursor
    except DatabaseError:
        if not raw.broken:
            raise
        connection.close()
        raise ConnectionLost from None


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
