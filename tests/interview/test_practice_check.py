"""The practice check page: type numbers for a question, see them graded; nothing is saved."""

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from tests.interview.bank_fixtures import KV_QUESTION, load_questions

pytestmark = pytest.mark.django_db
SLUG = KV_QUESTION


@pytest.fixture
def published(tmp_path):
    return load_questions(tmp_path, SLUG)[SLUG]


def url(slug: str = SLUG) -> str:
    return reverse("practice-check", args=[slug])


def test_it_shows_one_box_per_asked_quantity_with_its_label_and_unit_but_no_value(client, alice, published):
    client.force_login(alice)
    response = client.get(url())
    assert response.status_code == 200
    page = response.content.decode()
    spec = published.current_version.spec
    units = {q["name"]: q["unit"] for q in spec["model"]["quantities"]}
    labels = {q["name"]: q["label"] for q in spec["model"]["quantities"]}
    for line in spec["asked"]:
        assert f'name="{line["name"]}"' in page
        assert escape(labels[line["name"]]) in page
        if units[line["name"]]:
            assert f"(in {escape(units[line['name']])})" in page
    assert re.findall(r'<input type="text"[^>]*value="([^"]*)"', page) == [""] * len(spec["asked"])
    assert 'id="grading-report"' not in page


def test_posting_numbers_shows_the_report_and_keeps_what_was_typed(client, alice, published):
    client.force_login(alice)
    response = client.post(url(), {"reload_dram_s": "25 ms", "kv_conv": "98 GB"})
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="grading-report"' in page
    assert 'id="report-line-kv_conv"' in page
    assert "Arithmetic slip" in page and "check the power of ten" in page
    assert 'value="98 GB"' in page
    assert "What moves the answer most" in page


def test_the_page_has_no_inline_script_or_style(client, alice, published):
    client.force_login(alice)
    page = client.post(url(), {"kv_conv": "9.8 GB"}).content.decode()
    assert "style=" not in page
    assert not re.search(r"<style", page)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page)


def test_anyone_signed_in_may_practise_but_visitors_are_sent_to_log_in(client, charlie, published):
    response = client.get(url())
    assert response.status_code == 302 and reverse("login") in response["Location"]
    client.force_login(charlie)
    assert client.get(url()).status_code == 200


def test_an_unknown_question_is_a_404(client, alice):
    client.force_login(alice)
    assert client.get(url("nope")).status_code == 404


def test_text_longer_than_the_box_allows_is_a_form_error(client, alice, published):
    client.force_login(alice)
    page = client.post(url(), {"kv_conv": "9" * 300}).content.decode()
    assert 'id="grading-report"' not in page
    assert "errorlist" in page
