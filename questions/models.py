"""Questions and their immutable versions. A version holds the whole question file as validated JSON."""

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import models

from grading.core.vocabulary import CONCEPT_TITLES, DIFFICULTIES, DIFFICULTY_TITLES, TRACK_TITLES


def _choices(name: str, titles: dict[str, str]) -> type[models.TextChoices]:
    """Model choices from one of the grading core's vocabularies, the lists the question reader checks."""
    members = [(value.upper(), (value, title)) for value, title in titles.items()]
    # Enum's functional API with (value, label) members, which django-stubs' overloads do not list
    return models.TextChoices(name, members)  # type: ignore[call-overload]


Track = _choices("Track", TRACK_TITLES)
Difficulty = _choices("Difficulty", DIFFICULTY_TITLES)
DIFFICULTY_ORDER = {difficulty: rank for rank, difficulty in enumerate(DIFFICULTIES)}


# What the catalogue's search reads: no spec, so no reference value, ever. The slug as written: PostgreSQL's
# parser reads "kv-cache-tiering" as the whole word and each part, so a pasted slug (a phrase of the same
# tokens) and its words typed apart ("kv cache tiering") both find the question.
SEARCH_VECTOR = SearchVector("title", "summary", "search_text", "slug", config="english")


def search_text_of(spec: Mapping[str, Any]) -> str:
    """The words a question is found by beyond its title and summary: its concepts and its track, by name."""
    concepts = [
        CONCEPT_TITLES.get(concept, concept.replace("-", " ")) for concept in spec.get("concepts") or []
    ]
    return " ".join([*concepts, TRACK_TITLES.get(spec.get("track", ""), "")]).strip()


class QuestionQuerySet(models.QuerySet):
    def published(self) -> "QuestionQuerySet":
        """Questions with a current version (what people may see), that version fetched with them."""
        return self.exclude(current_version=None).select_related("current_version")


class Question(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    track = models.CharField(max_length=20, choices=Track.choices)
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices)
    kind = models.CharField(max_length=10, default="design")
    summary = models.TextField(blank=True)
    search_text = models.TextField(blank=True, help_text="Its concepts and track by name, for search")
    position = models.PositiveIntegerField(default=0, help_text="Order inside its track")
    current_version = models.ForeignKey(
        "QuestionVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        db_table = "interview_question"  # the table it had before the app moved (issue 29)
        # PostgreSQL's full-text search of the catalogue reads this very expression (catalogue_search).
        indexes = [GinIndex(SEARCH_VECTOR, name="question_search")]
        ordering = ["track", "position", "slug"]
        permissions = [
            ("practise_rounds", "Can practise rounds"),
            ("interview_candidates", "Can interview candidates"),
            ("author_questions", "Can write question drafts"),
            ("publish_questions", "Can publish question versions"),
            ("moderate_discussion", "Can moderate discussion"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_published(self) -> bool:
        return self.current_version_id is not None


class QuestionVersion(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    spec = models.JSONField(help_text="The question file, validated, as JSON")
    # The spec's title again as a column: lists of rounds show it without decoding any spec.
    title = models.CharField(max_length=200, blank=True)
    content_hash = models.CharField(max_length=64)
    source = models.CharField(max_length=200, blank=True, help_text="Pack file or editor that made it")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "interview_questionversion"
        ordering = ["question", "number"]
        constraints = [
            models.UniqueConstraint(fields=["question", "number"], name="unique_version_number"),
        ]

    def __str__(self) -> str:
        return f"{self.question.slug} v{self.number}"
