"""Named prepared statements run on Django's PostgreSQL connection through libpq, for the few statements
hot enough that psycopg's cursor shows: its Python-level adaptation of each parameter and result cost a third
of an autosave's own CPU, and Django's per-request health check is one more round trip.

Statements are written with psycopg's %(name)s placeholders, cast to their types in the SQL (parameters go
as text); each is prepared once per connection. A connection found dead (a database restart) is closed and
reported as `Unavailable`, as is a statement deallocated behind this module's back; the caller then answers
through the ORM, which reconnects.
"""

import re
import weakref
from datetime import datetime
from functools import cache
from typing import Any

import psycopg
from django.db import connection
from psycopg import pq
from psycopg.adapt import Transformer
from psycopg.errors import error_from_result

UNDEFINED_PREPARED_STATEMENT = b"26000"
TRANSACTION_ROLLBACK_CLASS = b"40"  # a deadlock or a serialization failure: the statement wrote nothing

# Per psycopg connection, the statements prepared on it (a new connection prepares them again).
_prepared_on: "weakref.WeakKeyDictionary[psycopg.Connection, set[bytes]]" = weakref.WeakKeyDictionary()


class Unavailable(Exception):
    """The connection had died (it is closed now), the statement had been deallocated (it is prepared again
    next time) or the database rolled it back to break a deadlock: nothing was written by it."""


def statement_would_join_the_callers_transaction() -> bool:
    """True outside atomic() and inside a transaction psycopg has begun. Inside atomic() psycopg sends BEGIN
    before its first statement; a libpq call made before that would commit on its own, outside the block."""
    if connection.get_autocommit():
        return True
    raw = connection.connection
    return raw is not None and raw.pgconn.transaction_status != pq.TransactionStatus.IDLE


def execute_prepared(name: bytes, sql: str, params: dict[str, Any]) -> pq.PGresult:
    statement, names = _positional(sql)
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw = connection.connection
    prepared = _prepared_on.setdefault(raw, set())
    if name not in prepared:
        _check(raw, raw.pgconn.prepare(name, statement))
        prepared.add(name)
    values = [_as_text(params[key]) for key in names]
    return _check(raw, raw.pgconn.exec_prepared(name, values))


def first_row(result: pq.PGresult) -> tuple:
    """The first row, loaded with the connection's own loaders (Django's time zone, its jsonb as text)."""
    loader = Transformer(connection.connection)
    loader.set_pgresult(result)
    return loader.load_row(0, tuple)


@cache
def _positional(sql: str) -> tuple[bytes, tuple[str, ...]]:
    """psycopg's %(name)s placeholders as libpq's $1, $2...; and the names in that order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    return re.sub(r"%\((\w+)\)s", number, sql).encode(), tuple(names)


def _as_text(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, datetime):
        return value.isoformat().encode()
    return str(value).encode()


def _check(raw: psycopg.Connection, result: pq.PGresult) -> pq.PGresult:
    if result.status in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        return result
    if raw.pgconn.status == pq.ConnStatus.BAD:
        connection.close()
        raise Unavailable
    state = result.error_field(pq.DiagnosticField.SQLSTATE) or b""
    if state == UNDEFINED_PREPARED_STATEMENT:
        _prepared_on.pop(raw, None)
        raise Unavailable
    if state.startswith(TRANSACTION_ROLLBACK_CLASS) and connection.get_autocommit():
        raise Unavailable
    with connection.wrap_database_errors:
        raise error_from_result(result, encoding=raw.info.encoding)
