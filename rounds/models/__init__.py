"""A round and what hangs off it: the candidate's work and its event log, and the replay runs."""

from rounds.models.replays import (
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    ReplayResult,
    ReplayRun,
    ReplaySeedResult,
    ReplaySide,
    ReplayStatus,
)
from rounds.models.rounds import ReferenceCheck, Round, RoundMode, RoundStatus
from rounds.models.work import Work, WorkEvent

__all__ = [
    "ACTIVE_STATUSES",
    "FINISHED_STATUSES",
    "ReferenceCheck",
    "ReplayResult",
    "ReplayRun",
    "ReplaySeedResult",
    "ReplaySide",
    "ReplayStatus",
    "Round",
    "RoundMode",
    "RoundStatus",
    "Work",
    "WorkEvent",
]
