"""What the candidate draws and writes in a round, with a revision per save and an append-only event log."""

from django.db import models

from grading.core.review_check import split_sheets


class Work(models.Model):
    """The round's canvas (`design`), numbers sheet (`numbers`: name -> text as typed) and scratch notes; in a
    design-review round also the ranked fixes (`fixes`: [{text, category}], first fix first)."""

    round = models.OneToOneField("rounds.Round", on_delete=models.CASCADE, related_name="work")
    design = models.JSONField(default=dict)
    numbers = models.JSONField(default=dict)
    scratch = models.TextField(blank=True, default="")
    fixes = models.JSONField(default=list, blank=True)
    # The depth phase (issue 33): the answers in the grader's shape (grading.core.submission, "depth") and how
    # many curveballs have been shown (0: the phase has not started for this round).
    depth = models.JSONField(default=dict, blank=True)
    depth_shown = models.PositiveSmallIntegerField(default=0)
    revision = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "designs_work"  # the tables keep the names they had before the app moved (issue 29)

    def __str__(self) -> str:
        return f"Work for round {self.round_id} at revision {self.revision}"

    def as_submission(self) -> dict:
        """The grader's submission; a review round's fixed sheet (its "fixed--NAME" numbers) as `fixed`,
        apart from the analysis sheet in `numbers`."""
        analysis, fixed = split_sheets(self.numbers)
        return {
            "numbers": analysis,
            "design": dict(self.design) or {"nodes": [], "edges": []},
            "fixes": list(self.fixes or []),
            **({"fixed": fixed} if fixed else {}),
        }


class WorkEvent(models.Model):
    """One change: when (seconds since the round started), in which phase, which field, and the new value."""

    # One index, (round, revision), serves every read (a round's events in order): each event an autosave
    # appends updates two indexes (with the key), not three.
    round = models.ForeignKey("rounds.Round", on_delete=models.CASCADE, related_name="events", db_index=False)
    revision = models.PositiveIntegerField()
    t = models.FloatField(help_text="Seconds since the round started")
    phase = models.CharField(max_length=20)
    field = models.CharField(max_length=120, help_text="design, scratch, or numbers.NAME")
    value = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "designs_workevent"
        ordering = ["round", "revision", "id"]
        indexes = [models.Index(fields=["round", "revision"], name="workevent_round_revision")]

    def __str__(self) -> str:
        return f"{self.field} at t={self.t:.0f}s"
