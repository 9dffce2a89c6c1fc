"""The Django admin as an admin meets it: no page answers 500, question versions are read-only there, a
question's current version is one of its own."""

import pytest
from django.contrib import admin
from django.urls import reverse

from questions.models import Question, QuestionVersion
from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions

pytestmark = pytest.mark.django_db


@pytest.fixture
def questions(tmp_path):
    return load_questions(tmp_path, KV_QUESTION, PLAN_QUESTION)


def admin_urls() -> list[str]:
    urls = []
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        urls.append(reverse("admin:{}_{}_changelist".format(*info)))
        urls.append(reverse("admin:{}_{}_add".format(*info)))
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            urls.append(reverse("admin:{}_{}_change".format(*info), args=[first.pk]))
            urls.append(reverse("admin:{}_{}_history".format(*info), args=[first.pk]))
            urls.append(reverse("admin:{}_{}_delete".format(*info), args=[first.pk]))
    return urls


def test_no_admin_page_answers_a_server_error(client, admin_user, questions):
    client.force_login(admin_user)
    answers = {url: client.get(url).status_code for url in ["/admin/", *admin_urls()]}
    assert len(answers) > 5
    assert {url: code for url, code in answers.items() if code >= 500} == {}


def test_question_versions_are_read_only_in_the_admin(client, admin_user, questions):
    client.force_login(admin_user)
    version = questions[KV_QUESTION].current_version
    assert client.get(reverse("admin:questions_questionversion_add")).status_code == 403
    assert client.post(reverse("admin:questions_questionversion_add"), {}).status_code == 403
    page = client.get(reverse("admin:questions_questionversion_change", args=[version.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    deleted = client.post(
        reverse("admin:questions_questionversion_delete", args=[version.pk]), {"post": "yes"}
    )
    assert deleted.status_code == 403 and QuestionVersion.objects.filter(pk=version.pk).exists()


def question_form(question: Question, **changes) -> dict:
    form = {
        "slug": question.slug,
        "title": question.title,
        "track": question.track,
        "difficulty": question.difficulty,
        "kind": question.kind,
        "summary": question.summary,
        "position": question.position,
        "current_version": question.current_version_id,
    }
    return {**form, **changes}


def test_a_question_can_only_point_at_one_of_its_own_versions(client, admin_user, questions):
    client.force_login(admin_user)
    kv, plan = questions[KV_QUESTION], questions[PLAN_QUESTION]
    url = reverse("admin:questions_question_change", args=[kv.pk])
    page = client.get(url).content.decode()
    assert f'<option value="{kv.current_version_id}" selected>' in page
    assert f'<option value="{plan.current_version_id}"' not in page
    refused = client.post(url, question_form(kv, current_version=plan.current_version_id))
    assert refused.status_code == 200 and "errornote" in refused.content.decode()
    kv.refresh_from_db()
    assert kv.current_version.question_id == kv.pk
    kept = client.post(url, question_form(kv, title="Renamed"))
    assert kept.status_code == 302
    kv.refresh_from_db()
    assert kv.title == "Renamed" and kv.current_version.question_id == kv.pk
