from interview.models.questions import Question, QuestionVersion

__all__ = ["Question", "QuestionVersion"]
