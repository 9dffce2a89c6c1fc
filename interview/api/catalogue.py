from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from interview.question_visibility import view_for
from questions.models import Question, QuestionVersion
from questions.selectors import published_question_or_404


class QuestionSummarySerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="current_version.number")

    class Meta:
        model = Question
        fields = ["slug", "title", "track", "difficulty", "kind", "summary", "version"]


class VersionSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = QuestionVersion
        fields = ["number", "source", "created_at"]


class QuestionDetailSerializer(QuestionSummarySerializer):
    spec = serializers.SerializerMethodField()

    class Meta(QuestionSummarySerializer.Meta):
        fields = [*QuestionSummarySerializer.Meta.fields, "spec"]

    def get_spec(self, question: Question) -> dict:
        assert question.current_version is not None  # the API lists published questions only
        return view_for(self.context["request"].user, question.current_version.spec)


class VersionDetailSerializer(VersionSummarySerializer):
    spec = serializers.SerializerMethodField()

    class Meta(VersionSummarySerializer.Meta):
        fields = [*VersionSummarySerializer.Meta.fields, "spec"]

    def get_spec(self, version: QuestionVersion) -> dict:
        return view_for(self.context["request"].user, version.spec)


class QuestionListApi(APIView):
    permission_classes = [AllowAny]  # the catalogue is public on the site too

    @extend_schema(responses=QuestionSummarySerializer(many=True))
    def get(self, request: Request) -> Response:
        """Published questions, as the catalogue lists them; readable without logging in."""
        questions = Question.objects.published()
        return Response(QuestionSummarySerializer(questions, many=True).data)


class QuestionDetailApi(APIView):
    permission_classes = [AllowAny]  # the question page is public on the site too

    @extend_schema(responses=QuestionDetailSerializer)
    def get(self, request: Request, slug: str) -> Response:
        """A published question's current version: the prompt, plan and asked quantities, never a reference
        value before you submit; readable without logging in."""
        question = published_question_or_404(slug)
        return Response(QuestionDetailSerializer(question, context={"request": request}).data)


class QuestionVersionListApi(APIView):
    @extend_schema(responses=VersionSummarySerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The published versions of a question, oldest first."""
        question = published_question_or_404(slug)
        return Response(VersionSummarySerializer(question.versions.order_by("number"), many=True).data)


class QuestionVersionDetailApi(APIView):
    @extend_schema(responses=VersionDetailSerializer)
    def get(self, request: Request, slug: str, number: int) -> Response:
        """One published version of a question, shown as the current one is."""
        version = get_object_or_404(
            QuestionVersion, question__slug=slug, number=number, question__current_version__isnull=False
        )
        return Response(VersionDetailSerializer(version, context={"request": request}).data)
