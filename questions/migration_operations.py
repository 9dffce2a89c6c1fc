"""Migration operations shared by the app's migrations: index changes that exist on PostgreSQL only."""

from django.db import migrations
from django.db.migrations.operations.base import Operation


class PostgresOnly(Operation):
    """An operation carried out on PostgreSQL only (a GIN index); the model state changes everywhere."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class PostgresOnlyAddIndex(PostgresOnly, migrations.AddIndex):
    pass


class PostgresOnlyRemoveIndex(PostgresOnly, migrations.RemoveIndex):
    pass
