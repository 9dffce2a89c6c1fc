"""Mock interviews: an interviewer invited to a round, their private notes, and their rubric scorecard."""

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


class Recommendation(models.TextChoices):
    STRONG_NO = "strong_no", "Strong no"
    NO = "no", "No"
    LEAN_NO = "lean_no", "Lean no"
    LEAN_YES = "lean_yes", "Lean yes"
    YES = "yes", "Yes"
    STRONG_YES = "strong_yes", "Strong yes"


class Invitation(models.Model):
    """Access for one interviewer to one round: by username (accepted at once) or by a single-use link.

    A link stores only the SHA-256 of its token; the interviewer is set when someone accepts it. Access lasts
    from acceptance (`used_at`) until the candidate revokes it; `expires_at` bounds how long a link can be
    accepted."""

    round = models.ForeignKey("rounds.Round", on_delete=models.CASCADE, related_name="invitations")
    interviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="interview_invitations",
    )
    token_hash = models.CharField(max_length=64, blank=True, default="", db_index=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(null=True, blank=True, help_text="When the invitation was accepted")
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["interviewer", "round"])]

    def __str__(self) -> str:
        who = self.interviewer or "link"
        return f"Invitation of {who} to round {self.round_id}"

    @property
    def is_link(self) -> bool:
        return bool(self.token_hash)

    def is_expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and (now or timezone.now()) >= self.expires_at

    def grants_access(self) -> bool:
        return self.interviewer_id is not None and self.used_at is not None and self.revoked_at is None

    def state(self, now: datetime | None = None) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.used_at is not None:
            return "accepted"
        return "expired" if self.is_expired(now) else "open"


class InterviewNote(models.Model):
    """A private note, stamped with the round's clock and phase when it was written."""

    round = models.ForeignKey("rounds.Round", on_delete=models.CASCADE, related_name="interview_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    t = models.FloatField(help_text="Seconds since the round started")
    phase = models.CharField(max_length=20, blank=True)
    text = models.TextField(max_length=4000)
    follow_up_index = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Set when the note marks a follow-up as asked (0-based)"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["round", "t", "id"]

    def __str__(self) -> str:
        return f"Note at t={self.t:.0f}s on round {self.round_id}"


class Scorecard(models.Model):
    """The interviewer's rubric levels (1–4) with a note per dimension, a recommendation, and the release."""

    round = models.OneToOneField("rounds.Round", on_delete=models.CASCADE, related_name="scorecard")
    interviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scorecards"
    )
    levels = models.JSONField(default=dict, blank=True, help_text="dimension -> {level: 1..4, note: text}")
    recommendation = models.CharField(max_length=12, choices=Recommendation.choices, blank=True)
    released_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Scorecard for round {self.round_id}"

    @property
    def is_released(self) -> bool:
        return self.released_at is not None

    def level_of(self, dimension: str) -> int | None:
        entry = self.levels.get(dimension) or {}
        level = entry.get("level")
        return level if isinstance(level, int) else None

    def note_of(self, dimension: str) -> str:
        return (self.levels.get(dimension) or {}).get("note", "")
