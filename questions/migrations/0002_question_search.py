"""The catalogue's search (issue 35): a question's concepts and track by name in `search_text`, filled for the
questions already published, and on PostgreSQL a GIN index over the full-text vector the catalogue queries
(the embedded SQLite database matches word by word and has no such index)."""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

from grading.core.vocabulary import CONCEPT_TITLES, TRACK_TITLES
from questions.migration_operations import PostgresOnlyAddIndex


def fill_search_text(apps, schema_editor) -> None:
    Question = apps.get_model("questions", "Question")
    for question in Question.objects.exclude(current_version=None).select_related("current_version"):
        spec = question.current_version.spec
        concepts = [CONCEPT_TITLES.get(c, c.replace("-", " ")) for c in spec.get("concepts") or []]
        question.search_text = " ".join([*concepts, TRACK_TITLES.get(spec.get("track", ""), "")]).strip()
        question.save(update_fields=["search_text"])


class Migration(migrations.Migration):
    dependencies = [
        ("questions", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="search_text",
            field=models.TextField(blank=True, help_text="Its concepts and track by name, for search"),
        ),
        migrations.RunPython(fill_search_text, migrations.RunPython.noop),
        PostgresOnlyAddIndex(
            model_name="question",
            index=django.contrib.postgres.indexes.GinIndex(
                django.contrib.postgres.search.SearchVector("title", "summary", "search_text", config="english"),
                name="question_search",
            ),
        ),
    ]
