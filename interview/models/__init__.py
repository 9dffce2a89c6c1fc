from interview.models.questions import Question, QuestionVersion
from interview.models.rounds import Round, RoundMode, RoundStatus

__all__ = ["Question", "QuestionVersion", "Round", "RoundMode", "RoundStatus"]
