"""The catalogue's search finds a question by its slug too (issue 35): the GIN index is rebuilt over the vector
that now ends with the slug (PostgreSQL only, as in 0002; the embedded SQLite matches the slug word by word)."""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations

from questions.migration_operations import PostgresOnlyAddIndex, PostgresOnlyRemoveIndex


class Migration(migrations.Migration):
    dependencies = [
        ("questions", "0002_question_search"),
    ]

    operations = [
        PostgresOnlyRemoveIndex(model_name="question", name="question_search"),
        PostgresOnlyAddIndex(
            model_name="question",
            index=django.contrib.postgres.indexes.GinIndex(
                django.contrib.postgres.search.SearchVector(
                    "title", "summary", "search_text", "slug", config="english"
                ),
                name="question_search",
            ),
        ),
    ]
