"""Discussion under each question (comments, votes, reports, thread locks) and each person's bookmarks."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class AnchorKind(models.TextChoices):
    NONE = "", "The whole question"
    PHASE = "phase", "A step of the plan"
    QUANTITY = "quantity", "A quantity"


class Comment(models.Model):
    question = models.ForeignKey("questions.Question", on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies", help_text="One level"
    )
    body_markdown = models.TextField()
    body_html = models.TextField(help_text="Rendered and sanitised once, when saved")
    anchor_kind = models.CharField(max_length=10, choices=AnchorKind.choices, blank=True, default="")
    anchor_value = models.CharField(max_length=80, blank=True, default="")
    vote_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    edited_at = models.DateTimeField(null=True, blank=True)
    deleted = models.BooleanField(default=False, help_text="Kept as a 'deleted' mark because it has replies")
    hidden = models.BooleanField(default=False, help_text="Hidden by a moderator")
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Not columns: the thread views set these on the comments they show, for the templates.
    voted: bool
    anchor_label: str
    can_edit: bool

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["question", "parent", "-created_at"], name="comment_thread_new"),
            models.Index(fields=["question", "parent", "-vote_count"], name="comment_thread_top"),
        ]

    def __str__(self) -> str:
        return f"Comment {self.pk} on {self.question_id} by {self.author_id}"

    @property
    def anchor_key(self) -> str:
        return f"{self.anchor_kind}:{self.anchor_value}" if self.anchor_kind else ""


class Vote(models.Model):
    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="votes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["comment", "user"], name="one_vote_per_user")]

    def __str__(self) -> str:
        return f"Vote by {self.user_id} on comment {self.comment_id}"


class Report(models.Model):
    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["comment", "reporter"], name="one_report_per_user")]

    def __str__(self) -> str:
        return f"Report by {self.reporter_id} on comment {self.comment_id}"


class ThreadLock(models.Model):
    question = models.OneToOneField(
        "questions.Question", on_delete=models.CASCADE, related_name="thread_lock"
    )
    locked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    locked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Thread lock on question {self.question_id}"


class Bookmark(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bookmarks")
    question = models.ForeignKey("questions.Question", on_delete=models.CASCADE, related_name="bookmarks")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["user", "question"], name="one_bookmark_per_question")]

    def __str__(self) -> str:
        return f"Bookmark by {self.user_id} on question {self.question_id}"
