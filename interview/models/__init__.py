from interview.models.authoring import Draft, SampleAnswer  # noqa: F401
from interview.models.discussion import Bookmark, Comment, Report, ThreadLock, Vote
from interview.models.interviewing import InterviewNote, Invitation, Recommendation, Scorecard

__all__ = [
    "Bookmark",
    "Comment",
    "Report",
    "ThreadLock",
    "Vote",
    "InterviewNote",
    "Invitation",
    "Recommendation",
    "Scorecard",
]
