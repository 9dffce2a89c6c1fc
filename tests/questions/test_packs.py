"""Question packs: export and import from the pages, the API and manage.py; a round trip changes nothing."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from rest_framework.test import APIClient

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_pack, read_yaml
from grading.core.question_reader import parse_question
from interview.services.authoring import publish_grant_set
from questions.models import Question, QuestionVersion
from questions.services.packs import pack_export, pack_import, yaml_dump
from questions.services.question_bank import CORE_PACK
from tests.conftest import TEST_PASSWORD
from tests.interview.bank_fixtures import KV_QUESTION, PLAN_QUESTION, load_questions

pytestmark = pytest.mark.django_db

BROKEN = "slug: broken-one\ntitle: Broken\n"


@pytest.fixture
def bank(tmp_path):
    return load_questions(tmp_path / "pack", KV_QUESTION, PLAN_QUESTION)


def version_count() -> int:
    return QuestionVersion.objects.count()


def test_every_bank_question_dumps_to_yaml_that_reads_back_to_the_same_question(tmp_path):
    specs, errors = load_pack(CORE_PACK)
    assert not errors and specs
    for spec in specs:
        path = tmp_path / f"{spec.slug}.yaml"
        path.write_text(yaml_dump(spec_to_dict(spec)), encoding="utf-8")
        again = parse_question(read_yaml(path), path.name)
        assert again == spec and spec_to_dict(again) == spec_to_dict(spec)


def test_text_that_looks_like_a_number_stays_text_through_a_dump():
    data = {"a": "1e6", "b": "off", "c": "two\nlines\n", "d": 3.35e12}
    from questions.services.packs import yaml_read_text

    assert yaml_read_text(yaml_dump(data)) == data


def test_export_then_import_with_manage_py_changes_nothing(bank, tmp_path):
    before = version_count()
    call_command("export_pack", str(tmp_path / "out"))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        [
            f"{KV_QUESTION}.yaml",
            f"{PLAN_QUESTION}.yaml",
        ]
    )
    out = io.StringIO()
    call_command("import_pack", str(tmp_path / "out"), stdout=out)
    assert "0 new, 0 new versions, 2 unchanged, 0 broken files" in out.getvalue()
    assert version_count() == before


def test_export_pack_can_pick_questions_by_slug(bank, tmp_path):
    call_command("export_pack", str(tmp_path / "out"), "--slug", KV_QUESTION)
    assert [p.name for p in (tmp_path / "out").iterdir()] == [f"{KV_QUESTION}.yaml"]
    with pytest.raises(CommandError, match="no-such-question"):
        call_command("export_pack", str(tmp_path / "other"), "--slug", "no-such-question")


def test_import_pack_reports_each_broken_file_by_file_field_and_message_and_loads_nothing_from_it(tmp_path):
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / f"{KV_QUESTION}.yaml").write_bytes((CORE_PACK / f"{KV_QUESTION}.yaml").read_bytes())
    text = (CORE_PACK / f"{PLAN_QUESTION}.yaml").read_text()
    (folder / f"{PLAN_QUESTION}.yaml").write_text(text.replace("track: ", "track: nowhere-", 1))
    (folder / "broken-one.yaml").write_text(BROKEN)
    (folder / "not-yaml.yaml").write_text("a: [unclosed\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="broken"):
        call_command("import_pack", str(folder), stderr=err, stdout=io.StringIO())
    lines = err.getvalue().splitlines()
    assert "broken-one.yaml: track: is required" in lines
    assert any(line.startswith(f"{PLAN_QUESTION}.yaml: track: ") for line in lines)
    assert any(line.startswith("not-yaml.yaml: yaml: ") for line in lines)
    assert set(Question.objects.values_list("slug", flat=True)) == {KV_QUESTION}


def test_a_broken_file_is_checked_before_anything_loads(tmp_path):
    report = pack_import(files={"broken-one.yaml": BROKEN}, source="test")
    assert report.errors and not report.created and not Question.objects.exists()


def test_an_alias_bomb_is_refused_without_expanding():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20)
    )
    report = pack_import(files={"bomb.yaml": bomb}, source="test")
    assert len(report.errors) == 1
    assert report.errors[0].startswith("bomb.yaml: yaml: anchors and aliases (*name) are not allowed")


def test_the_pages_export_a_zip_and_import_it_back_without_changes(client, author, bank):
    publish_grant_set(user=author, granted=True)
    assert client.login(username="ada", password=TEST_PASSWORD)
    response = client.get(reverse("authoring-pack-export"))
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert sorted(archive.namelist()) == sorted([f"{KV_QUESTION}.yaml", f"{PLAN_QUESTION}.yaml"])
    before = version_count()
    upload = io.BytesIO(response.content)
    upload.name = "pack.zip"
    page = client.post(reverse("authoring-pack-import"), {"pack": upload})
    assert page.status_code == 200 and b"0 new, 0 new versions, 2 unchanged." in page.content
    assert version_count() == before


def test_the_import_page_reports_a_broken_yaml_file(client, author):
    publish_grant_set(user=author, granted=True)
    assert client.login(username="ada", password=TEST_PASSWORD)
    upload = io.BytesIO(BROKEN.encode())
    upload.name = "broken-one.yaml"
    page = client.post(reverse("authoring-pack-import"), {"pack": upload})
    assert page.status_code == 400 and b"broken-one.yaml: track: is required" in page.content
    assert not Question.objects.exists()


def test_importing_needs_the_right_to_publish(client, author):
    assert client.login(username="ada", password=TEST_PASSWORD)
    upload = io.BytesIO((CORE_PACK / f"{KV_QUESTION}.yaml").read_bytes())
    upload.name = f"{KV_QUESTION}.yaml"
    assert client.post(reverse("authoring-pack-import"), {"pack": upload}).status_code == 404
    assert not Question.objects.exists()


def test_the_api_exports_and_imports_a_pack_with_a_round_trip_that_changes_nothing(author, bank):
    publish_grant_set(user=author, granted=True)
    api = APIClient()
    api.force_authenticate(author)
    exported = api.get("/api/authoring/packs/export/").json()
    assert [item["name"] for item in exported["files"]] == sorted(
        [f"{KV_QUESTION}.yaml", f"{PLAN_QUESTION}.yaml"]
    )
    before = version_count()
    response = api.post("/api/authoring/packs/import/", exported, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "created": [],
        "updated": [],
        "unchanged": sorted([KV_QUESTION, PLAN_QUESTION]),
        "errors": [],
    }
    assert version_count() == before


def test_the_api_import_lists_broken_files_and_loads_the_valid_ones(author):
    publish_grant_set(user=author, granted=True)
    api = APIClient()
    api.force_authenticate(author)
    files = [
        {"name": "broken-one.yaml", "content": BROKEN},
        {"name": f"{KV_QUESTION}.yaml", "content": (CORE_PACK / f"{KV_QUESTION}.yaml").read_text()},
    ]
    response = api.post("/api/authoring/packs/import/", {"files": files}, format="json")
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "pack_refused" and list(body["errors"]) == ["broken-one.yaml"]
    assert "track: is required" in body["errors"]["broken-one.yaml"]
    assert body["detail"] == "1 of 2 files were refused; the others were loaded."
    assert body["created"] == [KV_QUESTION]


def test_the_api_refuses_a_candidate(alice):
    api = APIClient()
    api.force_authenticate(alice)
    assert api.get("/api/authoring/packs/export/").status_code == 403
    assert api.post("/api/authoring/packs/import/", {"files": []}, format="json").status_code == 403
    assert api.post("/api/authoring/model-check/", {"model": {}}, format="json").status_code == 403


def test_the_api_checks_a_model_like_the_editor(author):
    api = APIClient()
    api.force_authenticate(author)
    model = read_yaml(CORE_PACK / f"{KV_QUESTION}.yaml")["model"]
    body = api.post("/api/authoring/model-check/", {"model": model}, format="json").json()
    assert body["ok"] and len(body["values"]) == len(model["quantities"])
    model["quantities"][-1]["formula"] = "__import__('os')"
    body = api.post(
        "/api/authoring/model-check/", json.loads(json.dumps({"model": model})), format="json"
    ).json()
    assert not body["ok"] and "not allowed" in body["problems"][0][1]


def test_the_schema_stays_valid(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200 and b"/api/authoring/packs/import/" in response.content


def test_pack_export_is_the_stored_version_as_yaml(bank, tmp_path):
    files = pack_export(slugs=[KV_QUESTION])
    assert list(files) == [f"{KV_QUESTION}.yaml"]
    path = Path(tmp_path / f"{KV_QUESTION}.yaml")
    path.write_text(files[path.name], encoding="utf-8")
    stored = Question.objects.get(slug=KV_QUESTION).current_version.spec
    assert json.loads(json.dumps(spec_to_dict(parse_question(read_yaml(path), path.name)))) == stored
