"""A round: one candidate's attempt at one question version, timed or practice, with a server-side clock."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cached_property

from django.conf import settings
from django.db import models
from django.utils import timezone

from grading.core.question_text import answer_texts, has_placeholders, rendered_spec


class RoundMode(models.TextChoices):
    TIMED = "timed", "Timed"
    PRACTICE = "practice", "Practice"


class RoundStatus(models.TextChoices):
    ACTIVE = "active", "In progress"
    SUBMITTED = "submitted", "Submitted"
    ABANDONED = "abandoned", "Abandoned"
    SCHEDULED = "scheduled", "Scheduled"  # by an interviewer; the clock starts when the candidate starts


class Round(models.Model):
    candidate = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rounds")
    question_version = models.ForeignKey(
        "questions.QuestionVersion", on_delete=models.PROTECT, related_name="rounds"
    )
    mode = models.CharField(max_length=10, choices=RoundMode.choices, default=RoundMode.TIMED)
    status = models.CharField(max_length=10, choices=RoundStatus.choices, default=RoundStatus.ACTIVE)
    variant_seed = models.BigIntegerField(null=True, blank=True)
    variant_values = models.JSONField(default=dict, blank=True, help_text="Input name -> value in base units")
    variant_text = models.CharField(max_length=300, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField(null=True, blank=True, help_text="Empty for practice rounds")
    submitted_at = models.DateTimeField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    reference_seen_at = models.DateTimeField(
        null=True, blank=True, help_text="When the candidate last checked the question's reference before it"
    )
    # The report's phase scores again as columns: the history lists them without decoding any report.
    score_numbers = models.FloatField(null=True, blank=True)
    score_shape = models.FloatField(null=True, blank=True)
    score_arithmetic = models.FloatField(null=True, blank=True)

    class Meta:
        db_table = "interview_round"  # the tables keep the names they had before the app moved (issue 29)
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["candidate", "status"])]

    def __str__(self) -> str:
        return f"Round {self.pk} on {self.question_version}"

    @property
    def question(self):
        return self.question_version.question

    @property
    def title(self) -> str:
        """The title of the version the round was asked on, which a later version may have changed, written
        from the round's values (a variant's title speaks of the variant)."""
        spec = self.question_version.spec or {}
        if self.variant_values and has_placeholders(spec):
            return str(self.shown_spec.get("title") or self.question_version.title)
        return self.question_version.title or self.question.title

    @property
    def spec(self) -> dict:
        """The question version as stored (templates unrendered): what grading and replays read."""
        return self.question_version.spec

    @cached_property
    def shown_spec(self) -> dict:
        """The version with its title, prompt and plan written from this round's values (its variant's)."""
        return rendered_spec(self.question_version.spec, self.variant_values or None)

    @cached_property
    def answer_texts(self) -> dict:
        """The version with the texts shown beside the reference (plan, scenarios' descriptions, reference
        design's boxes) written with the reference's own figures at this round's values (their `{=name}`
        placeholders): for the interviewer, never for the candidate before submitting
        (grading.core.question_text)."""
        return answer_texts(self.question_version.spec, self.variant_values or None)

    @property
    def answer_plan(self) -> list[dict]:
        """The plan of `answer_texts`."""
        return list(self.answer_texts.get("plan") or [])

    def record_report(self, report: dict) -> None:
        """Keep the graded report and the scores the history lists beside it (columns, not the JSON)."""
        scores = report["scores"]
        self.report = report
        self.score = scores["overall"]
        self.score_numbers = scores.get("numbers")
        self.score_shape = scores.get("shape")
        self.score_arithmetic = scores.get("arithmetic")

    def is_past_deadline(self, now: datetime | None = None) -> bool:
        return self.deadline is not None and (now or timezone.now()) >= self.deadline

    def write_refusal(self, now: datetime | None = None) -> str | None:
        """Why the round takes no more changes, in words for the candidate; None while it takes them."""
        if self.status != RoundStatus.ACTIVE:
            return f"This round is {self.get_status_display().lower()}; it no longer accepts changes."
        if self.is_past_deadline(now):
            return "Time is up: the round locked at its deadline and is graded on what was saved."
        return None

    def elapsed_s(self, now: datetime | None = None) -> float:
        end = self.submitted_at or (now or timezone.now())
        if self.deadline is not None:
            end = min(end, self.deadline)
        return max(0.0, (end - self.started_at).total_seconds())

    def time_left_s(self, now: datetime | None = None) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, (self.deadline - (now or timezone.now())).total_seconds())

    def current_phase(self, now: datetime | None = None, plan: Sequence[dict] | None = None) -> dict | None:
        """The plan phase the round's clock is in (practice rounds follow the same minutes as guidance)."""
        elapsed = self.elapsed_s(now)
        start = 0.0
        plan = self.spec.get("plan", []) if plan is None else plan
        for phase in plan:
            end = start + float(phase["minutes"]) * 60
            if elapsed < end:
                return {**phase, "starts_s": start, "ends_s": end}
            start = end
        return (
            {**plan[-1], "starts_s": start - float(plan[-1]["minutes"]) * 60, "ends_s": start}
            if plan
            else None
        )

    @staticmethod
    def timed_deadline(started_at: datetime, plan_minutes: float) -> datetime:
        return started_at + timedelta(minutes=plan_minutes)


class ReferenceCheck(models.Model):
    """A person graded numbers on a question's check page or API outside a round: they saw its reference."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reference_checks"
    )
    question = models.ForeignKey(
        "questions.Question", on_delete=models.CASCADE, related_name="reference_checks"
    )
    checked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "interview_referencecheck"
        indexes = [models.Index(fields=["user", "question", "checked_at"])]

    def __str__(self) -> str:
        return f"{self.user} checked {self.question} on {self.checked_at:%Y-%m-%d}"
