"""Group commit inside one process: requests that want the same kind of write at the same moment share one
statement, so they share one database round trip and one commit (whose flush to disk is most of what a small
write costs the database).

Leader and followers, no timer: a request that finds no write in flight writes at once, alone, so an idle
server adds no latency; requests that arrive while a write is in flight queue, and when it returns the first
of them leads the next write, for all of them. A request waits for at most the write in flight and its own.
"""

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(eq=False)
class _Waiting[Item, Outcome]:
    item: Item
    # Held from creation; released once, when the outcome is set or the request is to lead the next write.
    woken: threading.Lock = field(default_factory=threading.Lock)
    leads: bool = False
    outcome: Outcome | None = None
    error: Exception | None = None


class GroupCommit[Item, Outcome]:
    """`submit(item)` returns what `write_all` returned at the item's position, or raises what it raised,
    for the batch the item was written in. `write_all` runs on the leading request's thread (so on its
    database connection)."""

    def __init__(self, write_all: Callable[[Sequence[Item]], Sequence[Outcome]]) -> None:
        self._write_all = write_all
        self._lock = threading.Lock()
        self._queue: list[_Waiting[Item, Outcome]] = []
        self._writing = False

    def submit(self, item: Item) -> Outcome:
        me: _Waiting[Item, Outcome] = _Waiting(item)
        me.woken.acquire()
        with self._lock:
            me.leads = not self._writing
            if me.leads:
                self._writing = True
            else:
                self._queue.append(me)
        if not me.leads:
            me.woken.acquire()  # until the leader releases it
        if me.leads:
            self._lead(me)
        if me.error is not None:
            raise me.error
        return me.outcome  # type: ignore[return-value]

    def _lead(self, me: _Waiting[Item, Outcome]) -> None:
        with self._lock:
            batch = [me, *self._queue]
            self._queue.clear()
        try:
            outcomes = self._write_all([waiting.item for waiting in batch])
            for waiting, outcome in zip(batch, outcomes, strict=True):
                waiting.outcome = outcome
        except Exception as error:  # every request of the batch answers for the write it shared
            for waiting in batch:
                waiting.error = error
        finally:
            with self._lock:
                successor = self._queue.pop(0) if self._queue else None
                self._writing = successor is not None
            for waiting in batch[1:]:
                waiting.woken.release()
            if successor is not None:
                successor.leads = True
                successor.woken.release()
