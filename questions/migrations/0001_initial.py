"""Question and QuestionVersion move here from interview (issue 29): the tables stay what they were
(`db_table`), so only Django's idea of where the models live changes. The tables were made by interview's
migrations, which is why this first migration depends on interview's last one before the move."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVES = [("interview", "question"), ("interview", "questionversion")]


def move_content_types(apps, schema_editor, backwards=False):
    """The moved models' content types, and so their permissions, follow them (unless already there)."""
    content_type = apps.get_model("contenttypes", "ContentType")
    for old_app, model in MOVES:
        source, target = ("questions", old_app) if backwards else (old_app, "questions")
        if not content_type.objects.filter(app_label=target, model=model).exists():
            content_type.objects.filter(app_label=source, model=model).update(app_label=target)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, backwards=True)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('interview', '0009_version_title'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Question',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('slug', models.SlugField(max_length=80, unique=True)),
                        ('title', models.CharField(max_length=200)),
                        ('track', models.CharField(choices=[('inference', 'Inference and serving'), ('training', 'Training and clusters'), ('data', 'Data and evals'), ('platform', 'Platform and governance')], max_length=20)),
                        ('difficulty', models.CharField(choices=[('easy', 'Easy'), ('medium', 'Medium'), ('hard', 'Hard')], max_length=10)),
                        ('kind', models.CharField(default='design', max_length=10)),
                        ('summary', models.TextField(blank=True)),
                        ('position', models.PositiveIntegerField(default=0, help_text='Order inside its track')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'interview_question',
                        'ordering': ['track', 'position', 'slug'],
                        'permissions': [('practise_rounds', 'Can practise rounds'), ('interview_candidates', 'Can interview candidates'), ('author_questions', 'Can write question drafts'), ('publish_questions', 'Can publish question versions'), ('moderate_discussion', 'Can moderate discussion')],
                    },
                ),
                migrations.CreateModel(
                    name='QuestionVersion',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveIntegerField()),
                        ('spec', models.JSONField(help_text='The question file, validated, as JSON')),
                        ('title', models.CharField(blank=True, max_length=200)),
                        ('content_hash', models.CharField(max_length=64)),
                        ('source', models.CharField(blank=True, help_text='Pack file or editor that made it', max_length=200)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                        ('question', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='questions.question')),
                    ],
                    options={
                        'db_table': 'interview_questionversion',
                        'ordering': ['question', 'number'],
                    },
                ),
                migrations.AddField(
                    model_name='question',
                    name='current_version',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='questions.questionversion'),
                ),
                migrations.AddConstraint(
                    model_name='questionversion',
                    constraint=models.UniqueConstraint(fields=('question', 'number'), name='unique_version_number'),
                ),
            ],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
