"""Question, QuestionVersion, Round and ReferenceCheck now live in the questions and rounds apps (issue 29): this
removes them from interview's state only and points interview's foreign keys at them; the tables stay."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('drills', '0002_questions_moved'),
        ('interview', '0009_version_title'),
        ('questions', '0001_initial'),
        ('rounds', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='question',
                    name='current_version',
                ),
                migrations.AlterField(
                    model_name='threadlock',
                    name='question',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='thread_lock', to='questions.question'),
                ),
                migrations.AlterField(
                    model_name='bookmark',
                    name='question',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='bookmarks', to='questions.question'),
                ),
                migrations.AlterField(
                    model_name='comment',
                    name='question',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='comments', to='questions.question'),
                ),
                migrations.RemoveConstraint(
                    model_name='questionversion',
                    name='unique_version_number',
                ),
                migrations.AlterField(
                    model_name='draft',
                    name='based_on',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='questions.questionversion'),
                ),
                migrations.RemoveIndex(
                    model_name='referencecheck',
                    name='interview_r_user_id_c98158_idx',
                ),
                migrations.RemoveIndex(
                    model_name='round',
                    name='interview_r_candida_9ff14b_idx',
                ),
                migrations.AlterField(
                    model_name='scorecard',
                    name='round',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='scorecard', to='rounds.round'),
                ),
                migrations.AlterField(
                    model_name='interviewnote',
                    name='round',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='interview_notes', to='rounds.round'),
                ),
                migrations.AlterField(
                    model_name='invitation',
                    name='round',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to='rounds.round'),
                ),
                migrations.RemoveField(
                    model_name='questionversion',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='questionversion',
                    name='question',
                ),
                migrations.RemoveField(
                    model_name='referencecheck',
                    name='question',
                ),
                migrations.RemoveField(
                    model_name='referencecheck',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='round',
                    name='candidate',
                ),
                migrations.RemoveField(
                    model_name='round',
                    name='question_version',
                ),
                migrations.DeleteModel(
                    name='Question',
                ),
                migrations.DeleteModel(
                    name='ReferenceCheck',
                ),
                migrations.DeleteModel(
                    name='QuestionVersion',
                ),
                migrations.DeleteModel(
                    name='Round',
                ),
            ],
        ),
    ]
