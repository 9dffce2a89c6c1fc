"""Only a browser can show that a hostile comment stays text: no script runs, no dialog opens, and the
htmx thread, vote and bookmark work under the Content-Security-Policy without a page reload."""

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from interview.models import Bookmark, Comment
from tests.browser.conftest import log_in
from tests.interview.community_helpers import BATCHING_SLUG, questions_load

PAYLOAD = (
    "<script>window.__pwned = 'script'</script>\n"
    "<img src=x onerror=\"window.__pwned = 'img'; alert(1)\">\n"
    "[click me](javascript:window.__pwned='link')\n"
    "<svg onload=\"window.__pwned = 'svg'\"></svg> <b onmouseover=\"window.__pwned='hover'\">hover</b>"
)


@pytest.fixture
def question(transactional_db, tmp_path):
    cache.clear()
    return questions_load(tmp_path)[BATCHING_SLUG]


def test_a_payload_comment_renders_as_text_and_runs_no_script(page, alice, question):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page, "alice")
    page.goto(f"/questions/{question.slug}/")
    page.evaluate("window.__marker = 'same page'")
    page.get_by_role("link", name="Open it anyway").click()
    page.get_by_label("Share your approach").fill(PAYLOAD)
    page.get_by_role("button", name="Post", exact=True).click()

    body = page.locator(".comment-body").first
    expect(body).to_contain_text("<script>window.__pwned = 'script'</script>")
    expect(body).to_contain_text("<img src=x onerror=")
    assert page.evaluate("window.__marker") == "same page"  # htmx swapped the thread, no reload
    assert body.locator("script, img, svg, iframe").count() == 0
    assert body.locator("a").count() == 0  # the javascript: link stayed text
    body.hover()
    page.locator(".comment-body").first.click(position={"x": 5, "y": 5})
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert dialogs == []

    page.reload()  # the stored comment, served with the whole page
    page.goto(f"/questions/{question.slug}/?discussion=open")
    expect(page.locator(".comment-body").first).to_contain_text("<script>")
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert dialogs == []
    assert Comment.objects.get().body_markdown == PAYLOAD


def test_votes_and_bookmarks_toggle_in_place(page, alice, bob, question):
    from interview.services.discussion import comment_create

    comment = comment_create(question=question, author=bob, body="Worth a vote")
    log_in(page, "alice")
    page.goto(f"/questions/{question.slug}/?discussion=open")
    page.evaluate("window.__marker = 'same page'")
    vote = page.locator(f"#vote-{comment.pk} button")
    vote.click()
    expect(page.locator(f"#vote-{comment.pk} button")).to_have_text("▲ 1")
    expect(page.locator(f"#vote-{comment.pk} button")).to_have_attribute("aria-pressed", "true")
    page.locator(f"#bookmark-{question.slug} button").click()
    expect(page.locator(f"#bookmark-{question.slug} button")).to_have_text("★ Bookmarked")
    assert page.evaluate("window.__marker") == "same page"
    assert Bookmark.objects.filter(user=alice, question=question).exists()


def test_an_anchored_comment_a_reply_and_the_filter_work_in_place(page, alice, bob, question):
    from interview.services.discussion import comment_create

    comment_create(question=question, author=bob, body="About the plan", anchor_key="phase:numbers")
    log_in(page, "alice")
    page.goto(f"/questions/{question.slug}/")
    page.evaluate("window.__marker = 'same page'")
    page.get_by_role("link", name="Open it anyway").click()
    page.get_by_label("Share your approach").fill("GQA keeps it at 320 KiB")
    page.get_by_label("About").select_option("quantity:kv_bytes_per_token")
    expect(page.get_by_label("Share your approach")).to_have_value("GQA keeps it at 320 KiB")
    page.get_by_role("button", name="Post", exact=True).click()
    expect(page.locator(".comment-item").first).to_contain_text("on KV cache per token")

    # Let htmx finish settling the swapped thread before using its filter (a person cannot be this quick).
    expect(page.locator(".htmx-request, .htmx-settling, .htmx-swapping")).to_have_count(0)
    page.get_by_label("Show comments on").select_option("phase:numbers")
    expect(page.locator(".comment-body")).to_have_count(1)
    expect(page.locator(".comment-body").first).to_contain_text("About the plan")

    page.get_by_text("Reply", exact=True).first.click()
    page.get_by_label("Your reply").fill("Agreed")
    page.get_by_role("button", name="Reply", exact=True).click()
    expect(page.locator(".replies")).to_contain_text("Agreed")
    expect(page.locator(".comment-body")).to_have_count(2)  # still filtered: the comment and its reply
    assert page.evaluate("window.__marker") == "same page"
