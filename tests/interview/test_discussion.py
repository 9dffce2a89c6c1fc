"""The discussion under a question: safe Markdown, the spoiler guard, anchors, replies, edits, deletes, votes,
sorting, moderation, rate limits and a bounded number of queries on a long thread."""

from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from interview import markdown as markdown_module
from interview.markdown import markdown_render
from interview.models import Comment, Report, ThreadLock, Vote
from interview.services import discussion as discussion_services
from interview.services.discussion import comment_create
from tests.interview.community_helpers import BATCHING_SLUG, questions_load, round_record

pytestmark = pytest.mark.django_db

PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '<img src="x" onerror="window.__pwned = 1">',
    '<a href="javascript:window.__pwned=1">click</a>',
    "[click](javascript:window.__pwned=1)",
    "[click](JaVaScRiPt:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<svg/onload="window.__pwned=1">',
    "<div><p>unclosed <b onclick='window.__pwned=1'>bold",
    '<iframe src="https://example.com"></iframe>',
    "**ok** <style>body{display:none}</style>",
    '"><script>window.__pwned=1</script>',
    '![x](https://example.com/x.png" onerror="window.__pwned=1)',
]


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def question(tmp_path):
    return questions_load(tmp_path)[BATCHING_SLUG]


def thread_url(question, **query) -> str:
    url = reverse("question-detail", args=[question.slug])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def post_url(question) -> str:
    return reverse("comment-post", args=[question.slug])


def say(question, author, body="A thought", **kwargs) -> Comment:
    return comment_create(question=question, author=author, body=body, **kwargs)


# Markdown, rendered once and sanitised


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {name: value or "" for name, value in attrs}))


def elements(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.found


def assert_harmless(html: str) -> None:
    for tag, attrs in elements(html):
        assert tag not in {"script", "img", "svg", "iframe", "style", "object", "embed"} or (
            tag == "script" and attrs.get("src", "").startswith("/static/")
        ), (tag, attrs)
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("href", "src", "action", "formaction"):
            assert not attrs.get(name, "").strip().lower().startswith(("javascript:", "data:")), (tag, attrs)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markup_payloads_in_a_comment_are_neutralised(client, alice, question, payload):
    client.force_login(alice)
    client.post(post_url(question), {"body": payload})
    comment = Comment.objects.get()
    assert_harmless(comment.body_html)
    assert {tag for tag, _ in elements(comment.body_html)} <= {"p", "a", "strong", "em", "b", "div"}
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert f'id="comment-{comment.pk}"' in page
    assert_harmless(page)


def test_markdown_keeps_ordinary_formatting_and_marks_links_nofollow():
    html = markdown_render("**bold**, `code`, [a link](https://example.com), [mail](mailto:a@example.com)")
    assert "<strong>bold</strong>" in html
    assert "<code>code</code>" in html
    assert '<a href="https://example.com" rel="nofollow noopener noreferrer">a link</a>' in html
    assert 'href="mailto:a@example.com"' in html


def test_the_body_is_rendered_once_when_saved(client, alice, question, monkeypatch):
    comment = say(question, alice, "*first*")
    assert comment.body_html == "<p><em>first</em></p>\n"

    def render_again(text: str) -> str:
        raise AssertionError("the thread rendered Markdown again")

    monkeypatch.setattr(markdown_module._markdown, "render", render_again)
    client.force_login(alice)
    assert "<em>first</em>" in client.get(thread_url(question, discussion="open")).content.decode()


def test_a_comment_longer_than_the_cap_is_refused(client, alice, question):
    client.force_login(alice)
    body = "x" * (discussion_services.COMMENT_MAX_LENGTH + 1)
    response = client.post(post_url(question), {"body": body})
    assert response.status_code == 400
    assert "at most 4000 characters" in response.content.decode()
    assert not Comment.objects.exists()


def test_an_empty_comment_is_refused(client, alice, question):
    client.force_login(alice)
    response = client.post(post_url(question), {"body": "   "})
    assert response.status_code == 400
    assert not Comment.objects.exists()


# The spoiler guard


def test_the_discussion_is_folded_until_the_person_has_submitted_a_round(client, alice, bob, question):
    say(question, bob, "Spoiler: the zebra batch")
    client.force_login(alice)
    page = client.get(thread_url(question)).content.decode()
    assert "Open it anyway" in page
    assert "the zebra batch" not in page
    assert "Discussion · 1" in page


def test_a_person_may_open_the_folded_discussion_anyway(client, alice, bob, question):
    say(question, bob, "Spoiler: the zebra batch")
    client.force_login(alice)
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert "the zebra batch" in page
    assert "Open it anyway" not in page


def test_opening_anyway_with_htmx_answers_only_the_thread(client, alice, bob, question):
    say(question, bob, "Spoiler: the zebra batch")
    client.force_login(alice)
    url = reverse("discussion-thread", args=[question.slug]) + "?discussion=open"
    response = client.get(url, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="discussion-thread"')
    assert "the zebra batch" in html
    assert "<html" not in html


def test_the_thread_url_without_htmx_sends_people_to_the_question_page(client, alice, question):
    client.force_login(alice)
    response = client.get(reverse("discussion-thread", args=[question.slug]) + "?discussion=open")
    assert response.status_code == 302
    assert response.url == thread_url(question, discussion="open") + "#discussion"


def test_the_discussion_opens_by_itself_after_a_submitted_round(client, alice, bob, question):
    say(question, bob, "Spoiler: the zebra batch")
    round_record(alice, question, status="active")
    client.force_login(alice)
    assert "the zebra batch" not in client.get(thread_url(question)).content.decode()
    round_record(alice, question, status="submitted", score=70)
    assert "the zebra batch" in client.get(thread_url(question)).content.decode()


def test_someone_logged_out_sees_the_guard_and_can_open_it_but_not_post(client, bob, question):
    say(question, bob, "Spoiler: the zebra batch")
    assert "Open it anyway" in client.get(thread_url(question)).content.decode()
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert "the zebra batch" in page
    assert "Log in</a> to join the discussion" in page
    response = client.post(post_url(question), {"body": "hello"})
    assert response.status_code == 302
    assert "/accounts/login/" in response.url
    assert Comment.objects.count() == 1


# Anchors


def test_a_comment_can_be_anchored_to_a_quantity_and_the_thread_filtered_by_it(client, alice, question):
    client.force_login(alice)
    client.post(post_url(question), {"body": "320 KiB is GQA", "on": "quantity:kv_bytes_per_token"})
    client.post(post_url(question), {"body": "About the plan", "on": "phase:numbers"})
    client.post(post_url(question), {"body": "General remark"})
    anchored = Comment.objects.get(body_markdown="320 KiB is GQA")
    assert (anchored.anchor_kind, anchored.anchor_value) == ("quantity", "kv_bytes_per_token")
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert "on KV cache per token" in page
    assert "on Numbers" in page
    filtered = client.get(thread_url(question, discussion="open", on="quantity:kv_bytes_per_token")).content
    assert b"320 KiB is GQA" in filtered
    assert b"About the plan" not in filtered
    assert b"General remark" not in filtered
    by_phase = client.get(thread_url(question, discussion="open", on="phase:numbers")).content
    assert b"About the plan" in by_phase
    assert b"320 KiB is GQA" not in by_phase


def test_an_anchor_the_question_does_not_have_is_refused(client, alice, question):
    client.force_login(alice)
    response = client.post(post_url(question), {"body": "hm", "on": "quantity:no_such_thing"})
    assert response.status_code == 400
    assert "Pick a step of the plan or a quantity" in response.content.decode()
    assert not Comment.objects.exists()


def test_an_unknown_anchor_in_the_filter_shows_the_whole_thread(client, alice, question):
    say(question, alice, "General remark")
    client.force_login(alice)
    response = client.get(thread_url(question, discussion="open", on="quantity:nope"))
    assert b"General remark" in response.content


# Replies


def test_a_reply_appears_under_its_comment(client, alice, bob, question):
    top = say(question, alice, "Top-level")
    client.force_login(bob)
    client.post(post_url(question), {"body": "A reply", "parent": top.pk})
    reply = Comment.objects.get(body_markdown="A reply")
    assert reply.parent == top
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert page.index("Top-level") < page.index('class="replies"') < page.index("A reply")


def test_a_reply_to_a_reply_stays_one_level_deep(alice, bob, charlie, question):
    top = say(question, alice, "Top-level")
    reply = say(question, bob, "Reply", parent=top)
    deeper = say(question, charlie, "Reply to the reply", parent=reply)
    assert deeper.parent == top


def test_a_reply_to_a_comment_of_another_question_is_404(client, alice, bob, tmp_path, question):
    other = questions_load(tmp_path)["forty-five-minute-plan"]
    elsewhere = say(other, alice, "Elsewhere")
    client.force_login(bob)
    response = client.post(post_url(question), {"body": "x", "parent": elsewhere.pk})
    assert response.status_code == 404


# Editing and deleting


def test_the_author_edits_within_the_window_and_the_comment_shows_edited(client, alice, question):
    comment = say(question, alice, "Frist")
    client.force_login(alice)
    assert client.get(reverse("comment-edit", args=[comment.pk])).status_code == 200
    response = client.post(reverse("comment-edit", args=[comment.pk]), {"body": "*First*"})
    assert response.status_code == 302
    comment.refresh_from_db()
    assert comment.body_html == "<p><em>First</em></p>\n"
    assert comment.edited_at is not None
    assert "(edited)" in client.get(thread_url(question, discussion="open")).content.decode()


def test_editing_after_the_window_is_refused(client, alice, question):
    comment = say(question, alice, "Old words")
    Comment.objects.filter(pk=comment.pk).update(created_at=timezone.now() - timedelta(minutes=16))
    client.force_login(alice)
    response = client.post(reverse("comment-edit", args=[comment.pk]), {"body": "New words"})
    assert response.status_code == 400
    comment.refresh_from_db()
    assert comment.body_markdown == "Old words"
    assert comment.edited_at is None


def test_editing_someone_elses_comment_is_404(client, alice, bob, question):
    comment = say(question, alice, "Mine")
    client.force_login(bob)
    assert client.get(reverse("comment-edit", args=[comment.pk])).status_code == 404
    assert client.post(reverse("comment-edit", args=[comment.pk]), {"body": "Yours"}).status_code == 404
    comment.refresh_from_db()
    assert comment.body_markdown == "Mine"


def test_deleting_someone_elses_comment_is_404(client, alice, charlie, question):
    comment = say(question, alice, "Mine")
    client.force_login(charlie)
    assert client.post(reverse("comment-delete", args=[comment.pk])).status_code == 404
    assert Comment.objects.filter(pk=comment.pk, deleted=False).exists()


def test_deleting_a_comment_without_replies_removes_it(client, alice, question):
    comment = say(question, alice, "Regret")
    client.force_login(alice)
    response = client.post(reverse("comment-delete", args=[comment.pk]))
    assert response.status_code == 302
    assert not Comment.objects.exists()


def test_deleting_a_comment_with_replies_leaves_deleted_in_the_thread(client, alice, bob, question):
    comment = say(question, alice, "Regret")
    say(question, bob, "Still useful", parent=comment)
    client.force_login(alice)
    client.post(reverse("comment-delete", args=[comment.pk]))
    comment.refresh_from_db()
    assert comment.deleted
    assert comment.body_markdown == "" and comment.body_html == ""
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert "[deleted]" in page
    assert "Regret" not in page
    assert "Still useful" in page


def test_when_the_last_reply_under_a_deleted_comment_goes_the_mark_goes_too(client, alice, bob, question):
    comment = say(question, alice, "Regret")
    reply = say(question, bob, "Still useful", parent=comment)
    client.force_login(alice)
    client.post(reverse("comment-delete", args=[comment.pk]))
    client.force_login(bob)
    client.post(reverse("comment-delete", args=[reply.pk]))
    assert not Comment.objects.exists()


def test_deleting_with_htmx_answers_the_thread(client, alice, question):
    comment = say(question, alice, "Regret")
    client.force_login(alice)
    response = client.post(
        reverse("comment-delete", args=[comment.pk]) + "?discussion=open", headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert 'id="discussion-thread"' in response.content.decode()
    assert "Regret" not in response.content.decode()


# Votes


def test_a_vote_toggles_and_counts_once_per_person(client, alice, bob, charlie, question):
    comment = say(question, alice, "Vote for me")
    url = reverse("comment-vote", args=[comment.pk])
    client.force_login(bob)
    response = client.post(url, headers={"HX-Request": "true"})
    assert f'id="vote-{comment.pk}"' in response.content.decode()
    assert "▲ 1" in response.content.decode()
    client.post(url, {"up": "1"}, headers={"HX-Request": "true"})  # a second "up" from a stale page
    assert Vote.objects.filter(comment=comment).count() == 1
    client.force_login(charlie)
    client.post(url)
    comment.refresh_from_db()
    assert comment.vote_count == 2
    client.post(url)  # charlie toggles it off
    comment.refresh_from_db()
    assert comment.vote_count == 1
    assert list(Vote.objects.values_list("user__username", flat=True)) == ["bob"]


def test_voting_on_a_hidden_comment_is_404(client, alice, bob, question):
    comment = say(question, alice, "Hidden")
    Comment.objects.filter(pk=comment.pk).update(hidden=True)
    client.force_login(bob)
    assert client.post(reverse("comment-vote", args=[comment.pk])).status_code == 404


def test_the_thread_sorts_by_top_or_new(client, alice, bob, charlie, question):
    older = say(question, alice, "Older but loved")
    say(question, alice, "Newer and ignored")
    for voter in (bob, charlie):
        discussion_services.comment_vote(comment=older, user=voter)
    client.force_login(alice)
    new = client.get(thread_url(question, discussion="open", sort="new")).content.decode()
    assert new.index("Newer and ignored") < new.index("Older but loved")
    top = client.get(thread_url(question, discussion="open", sort="top")).content.decode()
    assert top.index("Older but loved") < top.index("Newer and ignored")


# Moderation


def test_an_admin_hides_and_restores_a_comment(client, alice, bob, admin_user, question):
    comment = say(question, alice, "Rude words")
    say(question, bob, "A reply to it", parent=comment)
    client.force_login(admin_user)
    client.post(reverse("comment-hide", args=[comment.pk]), {"hidden": "1"})
    comment.refresh_from_db()
    assert comment.hidden and comment.hidden_by == admin_user
    assert "Rude words" in client.get(thread_url(question, discussion="open")).content.decode()
    client.force_login(bob)
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert "Rude words" not in page
    assert "[hidden by a moderator]" in page
    client.force_login(admin_user)
    client.post(reverse("comment-hide", args=[comment.pk]), {"hidden": "0"})
    client.force_login(bob)
    assert "Rude words" in client.get(thread_url(question, discussion="open")).content.decode()


def test_only_admins_may_hide_comments_or_lock_threads(client, alice, bob, charlie, question):
    comment = say(question, alice, "Fine words")
    for person in (alice, bob, charlie):
        client.force_login(person)
        assert client.post(reverse("comment-hide", args=[comment.pk]), {"hidden": "1"}).status_code == 404
        assert client.post(reverse("thread-lock", args=[question.slug]), {"locked": "1"}).status_code == 404
        assert client.get(reverse("discussion-reports")).status_code == 404
    comment.refresh_from_db()
    assert not comment.hidden
    assert not ThreadLock.objects.exists()


def test_a_locked_thread_refuses_posts_and_replies(client, alice, bob, admin_user, question):
    comment = say(question, alice, "Before the lock")
    client.force_login(admin_user)
    client.post(reverse("thread-lock", args=[question.slug]), {"locked": "1"})
    assert ThreadLock.objects.filter(question=question).exists()
    client.force_login(bob)
    page = client.get(thread_url(question, discussion="open")).content.decode()
    assert "This discussion is locked" in page
    assert 'id="comment-form"' not in page
    response = client.post(post_url(question), {"body": "After the lock"})
    assert response.status_code == 403
    assert "locked" in response.content.decode()
    response = client.post(post_url(question), {"body": "Reply after the lock", "parent": comment.pk})
    assert response.status_code == 403
    assert Comment.objects.count() == 1
    client.force_login(admin_user)
    client.post(reverse("thread-lock", args=[question.slug]), {"locked": "0"})
    client.force_login(bob)
    assert client.post(post_url(question), {"body": "After the unlock"}).status_code == 302
    assert Comment.objects.count() == 2


def test_a_locked_thread_refuses_a_post_sent_with_htmx_with_a_message(client, bob, admin_user, question):
    ThreadLock.objects.create(question=question, locked_by=admin_user)
    client.force_login(bob)
    response = client.post(
        post_url(question) + "?discussion=open", {"body": "After the lock"}, headers={"HX-Request": "true"}
    )
    assert "This discussion is locked: no new comments." in response.content.decode()
    assert not Comment.objects.exists()


def test_a_user_reports_a_comment_and_admins_see_the_report(client, alice, bob, admin_user, question):
    comment = say(question, alice, "Questionable")
    client.force_login(bob)
    response = client.post(
        reverse("comment-report", args=[comment.pk]), {"reason": "spam"}, headers={"HX-Request": "true"}
    )
    assert f'id="report-{comment.pk}"' in response.content.decode()
    client.post(reverse("comment-report", args=[comment.pk]), {"reason": "again"})
    assert Report.objects.get().reason == "spam"
    client.force_login(admin_user)
    page = client.get(reverse("discussion-reports")).content.decode()
    assert "Questionable" in page and "spam" in page
    client.post(reverse("comment-hide", args=[comment.pk]), {"hidden": "1", "next": "reports"})
    assert Report.objects.get().resolved


def test_an_admin_dismisses_a_report_and_the_comment_stays_visible(client, alice, bob, admin_user, question):
    comment = say(question, alice, "Harmless")
    report = discussion_services.comment_report(comment=comment, reporter=bob, reason="rude?")
    client.force_login(bob)
    assert client.post(reverse("report-dismiss", args=[report.pk])).status_code == 404
    client.force_login(admin_user)
    response = client.post(reverse("report-dismiss", args=[report.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("discussion-reports")
    report.refresh_from_db()
    comment.refresh_from_db()
    assert report.resolved and not comment.hidden
    assert "Harmless" not in client.get(reverse("discussion-reports")).content.decode()


# Rate limits


def test_posting_too_fast_is_refused_with_a_clear_message(client, alice, question):
    client.force_login(alice)
    for n in range(discussion_services.POSTS_PER_MINUTE):
        assert client.post(post_url(question), {"body": f"Post {n}"}).status_code == 302
    response = client.post(post_url(question), {"body": "One too many"})
    assert response.status_code == 429
    html = response.content.decode()
    assert "You are posting too fast: wait" in html and "seconds" in html
    assert "One too many" in html  # the text is kept for the person to copy
    assert Comment.objects.count() == discussion_services.POSTS_PER_MINUTE


def test_the_rate_limit_is_per_person(client, alice, bob, question):
    for n in range(discussion_services.POSTS_PER_MINUTE):
        say(question, alice, f"Post {n}")
    client.force_login(bob)
    assert client.post(post_url(question), {"body": "Bob's turn"}).status_code == 302


def test_the_daily_limit_holds_across_minutes(alice, question, monkeypatch):
    clock = [1_000_000_000.0]
    monkeypatch.setattr(discussion_services.time, "time", lambda: clock[0])
    for n in range(discussion_services.POSTS_PER_DAY):
        clock[0] += 61 if n % discussion_services.POSTS_PER_MINUTE == 0 else 1
        say(question, alice, f"Post {n}")
    clock[0] += 61
    with pytest.raises(discussion_services.RateLimited) as refused:
        say(question, alice, "One too many today")
    assert "You are posting too fast: wait" in str(refused.value)
    assert refused.value.wait_s > 60


# A long thread


def test_a_thread_of_a_thousand_comments_loads_in_a_bounded_number_of_queries_and_paginates(
    client, alice, bob, question, django_assert_max_num_queries
):
    now = timezone.now()
    tops = Comment.objects.bulk_create(
        Comment(
            question=question,
            author=alice if n % 2 else bob,
            body_markdown=f"Comment number {n}",
            body_html=f"<p>Comment number {n}</p>",
            created_at=now - timedelta(seconds=n),
        )
        for n in range(900)
    )
    Comment.objects.bulk_create(
        Comment(
            question=question,
            author=bob,
            parent=tops[n % 20],
            body_markdown=f"Reply {n}",
            body_html=f"<p>Reply number {n}</p>",
        )
        for n in range(100)
    )
    Vote.objects.create(comment=tops[0], user=alice)
    round_record(alice, question, score=80)
    client.force_login(alice)
    with django_assert_max_num_queries(30):
        response = client.get(thread_url(question))
    html = response.content.decode()
    assert "Discussion · 1000" in html
    assert "Comment number 0<" in html and "Comment number 19<" in html
    assert "Comment number 20<" not in html
    assert "Reply number 0<" in html
    assert "Page 1 of 45" in html
    with django_assert_max_num_queries(30):
        second = client.get(thread_url(question, page=2), headers={"HX-Request": "true"})
    assert "Comment number 20<" in second.content.decode()
    with django_assert_max_num_queries(30):
        client.get(thread_url(question, page=45))


def test_nobody_votes_for_their_own_comment_and_sees_no_vote_button_on_it(client, alice, bob, question):
    own = say(question, alice, "Mine")
    other = say(question, bob, "Theirs")
    round_record(alice, question)
    client.force_login(alice)
    page = client.get(thread_url(question)).content.decode()
    assert f'<form id="vote-{own.pk}"' not in page and f'<span id="vote-{own.pk}"' in page
    assert f'<form id="vote-{other.pk}"' in page
    refused = client.post(reverse("comment-vote", args=[own.pk]), {"up": "1"}, headers={"HX-Request": "true"})
    assert refused.status_code == 400
    assert refused.content.decode() == "You cannot vote for your own comment."
    assert not Vote.objects.exists()


def test_anchors_read_as_labels_in_the_list_and_on_comments(client, alice, question):
    say(question, alice, "About the cache", anchor_key="quantity:kv_bytes_per_token")
    round_record(alice, question)
    client.force_login(alice)
    page = client.get(thread_url(question)).content.decode()
    assert '<option value="quantity:kv_bytes_per_token">KV cache per token</option>' in page
    assert '<option value="phase:numbers">Numbers</option>' in page
    assert ">on KV cache per token</a>" in page
    assert "quantity: kv_bytes_per_token" not in page and "on kv_bytes_per_token" not in page
