"""Pages for discussion, bookmarks and concepts; added to interview/urls.py."""

from django.urls import path

from interview.views import bookmarks, concepts, discussion

community_urlpatterns = [
    path("questions/<slug:slug>/discussion/", discussion.thread, name="discussion-thread"),
    path("questions/<slug:slug>/discussion/post/", discussion.comment_post, name="comment-post"),
    path("questions/<slug:slug>/discussion/lock/", discussion.thread_lock_view, name="thread-lock"),
    path("comments/<int:comment_id>/edit/", discussion.comment_edit_view, name="comment-edit"),
    path("comments/<int:comment_id>/delete/", discussion.comment_delete_view, name="comment-delete"),
    path("comments/<int:comment_id>/vote/", discussion.comment_vote_view, name="comment-vote"),
    path("comments/<int:comment_id>/report/", discussion.comment_report_view, name="comment-report"),
    path("comments/<int:comment_id>/hide/", discussion.comment_hide_view, name="comment-hide"),
    path("discussion/reports/", discussion.reports, name="discussion-reports"),
    path(
        "discussion/reports/<int:report_id>/dismiss/", discussion.report_dismiss_view, name="report-dismiss"
    ),
    path("questions/<slug:slug>/bookmark/", bookmarks.toggle, name="bookmark-toggle"),
    path("bookmarks/", bookmarks.bookmark_list, name="bookmarks"),
    path("concepts/", concepts.concept_list, name="concepts"),
    path("concepts/<slug:slug>/", concepts.concept_detail, name="concept-detail"),
]
