"""Round, ReferenceCheck, Work, WorkEvent and ReplayRun move here (issue 29) from interview, designs and
grading, keeping their tables (`db_table`). Round's and ReferenceCheck's tables were made by interview's
migrations (hence the dependency on its last one before the move). The designs and grading apps are gone with
their migrations: a database that ran them has their tables, which are adopted as they are; a new database gets
them made here. A database must be at the last migrations of the release before this one to move forward."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

# Models whose tables the removed apps made: (old app label, model name).
FROM_REMOVED_APPS = [("designs", "work"), ("designs", "workevent"), ("grading", "replayrun")]
FROM_INTERVIEW = [("interview", "round"), ("interview", "referencecheck")]


def create_missing_tables(apps, schema_editor):
    """Make the table of each model from a removed app unless the database already has it."""
    existing = set(schema_editor.connection.introspection.table_names())
    for _, model_name in FROM_REMOVED_APPS:
        model = apps.get_model("rounds", model_name)
        if model._meta.db_table not in existing:
            schema_editor.create_model(model)


def move_content_types(apps, schema_editor, backwards=False):
    """The moved models' content types, and so their permissions, follow them (unless already there)."""
    content_type = apps.get_model("contenttypes", "ContentType")
    for old_app, model in FROM_REMOVED_APPS + FROM_INTERVIEW:
        source, target = ("rounds", old_app) if backwards else (old_app, "rounds")
        if not content_type.objects.filter(app_label=target, model=model).exists():
            content_type.objects.filter(app_label=source, model=model).update(app_label=target)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, backwards=True)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('interview', '0009_version_title'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('questions', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Round',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('mode', models.CharField(choices=[('timed', 'Timed'), ('practice', 'Practice')], default='timed', max_length=10)),
                        ('status', models.CharField(choices=[('active', 'In progress'), ('submitted', 'Submitted'), ('abandoned', 'Abandoned'), ('scheduled', 'Scheduled')], default='active', max_length=10)),
                        ('variant_seed', models.BigIntegerField(blank=True, null=True)),
                        ('variant_values', models.JSONField(blank=True, default=dict, help_text='Input name -> value in base units')),
                        ('variant_text', models.CharField(blank=True, max_length=300)),
                        ('started_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('deadline', models.DateTimeField(blank=True, help_text='Empty for practice rounds', null=True)),
                        ('submitted_at', models.DateTimeField(blank=True, null=True)),
                        ('report', models.JSONField(blank=True, null=True)),
                        ('score', models.FloatField(blank=True, null=True)),
                        ('reference_seen_at', models.DateTimeField(blank=True, help_text="When the candidate last checked the question's reference before it", null=True)),
                        ('score_numbers', models.FloatField(blank=True, null=True)),
                        ('score_shape', models.FloatField(blank=True, null=True)),
                        ('score_arithmetic', models.FloatField(blank=True, null=True)),
                        ('candidate', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rounds', to=settings.AUTH_USER_MODEL)),
                        ('question_version', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='questions.questionversion')),
                    ],
                    options={
                        'db_table': 'interview_round',
                        'ordering': ['-started_at'],
                    },
                ),
                migrations.CreateModel(
                    name='ReplayRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('scenario', models.CharField(help_text="The scenario's name in the question version", max_length=80)),
                        ('position', models.PositiveSmallIntegerField(default=0, help_text="The scenario's place in the question")),
                        ('side', models.CharField(choices=[('candidate', 'Your numbers'), ('reference', 'Reference')], max_length=10)),
                        ('generation', models.PositiveIntegerField(default=1, help_text='1 for the first run; each retry adds one')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=10)),
                        ('progress', models.FloatField(default=0.0, help_text='Simulated fraction, 0 to 1')),
                        ('seed', models.BigIntegerField(help_text='From the round and the scenario: both sides share it')),
                        ('simulator_version', models.CharField(max_length=40)),
                        ('inputs', models.JSONField(default=dict, help_text='family, params (base units), events, slo, duration_s')),
                        ('result', models.JSONField(blank=True, help_text='ScenarioResult.to_dict()', null=True)),
                        ('error', models.TextField(blank=True)),
                        ('note', models.CharField(blank=True, help_text='Shown beside the status', max_length=300)),
                        ('attempts', models.PositiveIntegerField(default=0, help_text='Times a worker claimed it')),
                        ('claim', models.UUIDField(blank=True, help_text='The token of the claim that may write', null=True)),
                        ('sent_at', models.DateTimeField(blank=True, help_text='Last time a message reached the broker', null=True)),
                        ('claimed_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('round', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='replay_runs', to='rounds.round')),
                    ],
                    options={
                        'db_table': 'grading_replayrun',
                        'ordering': ['round', 'position', 'scenario', 'side', '-generation'],
                    },
                ),
                migrations.CreateModel(
                    name='Work',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('design', models.JSONField(default=dict)),
                        ('numbers', models.JSONField(default=dict)),
                        ('scratch', models.TextField(blank=True, default='')),
                        ('fixes', models.JSONField(blank=True, default=list)),
                        ('revision', models.PositiveIntegerField(default=0)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('round', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='work', to='rounds.round')),
                    ],
                    options={
                        'db_table': 'designs_work',
                    },
                ),
                migrations.CreateModel(
                    name='WorkEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('revision', models.PositiveIntegerField()),
                        ('t', models.FloatField(help_text='Seconds since the round started')),
                        ('phase', models.CharField(max_length=20)),
                        ('field', models.CharField(help_text='design, scratch, or numbers.NAME', max_length=120)),
                        ('value', models.JSONField(null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('round', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='events', to='rounds.round')),
                    ],
                    options={
                        'db_table': 'designs_workevent',
                        'ordering': ['round', 'revision', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='ReferenceCheck',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('checked_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('question', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reference_checks', to='questions.question')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reference_checks', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'interview_referencecheck',
                        'indexes': [models.Index(fields=['user', 'question', 'checked_at'], name='interview_r_user_id_c98158_idx')],
                    },
                ),
                migrations.AddIndex(
                    model_name='round',
                    index=models.Index(fields=['candidate', 'status'], name='interview_r_candida_9ff14b_idx'),
                ),
                migrations.AddIndex(
                    model_name='replayrun',
                    index=models.Index(fields=['status', 'heartbeat_at'], name='grading_rep_status_5f94e8_idx'),
                ),
                migrations.AddConstraint(
                    model_name='replayrun',
                    constraint=models.UniqueConstraint(fields=('round', 'scenario', 'side', 'generation'), name='unique_replay_run_generation'),
                ),
                migrations.AddIndex(
                    model_name='workevent',
                    index=models.Index(fields=['round', 'revision'], name='workevent_round_revision'),
                ),
            ],
        ),
        migrations.RunPython(create_missing_tables, migrations.RunPython.noop),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
