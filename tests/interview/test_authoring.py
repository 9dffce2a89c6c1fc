"""Authoring pages: drafts, the live model check, preview and try-it, sample answers, publishing, versions."""

import json

import pytest
from django.urls import reverse

from interview.models.authoring import Draft, SampleAnswer
from interview.services.authoring import (
    draft_create,
    draft_publish,
    draft_save,
    publish_grant_set,
    sample_save,
)
from questions.models import Question, QuestionVersion
from questions.services.packs import yaml_dump, yaml_read_text
from rounds.models import (
    Round,
    Work,  # noqa: F401 - rounds create their work row
)
from rounds.services.rounds import round_start, round_submit
from tests.conftest import TEST_PASSWORD
from tests.interview import authoring_fixtures as q

pytestmark = pytest.mark.django_db


def log_in(client, user):
    assert client.login(username=user.username, password=TEST_PASSWORD)
    return client


def editor_form(**overrides) -> dict:
    form = {
        "title": q.TITLE,
        "track": "inference",
        "difficulty": "medium",
        "kind": "design",
        "summary": q.SUMMARY,
        "prompt": q.PROMPT,
        "outline": q.OUTLINE,
        "plan": q.PLAN,
        "model": q.MODEL,
        "asked": q.ASKED,
        "rubric": q.RUBRIC,
        "follow_ups": q.FOLLOW_UPS,
        "mistakes": q.MISTAKES,
        "scenarios": q.SCENARIOS,
        "concepts": q.CONCEPTS,
        "related": "",
        "figures": "",
        "design": '{"nodes": [{"id": "gateway", "kind": "gateway", "label": "API gateway", "x": 1, "y": 2},'
        ' {"id": "router", "kind": "router"}, {"id": "engine", "kind": "engine"}],'
        ' "edges": [{"source": "gateway", "target": "router"}, {"source": "router", "target": "engine"}]}',
        "design_path": "",
    }
    form.update(overrides)
    return form


@pytest.fixture
def draft(author):
    draft = draft_create(owner=author, slug=q.SLUG, title=q.TITLE)
    return draft_save(draft=draft, data=q.question_dict())


@pytest.fixture
def publisher(author):
    publish_grant_set(user=author, granted=True)
    return author


def test_a_candidate_cannot_open_the_authoring_pages(client, charlie, draft):
    log_in(client, charlie)
    assert client.get(reverse("authoring-home")).status_code == 404
    assert client.get(reverse("authoring-draft", args=[draft.pk])).status_code == 404
    assert client.post(reverse("authoring-draft-new"), {"slug": "x"}).status_code == 404
    assert client.get(reverse("authoring-packs")).status_code == 404


def test_another_authors_draft_answers_404_but_an_admin_may_open_it(client, make_user, admin_user, draft):
    from interview.roles import Role

    other = make_user("grace", Role.AUTHOR)
    log_in(client, other)
    assert client.get(reverse("authoring-draft", args=[draft.pk])).status_code == 404
    assert client.post(reverse("authoring-model-check", args=[draft.pk]), {"model": ""}).status_code == 404
    assert client.get(reverse("authoring-publish", args=[draft.pk])).status_code == 404
    client.logout()
    log_in(client, admin_user)
    assert client.get(reverse("authoring-draft", args=[draft.pk])).status_code == 200


def test_an_author_creates_a_draft_from_scratch_and_saves_every_section(client, author):
    log_in(client, author)
    response = client.post(reverse("authoring-draft-new"), {"slug": q.SLUG, "title": q.TITLE})
    draft = Draft.objects.get(owner=author, slug=q.SLUG)
    assert response.url == reverse("authoring-draft", args=[draft.pk])
    page = client.get(response.url)
    assert page.status_code == 200 and b"Still to fix before publishing" in page.content
    response = client.post(reverse("authoring-draft", args=[draft.pk]), editor_form())
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.data["model"]["headline"] == "gpus_needed"
    assert draft.data["design"]["path"] == ["gateway", "router", "engine"]
    assert draft.data["design"]["nodes"][0] == {"id": "gateway", "kind": "gateway", "label": "API gateway"}
    assert draft.data["scenarios"][0]["name"] == "replica-lost-at-peak"
    page = client.get(reverse("authoring-draft", args=[draft.pk]))
    assert b"The draft validates" in page.content


def test_a_section_with_broken_yaml_is_not_saved_and_the_typed_text_is_kept(client, author, draft):
    log_in(client, author)
    response = client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(rubric="- [unclosed"))
    assert response.status_code == 400
    assert b"rubric" in response.content and b"cannot read the YAML" in response.content
    assert b"- [unclosed" in response.content
    draft.refresh_from_db()
    assert draft.data["rubric"] == json.loads(json.dumps(q.question_dict()["rubric"]))  # as JSON stores it


def test_yaml_aliases_are_refused_so_a_few_lines_cannot_expand_to_gigabytes(client, author, draft):
    log_in(client, author)
    bomb = 'a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\n'
    response = client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(mistakes=bomb))
    assert response.status_code == 400 and b"aliases" in response.content


def test_the_model_check_shows_values_with_units_and_the_graph(client, author, draft):
    log_in(client, author)
    response = client.post(
        reverse("authoring-model-check", args=[draft.pk]), {"model": q.MODEL}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'id="model-check"' in html and "The model checks out" in html
    assert "240,000 tok/s" in html and "125 GPUs" in html and "233,600 USD" in html
    assert html.count('class="node ') == 15
    assert 'data-source="peak_tok_rate" data-target="gpus_needed"' in html


def test_the_model_check_names_the_quantity_with_a_unit_error(client, author, draft):
    log_in(client, author)
    url = reverse("authoring-model-check", args=[draft.pk])
    html = client.post(url, {"model": q.MODEL_WITH_UNIT_ERROR}).content.decode()
    assert "<code>peak_tok_rate</code>: formula gives tok/s, declared req/s" in html
    assert "20,000 users" in html  # the part of the model that works still shows its values


def test_the_model_check_names_a_cycle_and_draws_it_in_red(client, author, draft):
    log_in(client, author)
    html = client.post(
        reverse("authoring-model-check", args=[draft.pk]), {"model": q.MODEL_WITH_CYCLE}
    ).content
    html = html.decode()
    assert "formulas form a cycle: peak_users → monthly_cost" in html
    assert 'class="edge cycle"' in html


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("__import__('os').system('x')", "not allowed"),
        ("daily_users.__class__", "not allowed"),
        ("daily_users ** 99", "exponents are limited"),
        ("(" * 40 + "daily_users" + ")" * 40, "nest more than"),
        ("daily_users + " * 60 + "1", "characters long"),
        ("log + daily_users", "log is a function"),
    ],
)
def test_the_model_check_refuses_hostile_formulas_with_a_clear_message(
    client, author, draft, formula, message
):
    log_in(client, author)
    model = {
        "headline": "x",
        "quantities": [
            {"name": "daily_users", "label": "U", "value": 1, "unit": "", "range": [0, 2], "source": "s"},
            {"name": "x", "label": "X", "formula": formula, "unit": ""},
        ],
    }
    html = client.post(reverse("authoring-model-check", args=[draft.pk]), {"model": yaml_dump(model)}).content
    assert message in html.decode().replace("&#x27;", "'")


def test_user_text_is_escaped_in_the_model_check_and_the_editor(client, author, draft):
    log_in(client, author)
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    data = q.question_dict()
    data["title"] = payload
    data["model"]["quantities"][0]["label"] = payload
    draft_save(draft=draft, data=data)
    for url in (reverse("authoring-draft", args=[draft.pk]), reverse("authoring-preview", args=[draft.pk])):
        html = client.get(url).content.decode()
        assert payload not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    model = q.MODEL.replace("Daily users", payload.replace('"', ""))
    html = client.post(reverse("authoring-model-check", args=[draft.pk]), {"model": model}).content.decode()
    assert "<script>" not in html and "<img" not in html


def test_the_preview_shows_what_a_candidate_sees_and_grades_a_typed_sheet(client, author, draft):
    log_in(client, author)
    page = client.get(reverse("authoring-preview", args=[draft.pk])).content.decode()
    assert q.PROMPT in page and 'id="n-peak_users"' in page
    assert "240,000" not in page and "ceil(" not in page and q.OUTLINE not in page
    sheet = {f"numbers.{name}": text for name, text in q.GOOD_SHEET.items()}
    response = client.post(reverse("authoring-preview", args=[draft.pk]), sheet, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="try-result"' in html and "Overall 100.0" in html and html.count('data-verdict="correct"') == 6
    assert ">Correct (within" in html and ">Arithmetic slip</option>" in html  # words, not verdict codes
    assert ">arithmetic_slip<" not in html and ">correct</td>" not in html


def test_a_sample_answer_is_saved_with_its_expected_verdicts_and_regraded_after_a_model_change(
    client, author, draft
):
    log_in(client, author)
    form = {"name": "a good one", "numbers": json.dumps(q.GOOD_SHEET)}
    form.update({f"expect.{name}": "correct" for name in q.GOOD_SHEET})
    client.post(reverse("authoring-sample-new", args=[draft.pk]), form)
    sample = SampleAnswer.objects.get(draft=draft)
    assert sample.expected == {name: "correct" for name in q.GOOD_SHEET}
    page = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    assert "every expected verdict holds" in page
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(model=q.MODEL_EDITED))
    page = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    assert "expected verdicts changed" in page
    assert "<code>gpus_needed</code>: expected Correct, now <strong>Arithmetic slip</strong>" in page
    publish_grant_set(user=author, granted=True)
    publish_page = client.get(reverse("authoring-publish", args=[draft.pk])).content.decode()
    assert publish_page.index("now <strong>Arithmetic slip") < publish_page.index("confirm-publish")
    client.post(reverse("authoring-sample-accept", args=[sample.pk]))
    sample.refresh_from_db()
    assert sample.expected["gpus_needed"] == "arithmetic_slip"


def test_an_author_without_a_grant_cannot_publish(client, author, draft):
    log_in(client, author)
    page = client.get(reverse("authoring-publish", args=[draft.pk])).content.decode()
    assert "cannot-publish" in page and "confirm-publish" not in page
    client.post(reverse("authoring-publish", args=[draft.pk]))
    assert not Question.objects.filter(slug=q.SLUG).exists()


def test_an_admin_lets_an_author_publish_from_the_publishers_page(client, author, admin_user, draft):
    log_in(client, author)
    assert client.get(reverse("authoring-publishers")).status_code == 404
    client.logout()
    log_in(client, admin_user)
    assert b"ada" in client.get(reverse("authoring-publishers")).content
    client.post(reverse("authoring-publishers"), {"user": author.pk, "grant": "1"})
    client.logout()
    log_in(client, author)
    response = client.post(reverse("authoring-publish", args=[draft.pk]))
    assert response.status_code == 302
    version = Question.objects.get(slug=q.SLUG).current_version
    assert version.number == 1 and version.source == "draft by ada" and version.created_by == author


def test_a_version_an_admin_publishes_credits_the_drafts_author(author, admin_user, draft):
    version = draft_publish(draft=draft, user=admin_user)
    assert version.created_by == author and version.source == "draft by ada, published by root"


def test_publishing_an_unchanged_draft_makes_no_new_version(client, publisher, draft):
    log_in(client, publisher)
    client.post(reverse("authoring-publish", args=[draft.pk]))
    client.post(reverse("authoring-publish", args=[draft.pk]))
    assert QuestionVersion.objects.filter(question__slug=q.SLUG).count() == 1


def test_a_round_keeps_its_version_and_its_report_when_the_question_changes(client, publisher, alice, draft):
    log_in(client, publisher)
    client.post(reverse("authoring-publish", args=[draft.pk]))
    question = Question.objects.get(slug=q.SLUG)
    round_ = round_start(candidate=alice, question=question, mode="practice", variant=False)
    work = round_.work
    work.numbers = dict(q.GOOD_SHEET)
    work.save()
    report = round_submit(round_id=round_.pk).report
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(model=q.MODEL_EDITED))
    client.post(reverse("authoring-publish", args=[draft.pk]))
    question.refresh_from_db()
    assert question.current_version.number == 2
    round_ = Round.objects.get(pk=round_.pk)
    assert round_.question_version.number == 1 and round_.report == report
    assert {line["verdict"] for line in report["lines"]} == {"correct"}


def test_rolling_back_publishes_the_old_content_as_a_new_version_and_the_diff_shows_the_change(
    client, publisher, draft
):
    log_in(client, publisher)
    client.post(reverse("authoring-publish", args=[draft.pk]))
    client.post(
        reverse("authoring-draft", args=[draft.pk]), editor_form(model=q.MODEL_EDITED, title="Renamed")
    )
    client.post(reverse("authoring-publish", args=[draft.pk]))
    diff = client.get(reverse("authoring-diff", args=[q.SLUG]) + "?a=1&b=2").content.decode()
    assert "model.gpu_tok_rate" in diff and "-value: 2500" in diff and "+value: 2000" in diff
    assert "+Renamed" in diff and "model.daily_users" not in diff
    client.post(reverse("authoring-republish", args=[q.SLUG, 1]))
    versions = QuestionVersion.objects.filter(question__slug=q.SLUG).order_by("number")
    assert [v.number for v in versions] == [1, 2, 3]
    assert versions[2].content_hash == versions[0].content_hash
    assert Question.objects.get(slug=q.SLUG).current_version == versions[2]
    page = client.get(reverse("authoring-versions", args=[q.SLUG])).content.decode()
    assert "Publish again (roll back)" in page


def test_an_author_without_a_grant_cannot_roll_back(client, author, admin_user, draft):
    from interview.services.authoring import draft_publish

    draft_publish(draft=draft, user=admin_user)
    data = dict(draft.data, title="Second")
    draft_publish(draft=draft_save(draft=draft, data=data), user=admin_user)
    log_in(client, author)
    client.post(reverse("authoring-republish", args=[q.SLUG, 1]))
    assert QuestionVersion.objects.filter(question__slug=q.SLUG).count() == 2


def test_editing_a_published_question_starts_a_draft_from_its_current_version(
    client, author, admin_user, draft
):
    from interview.services.authoring import draft_publish

    draft_publish(draft=draft, user=admin_user)
    log_in(client, admin_user)
    response = client.post(reverse("authoring-question-edit", args=[q.SLUG]))
    admins_draft = Draft.objects.get(owner=admin_user, slug=q.SLUG)
    assert response.url == reverse("authoring-draft", args=[admins_draft.pk])
    assert admins_draft.data == Question.objects.get(slug=q.SLUG).current_version.spec
    assert admins_draft.based_on.number == 1


def test_the_sheet_sections_round_trip_through_the_editor_unchanged(client, author, draft):
    log_in(client, author)
    page = client.get(reverse("authoring-draft", args=[draft.pk]))
    texts = page.context["texts"]
    assert yaml_read_text(texts["model"]) == q.question_dict()["model"]
    form = editor_form(**texts, design=page.context["canvas_design_json"], design_path="")
    draft.refresh_from_db()
    before = dict(draft.data)
    client.post(reverse("authoring-draft", args=[draft.pk]), form)
    draft.refresh_from_db()
    assert draft.data == before


def test_the_author_nav_link_shows_only_for_authors_and_admins(client, author, charlie):
    log_in(client, charlie)
    assert b">Authoring<" not in client.get(reverse("home")).content
    client.logout()
    log_in(client, author)
    assert b">Authoring<" in client.get(reverse("home")).content


def test_sample_save_keeps_only_short_text(draft):
    sample = sample_save(draft=draft, name="x" * 500, numbers={"a": "1" * 5000}, expected={"a": "correct"})
    assert len(sample.name) == 120 and len(sample.submission["numbers"]["a"]) == 2000


def test_the_live_model_check_regrades_the_sample_answers_before_anything_is_saved(client, author, draft):
    sample_save(
        draft=draft, name="a good one", numbers=q.GOOD_SHEET, expected=dict.fromkeys(q.GOOD_SHEET, "correct")
    )
    log_in(client, author)
    url = reverse("authoring-model-check", args=[draft.pk])
    html = client.post(url, {"model": q.MODEL}).content.decode()
    assert 'id="live-samples"' in html and "every expected verdict holds" in html
    html = client.post(url, {"model": q.MODEL_EDITED}).content.decode()
    assert "<code>gpus_needed</code>: expected Correct, now <strong>Arithmetic slip</strong>" in html
    draft.refresh_from_db()
    assert draft.data["model"]["quantities"][4]["value"] == 2500  # nothing saved


def test_the_publish_page_warns_when_someone_published_after_the_draft_started(
    client, admin_user, author, draft
):
    from interview.services.authoring import draft_publish

    draft_publish(draft=draft, user=admin_user)
    log_in(client, author)
    client.post(
        reverse("authoring-question-edit", args=[q.SLUG])
    )  # ada's draft is the one published: no warning
    assert b"stale-draft" not in client.get(reverse("authoring-publish", args=[draft.pk])).content
    admins = draft_create(owner=admin_user, slug=q.SLUG, title=q.TITLE)
    draft_publish(
        draft=draft_save(draft=admins, data=dict(admins.data, title="Admin's edit")), user=admin_user
    )
    assert b"stale-draft" in client.get(reverse("authoring-publish", args=[draft.pk])).content


def test_the_editor_shows_two_sample_drills_for_each_step(client, author, draft):
    log_in(client, author)
    html = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    assert 'id="drill-samples"' in html
    section = html[html.index('id="drill-samples"') :]
    item = section[section.index('data-quantity="peak_req_rate"') :]
    item = item[: item.index("</li>\n")] if "</li>\n" in item else item
    assert item.count("Peak request rate?") == 2  # the default wording: the givens, then the line's label


def test_the_editor_refuses_a_drill_wording_whose_inputs_do_not_determine_the_answer(client, author, draft):
    log_in(client, author)
    asked = q.ASKED.replace(
        "- {name: peak_req_rate, phase: numbers}",
        '- {name: peak_req_rate, phase: numbers, drill: "{peak_users} users online. Requests a second?"}',
    )
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(asked=asked))
    html = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    assert "asked[1].drill" in html
    assert "the wording does not give {req_per_user}, so its inputs do not determine the answer" in html


# A draft that fell behind, and the publish page's difference.


def _draft_behind(admin_user, draft, mine: dict | None = None, theirs: dict | None = None):
    """ada's draft, published as version 1 and changed since (mine); then the admin publishes version 2 over
    it with other changes (theirs)."""
    from interview.services.authoring import draft_publish

    draft_publish(draft=draft, user=admin_user)
    draft_save(draft=draft, data=dict(draft.data, **(mine or {"summary": "Ada's new summary"})))
    admins = draft_create(owner=admin_user, slug=q.SLUG, title=q.TITLE)
    changed = dict(admins.data, **(theirs or {"title": "Admin's edit"}))
    draft_publish(draft=draft_save(draft=admins, data=changed), user=admin_user)
    draft.refresh_from_db()
    return draft


def test_the_editor_warns_of_versions_published_after_the_draft_began(client, author, admin_user, draft):
    log_in(client, author)
    assert b'id="stale-draft"' not in client.get(reverse("authoring-draft", args=[draft.pk])).content
    behind = _draft_behind(admin_user, draft)
    page = client.get(reverse("authoring-draft", args=[behind.pk])).content.decode()
    assert 'id="stale-draft"' in page and "started from version 1" in page and "version 2 by root" in page
    assert "Carry my changes onto version 2" in page and "Start again from version 2" in page


def test_carrying_the_changes_keeps_the_drafts_and_takes_the_newer_versions(
    client, author, admin_user, draft
):
    behind = _draft_behind(admin_user, draft)
    log_in(client, author)
    client.post(reverse("authoring-draft-carry", args=[behind.pk]))
    behind.refresh_from_db()
    assert behind.based_on.number == 2
    assert behind.data["summary"] == "Ada's new summary" and behind.data["title"] == "Admin's edit"
    assert b'id="stale-draft"' not in client.get(reverse("authoring-draft", args=[behind.pk])).content


def test_starting_again_takes_the_latest_version_as_it_is(client, author, admin_user, draft):
    behind = _draft_behind(admin_user, draft)
    log_in(client, author)
    client.post(reverse("authoring-draft-restart", args=[behind.pk]))
    behind.refresh_from_db()
    latest = QuestionVersion.objects.get(question__slug=q.SLUG, number=2)
    assert behind.based_on == latest and behind.data == latest.spec


def test_carrying_a_section_both_sides_changed_keeps_the_drafts_and_names_it(admin_user, draft):
    from interview.services.authoring import draft_carry_onto_latest

    behind = _draft_behind(
        admin_user, draft, mine={"title": "Ada's title"}, theirs={"title": "Admin's title"}
    )
    assert draft_carry_onto_latest(draft=behind) == ["title"]
    assert behind.data["title"] == "Ada's title"


def test_the_publish_diff_ignores_defaults_and_empty_sections(client, publisher, draft):
    from interview.services.authoring import draft_canonical
    from interview.services.version_diff import version_diff

    log_in(client, publisher)
    client.post(reverse("authoring-publish", args=[draft.pk]))
    current = Question.objects.get(slug=q.SLUG).current_version.spec
    sparse = {key: value for key, value in current.items() if value not in ([], {}, "")}
    with_empties = dict(current, figures=[], related=[], mistakes=current.get("mistakes") or [])
    assert version_diff(draft_canonical(sparse), draft_canonical(with_empties)) == []
    draft_save(draft=draft, data=with_empties)
    page = client.get(reverse("authoring-publish", args=[draft.pk])).content.decode()
    assert '<p class="muted" id="diff">No differences.</p>' in page
    changed = version_diff(draft_canonical(current), draft_canonical(dict(current, summary="New words")))
    assert [section.name for section in changed] == ["summary"]


def test_the_reason_there_is_no_publish_button_comes_first(client, author, draft):
    log_in(client, author)
    page = client.get(reverse("authoring-publish", args=[draft.pk])).content.decode()
    assert 'id="confirm-publish"' not in page
    assert page.index('id="cannot-publish"') < page.index('id="samples"')


def test_numbers_keep_the_authors_notation_in_the_editor_and_the_model_check(client, author, draft):
    model = q.MODEL.replace(
        "value: 200000, unit: user, range: [50000, 1000000]", "value: 13e9, unit: user, range: [1e9, 1e11]"
    )
    log_in(client, author)
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(model=model))
    draft.refresh_from_db()
    daily = next(x for x in draft.data["model"]["quantities"] if x["name"] == "daily_users")
    assert daily["value"] == 13e9 and daily["range"] == [1e9, 1e11]
    page = client.get(reverse("authoring-draft", args=[draft.pk]))
    model_text = page.context["texts"]["model"]  # the author's own text, as typed
    assert "value: 13e9, unit: user, range: [1e9, 1e11]" in model_text
    html = page.content.decode()
    assert "1e9 to 1e11" in html and "1000000000.0" not in html and "13000000000.0" not in html
    checked = client.post(
        reverse("authoring-model-check", args=[draft.pk]), {"model": model}, HTTP_HX_REQUEST="true"
    )
    assert "1e9 to 1e11" in checked.content.decode()


CURVEBALLS = """\
- id: peak-doubles
  title: "Twice the share online at peak"
  set: {peak_fraction: 0.2}
  says: "Now {peak_fraction} of daily users are online at peak."
  asked:
    - {name: peak_req_rate}
    - {name: gpus_needed, check: count}
  design:
    - {kind: router, names: "pick the replica by model, prefix and load", says: "The router spreads by load."}
- id: answers-double
  title: "Answers double"
  set: {tokens_per_req: 1200}
  says: "Answers are now {tokens_per_req} long."
  asked:
    - {name: peak_tok_rate}
    - {name: gpus_needed, check: count}
  design:
    - {kind: router, names: "pick the replica by model, prefix and load", says: "The router spreads by load."}
"""


def test_the_editor_refuses_a_curveball_line_the_change_does_not_move(client, author, draft):
    log_in(client, author)
    unmoved = CURVEBALLS.replace("- {name: peak_tok_rate}", "- {name: peak_req_rate}")
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(curveballs=unmoved))
    html = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    # Longer answers move tokens, not requests: 200,000 x 0.1 x 0.02 = 400 req/s either way.
    assert "curveballs[1].asked[0].name" in html
    assert "peak_req_rate is 400 req/s under the change, and its value before passes" in html


def test_the_preview_shows_each_curveball_before_and_under_its_change(client, author, draft):
    log_in(client, author)
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(curveballs=CURVEBALLS))
    assert Draft.objects.get(pk=draft.pk).data["curveballs"][0]["id"] == "peak-doubles"
    html = client.get(reverse("authoring-preview", args=[draft.pk])).content.decode()
    # 200,000 x 0.2 = 40,000 online x 0.02 = 800 req/s (400 before); GPUs ceil(800 x 600 x 1.3 / 2,500) = 250
    # (125 before).
    assert "Now 0.2 of daily users are online at peak." in html
    assert "<td>Peak request rate</td><td>400 req/s</td><td>800 req/s</td>" in html
    assert "<td>GPUs needed</td><td>125 GPUs</td><td>250 GPUs</td>" in html


def test_a_new_draft_of_a_published_question_keeps_its_sample_answers(author, admin_user, draft):
    sample_save(
        draft=draft, name="a good one", numbers=dict(q.GOOD_SHEET), expected={"gpus_needed": "correct"}
    )
    draft_publish(draft=draft, user=admin_user)
    next_draft = draft_create(owner=admin_user, slug=q.SLUG, title=q.TITLE)
    assert next_draft.pk != draft.pk
    assert [(s.name, s.expected) for s in next_draft.samples.all()] == [
        ("a good one", {"gpus_needed": "correct"})
    ]


def test_the_editor_keeps_each_yaml_section_as_the_author_wrote_it_comments_included(client, author, draft):
    log_in(client, author)
    mistakes = "# what candidates get wrong most\n- Forgets the peak factor   # seen in 3 of 5 mocks\n"
    client.post(reverse("authoring-draft", args=[draft.pk]), editor_form(mistakes=mistakes))
    assert Draft.objects.get(pk=draft.pk).data["mistakes"] == ["Forgets the peak factor"]
    page = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    assert "# what candidates get wrong most\n- Forgets the peak factor   # seen in 3 of 5 mocks" in page


NO_ORDER_DECISION = """\
- phase: depth
  text: "What if answers double in length?"
  id: answers-double-what
  options:
    - {id: resize, choice: "Re-derive the fleet from tokens.", tradeoff: "A minute of arithmetic."}
    - {id: cap, choice: "Cap the answer length.", tradeoff: "Users notice."}
    - {id: ignore, choice: "Change nothing.", tradeoff: "The fleet runs out."}
  orders: []
"""


def test_the_editor_checks_follow_ups_and_curveballs_live_as_they_are_typed(client, author, draft):
    log_in(client, author)
    form = editor_form(curveballs=CURVEBALLS)
    url = reverse("authoring-follow-ups-check", args=[draft.pk])
    html = client.post(url, dict(form, follow_ups=NO_ORDER_DECISION), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="depth-problems-follow_ups"' in html and "follow_ups[0].orders" in html
    fixed = NO_ORDER_DECISION.replace("orders: []", "orders:\n    - [resize, cap]")
    html = client.post(url, dict(form, follow_ups=fixed), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="depth-ok-follow_ups"' in html
    # Longer answers move tokens, not requests: the line does not change under the curveball.
    url = reverse("authoring-curveballs-check", args=[draft.pk])
    unmoved = CURVEBALLS.replace("- {name: peak_tok_rate}", "- {name: peak_req_rate}")
    html = client.post(url, dict(form, curveballs=unmoved), HTTP_HX_REQUEST="true").content.decode()
    assert "curveballs[1].asked[0].name" in html
    # A change that leaves the model's range: 5 is past peak_fraction's plausible range.
    broken = CURVEBALLS.replace("set: {peak_fraction: 0.2}", "set: {peak_fraction: 5}")
    html = client.post(url, dict(form, curveballs=broken), HTTP_HX_REQUEST="true").content.decode()
    assert "curveballs[0].set" in html
    html = client.post(url, dict(form, curveballs="- [unclosed"), HTTP_HX_REQUEST="true").content.decode()
    assert "cannot read the YAML" in html
    editor = client.get(reverse("authoring-draft", args=[draft.pk])).content.decode()
    assert 'id="depth-check-curveballs"' in editor and 'hx-post="/authoring/drafts/' in editor


def test_the_reference_on_the_question_page_shows_each_follow_up_as_its_decision(
    client, author, charlie, tmp_path
):
    from tests.interview.bank_fixtures import load_questions

    load_questions(tmp_path, "shared-gpu-cluster-scheduling")
    url = reverse("question-detail", args=["shared-gpu-cluster-scheduling"])
    log_in(client, author)
    page = client.get(url).content.decode()
    item = page[page.index('id="reference-follow-up-when-to-split"') :]
    item = item[: item.index("</li>\n    <li") if "</li>\n    <li" in item else len(item)]
    assert "Split when production needs an isolation no scheduler policy gives" in item
    assert (
        "At this fleet&#x27;s numbers about a hundred GPUs of night capacity stop reaching training." in item
    )
    assert "split-on-isolation → split-on-measured-interference → count-the-loss" in item
    assert "96 to 112 GPU" in item
    log_in(client, charlie)
    assert "reference-follow-up-when-to-split" not in client.get(url).content.decode()


def test_the_preview_says_which_follow_up_bands_follow_a_variant(client, author):
    from pathlib import Path

    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_question

    bank = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core" / "kv-cache-tiering.yaml"
    data = spec_to_dict(load_question(bank))
    draft = draft_save(draft=draft_create(owner=author, slug=data["slug"], title=data["title"]), data=data)
    log_in(client, author)
    page = client.get(reverse("authoring-preview", args=[draft.pk])).content.decode()
    assert "recomputes now take: 25.0 to 30.0 % at the defaults, following saved_frac in a variant" in page
