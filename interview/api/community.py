"""API for the discussion and bookmarks: list and post comments, toggle a vote, toggle and list bookmarks."""

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from interview.models import Comment
from interview.services.bookmarks import bookmark_toggle
from interview.services.discussion import (
    COMMENT_MAX_LENGTH,
    Anchor,
    DiscussionFolded,
    anchor_parse,
    comment_create,
    comment_vote,
    comments_voted_by,
    discussion_is_unlocked_for,
    thread_comments,
    thread_is_locked,
)
from interview.views.discussion import COMMENTS_PER_PAGE, is_moderator
from questions.models import Question
from questions.selectors import published_question_or_404


class CommentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    author = serializers.CharField(source="author.username")
    parent = serializers.IntegerField(source="parent_id", allow_null=True)  # type: ignore[assignment]  # a declared field, not Field.parent
    body_html = serializers.SerializerMethodField()
    anchor_kind = serializers.CharField()
    anchor_value = serializers.CharField()
    vote_count = serializers.IntegerField()
    voted = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    edited_at = serializers.DateTimeField(allow_null=True)
    deleted = serializers.BooleanField()
    hidden = serializers.BooleanField()

    def get_body_html(self, comment: Comment) -> str:
        if comment.deleted or (comment.hidden and not self.context.get("moderator")):
            return ""
        return comment.body_html

    def get_voted(self, comment: Comment) -> bool:
        return comment.pk in self.context.get("voted", set())


class ThreadCommentSerializer(CommentOutputSerializer):
    replies = CommentOutputSerializer(many=True, source="replies.all")


class CommentListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # anyone reads the thread, as on the question page

    class CommentPageOutputSerializer(serializers.Serializer):
        folded = serializers.BooleanField(
            help_text="True until you submit a round; pass open=1 to read anyway"
        )
        locked = serializers.BooleanField()
        count = serializers.IntegerField()
        page = serializers.IntegerField()
        pages = serializers.IntegerField()
        results = ThreadCommentSerializer(many=True)

    class CommentPostInputSerializer(serializers.Serializer):
        body = serializers.CharField(max_length=COMMENT_MAX_LENGTH)
        parent = serializers.IntegerField(required=False, allow_null=True)  # type: ignore[assignment]  # a declared field, not Field.parent
        on = serializers.CharField(
            required=False, allow_blank=True, default="", help_text="e.g. phase:numbers"
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("sort", str, enum=["new", "top"]),
            OpenApiParameter("on", str, description="quantity:<name> or phase:<name>"),
            OpenApiParameter("page", int),
            OpenApiParameter("open", int, description="1 reads a folded thread anyway"),
        ],
        responses=CommentPageOutputSerializer,
    )
    def get(self, request: Request, slug: str) -> Response:
        """A question's discussion, newest or top first, paginated. Folded (no comments) until you submit a
        round on the question, unless open=1; readable without logging in, as on the site."""
        question = published_question_or_404(slug)
        opened = request.query_params.get("open") == "1" or discussion_is_unlocked_for(
            user=request.user, question=question
        )
        anchor = anchor_parse(question=question, key=request.query_params.get("on", "")) or Anchor("", "")
        sort = "top" if request.query_params.get("sort") == "top" else "new"
        paginator = Paginator(thread_comments(question=question, anchor=anchor, sort=sort), COMMENTS_PER_PAGE)
        page = paginator.get_page(request.query_params.get("page"))
        comments = list(page.object_list) if opened else []
        voted = comments_voted_by(user=request.user, comments=comments)
        context = {"voted": voted, "moderator": is_moderator(request.user)}
        data = {
            "folded": not opened,
            "locked": thread_is_locked(question=question),
            "count": paginator.count,
            "page": page.number,
            "pages": paginator.num_pages,
            "results": ThreadCommentSerializer(comments, many=True, context=context).data,
        }
        return Response(data)

    @extend_schema(
        request=CommentPostInputSerializer,
        responses={
            201: CommentOutputSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            429: ErrorSerializer,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Post a comment, or a reply with parent; optionally anchored to a phase or a quantity (on). Refused
        on a locked thread and when posting too fast."""
        question = published_question_or_404(slug)
        data = self.CommentPostInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        parent_id = data.validated_data.get("parent")
        parent = get_object_or_404(Comment, pk=parent_id, question=question) if parent_id else None
        comment = comment_create(
            question=question,
            author=request.user,
            body=data.validated_data["body"],
            parent=parent,
            anchor_key=data.validated_data["on"],
        )
        return Response(CommentOutputSerializer(comment).data, status=status.HTTP_201_CREATED)


class CommentVoteApi(APIView):
    class VoteInputSerializer(serializers.Serializer):
        up = serializers.BooleanField(
            required=False, allow_null=True, default=None, help_text="Omit to toggle"
        )

    class VoteOutputSerializer(serializers.Serializer):
        voted = serializers.BooleanField()
        vote_count = serializers.IntegerField()

    @extend_schema(
        request=VoteInputSerializer,
        responses={200: VoteOutputSerializer, 400: ErrorSerializer, 403: ErrorSerializer},
    )
    def post(self, request: Request, comment_id: int) -> Response:
        """Vote for a comment, unvote (up=false) or toggle. Refused on your own comment and on a thread still
        folded for you."""
        comment = get_object_or_404(
            Comment.objects.select_related("question"),
            pk=comment_id,
            deleted=False,
            hidden=False,
            question__current_version__isnull=False,
        )
        data = self.VoteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if not discussion_is_unlocked_for(user=request.user, question=comment.question):
            raise DiscussionFolded(
                "This discussion is folded for you until you submit a round on the question."
            )
        voted, count = comment_vote(comment=comment, user=request.user, up=data.validated_data["up"])
        return Response({"voted": voted, "vote_count": count})


class BookmarkToggleApi(APIView):
    class BookmarkToggleInputSerializer(serializers.Serializer):
        on = serializers.BooleanField(
            required=False, allow_null=True, default=None, help_text="Omit to toggle"
        )

    class BookmarkToggleOutputSerializer(serializers.Serializer):
        bookmarked = serializers.BooleanField()

    @extend_schema(request=BookmarkToggleInputSerializer, responses=BookmarkToggleOutputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        """Bookmark a question, remove the bookmark (on=false) or toggle it."""
        question = published_question_or_404(slug)
        data = self.BookmarkToggleInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(
            {
                "bookmarked": bookmark_toggle(
                    user=request.user, question=question, on=data.validated_data["on"]
                )
            }
        )


class BookmarkListApi(APIView):
    class BookmarkedQuestionOutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        title = serializers.CharField()
        track = serializers.CharField()
        difficulty = serializers.CharField()

    @extend_schema(responses=BookmarkedQuestionOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        """The questions you bookmarked, most recent first."""
        questions = (
            Question.objects.published()
            .filter(bookmarks__user=request.user)
            .order_by("-bookmarks__created_at")
        )
        return Response(self.BookmarkedQuestionOutputSerializer(questions, many=True).data)


urlpatterns = [
    path("questions/<slug:slug>/comments/", CommentListApi.as_view(), name="api-comment-list"),
    path("comments/<int:comment_id>/vote/", CommentVoteApi.as_view(), name="api-comment-vote"),
    path("questions/<slug:slug>/bookmark/", BookmarkToggleApi.as_view(), name="api-bookmark-toggle"),
    path("bookmarks/", BookmarkListApi.as_view(), name="api-bookmark-list"),
]
