"""The question models moved to the questions app (issue 29): the foreign keys name them there; same tables."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('drills', '0001_initial'),
        ('questions', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='drillanswer',
                    name='question_version',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='questions.questionversion'),
                ),
                migrations.AlterField(
                    model_name='drillcard',
                    name='question',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='drill_cards', to='questions.question'),
                ),
            ],
        ),
    ]
