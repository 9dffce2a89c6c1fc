"""An author's draft falls behind a newer version: the editor says so at the top and carries the author's
changes onto the newer version in place."""

import pytest
from playwright.sync_api import expect

from interview.services.authoring import draft_create, draft_publish, draft_save
from tests.browser.conftest import log_in
from tests.interview import authoring_fixtures as q


@pytest.fixture
def draft_behind(author, admin_user, transactional_db):
    draft = draft_save(draft=draft_create(owner=author, slug=q.SLUG, title=q.TITLE), data=q.question_dict())
    draft_publish(draft=draft, user=admin_user)
    draft_save(draft=draft, data=dict(draft.data, summary="Ada's new summary"))
    admins = draft_create(owner=admin_user, slug=q.SLUG, title=q.TITLE)
    draft_publish(
        draft=draft_save(draft=admins, data=dict(admins.data, title="Admin's edit")), user=admin_user
    )
    return draft


def test_edit_as_a_draft_warns_of_a_newer_version_and_carries_the_changes_onto_it(page, draft_behind):
    log_in(page, "ada")
    page.goto("/authoring/")
    page.get_by_role("button", name="Edit as a draft").click()
    page.wait_for_url(f"**/authoring/drafts/{draft_behind.pk}/")
    warning = page.locator("#stale-draft")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("started from version 1")
    expect(warning).to_contain_text("version 2 by root")
    box = warning.bounding_box()
    assert box is not None and box["y"] < page.locator("#draft-status").bounding_box()["y"]

    warning.get_by_role("button", name="Carry my changes onto version 2").click()
    expect(page.locator(".messages")).to_contain_text("Your changes now sit on version 2")
    expect(page.locator("#stale-draft")).to_have_count(0)
    expect(page.locator("h1")).to_contain_text("Admin's edit")
    expect(page.locator("#f-summary")).to_have_value("Ada's new summary")
