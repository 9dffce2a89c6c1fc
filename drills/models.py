"""Drill cards (one asked line of one question, per person, on an FSRS schedule) and their answers."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class DrillCard(models.Model):
    """One step a person practises: a question's asked line, with its FSRS memory state and next due time."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drill_cards")
    question = models.ForeignKey("questions.Question", on_delete=models.CASCADE, related_name="drill_cards")
    line = models.CharField(max_length=120, help_text="The asked quantity's name in the question's model")
    # FSRS state (fsrs.Card): learning 1, review 2, relearning 3; step within the learning steps.
    state = models.PositiveSmallIntegerField(default=1)
    step = models.PositiveSmallIntegerField(null=True, blank=True, default=0)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due = models.DateTimeField(default=timezone.now)
    last_review = models.DateTimeField(null=True, blank=True)
    reviews = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "question", "line"], name="one_card_per_step")]
        indexes = [models.Index(fields=["user", "due"])]

    def __str__(self) -> str:
        return f"{self.question_id}:{self.line} for {self.user_id}"


class DrillAnswer(models.Model):
    """One answer to a card: the step as drawn (its seed), what was typed, the verdict, time and rating."""

    card = models.ForeignKey(DrillCard, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drill_answers")
    question_version = models.ForeignKey(
        "questions.QuestionVersion", on_delete=models.PROTECT, related_name="+"
    )
    seed = models.BigIntegerField()
    prompt = models.TextField()
    text = models.CharField(max_length=200, blank=True)
    verdict = models.CharField(max_length=30)
    credit = models.FloatField()
    seconds = models.FloatField()
    rating = models.PositiveSmallIntegerField(help_text="FSRS rating: again 1, hard 2, good 3, easy 4")
    answered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["user", "answered_at"])]

    def __str__(self) -> str:
        return f"{self.verdict} on card {self.card_id}"
