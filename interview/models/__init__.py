from interview.models.authoring import Draft, SampleAnswer  # noqa: F401
from interview.models.discussion import Bookmark, Comment, Report, ThreadLock, Vote
from interview.models.interviewing import InterviewNote, Invitation, Recommendation, Scorecard
from interview.models.question_versions import Question, QuestionVersion
from interview.models.rounds import ReferenceCheck, Round, RoundMode, RoundStatus

__all__ = [
    "Bookmark",
    "Comment",
    "Report",
    "ThreadLock",
    "Vote",
    "Question",
    "QuestionVersion",
    "ReferenceCheck",
    "Round",
    "RoundMode",
    "RoundStatus",
    "InterviewNote",
    "Invitation",
    "Recommendation",
    "Scorecard",
]
