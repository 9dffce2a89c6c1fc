"""Authoring: an author's draft of a question (the file format as a dict) and its sample answers."""

from django.conf import settings
from django.db import models


class Draft(models.Model):
    """One author's working copy of a question. `data` is the question file as a dict, possibly invalid."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts")
    slug = models.SlugField(max_length=80)
    data = models.JSONField(default=dict, help_text="The question file as a dict (may not validate yet)")
    based_on = models.ForeignKey(
        "questions.QuestionVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    texts = models.JSONField(
        default=dict, blank=True, help_text="Each YAML section as the author typed it, comments included"
    )

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "slug"], name="one_draft_per_author_and_slug"),
        ]

    def __str__(self) -> str:
        return f"draft {self.slug} by {self.owner}"

    @property
    def title(self) -> str:
        title = self.data.get("title") if isinstance(self.data, dict) else None
        return title if isinstance(title, str) and title else self.slug


class SampleAnswer(models.Model):
    """An example submission with the verdict the author expects on each asked line: a regression test."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="samples")
    name = models.CharField(max_length=120)
    submission = models.JSONField(help_text='{"numbers": {NAME: text}, "design": {...}}')
    expected = models.JSONField(default=dict, help_text="Asked line name -> expected verdict")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.name
