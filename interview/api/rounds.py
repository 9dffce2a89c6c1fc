"""Rounds over the API: start, read, submit, report (the save: interview.api.work). Each scoped to its
owner."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.http_types import AuthedApiRequest
from config.service_errors import ErrorSerializer
from interview.api.grading import ReportSerializer, ScoresSerializer
from interview.api.review_report import ReviewSerializer
from interview.api.submission import DepthAnswersSerializer
from interview.selectors import round_of_candidate
from questions.selectors import published_question_or_404
from rounds.models import Round, RoundMode, RoundStatus
from rounds.services.depth import DepthError, round_depth_save, round_depth_view
from rounds.services.grading import round_review_complete
from rounds.services.rounds import RoundNotSubmitted, round_close_if_expired, round_start, round_submit


class SubmittedScoresSerializer(ScoresSerializer):
    review = serializers.FloatField(
        allow_null=True, required=False, help_text="Review rounds only; None while the replays run"
    )


class SubmittedReportSerializer(ReportSerializer):
    """The grade endpoint's report, as kept when the round was submitted; a review round adds `review`."""

    error = serializers.CharField(
        required=False, help_text="Only when the engine could not grade the round: why (nothing is graded)"
    )
    scores = SubmittedScoresSerializer()
    review = ReviewSerializer(
        required=False,
        help_text="Review rounds only: the marked failure points, the ranking of fixes, the replays and "
        "the review score",
    )


class RoundSerializer(serializers.ModelSerializer):
    question = serializers.CharField(source="question_version.question.slug")
    question_version = serializers.IntegerField(source="question_version.number")
    revision = serializers.IntegerField(source="work.revision")
    design = serializers.JSONField(source="work.design")
    numbers = serializers.DictField(child=serializers.CharField(), source="work.numbers")
    scratch = serializers.CharField(source="work.scratch")
    fixes = serializers.JSONField(source="work.fixes")
    time_left_s = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = [
            "id",
            "question",
            "question_version",
            "mode",
            "status",
            "variant_text",
            "started_at",
            "deadline",
            "submitted_at",
            "score",
            "revision",
            "design",
            "numbers",
            "scratch",
            "fixes",
            "time_left_s",
        ]

    def get_time_left_s(self, round_: Round) -> float | None:
        return round_.time_left_s()


class RoundStartInput(serializers.Serializer):
    question = serializers.SlugField()
    mode = serializers.ChoiceField(choices=RoundMode.choices, default=RoundMode.TIMED)
    variant = serializers.BooleanField(default=False)


class RoundListApi(APIView):
    @extend_schema(responses=RoundSerializer(many=True))
    def get(self, request: AuthedApiRequest) -> Response:
        """Your rounds, newest first."""
        rounds = Round.objects.filter(candidate=request.user).select_related(
            "question_version__question", "work"
        )
        return Response(RoundSerializer(rounds[:200], many=True).data)

    @extend_schema(
        request=RoundStartInput, responses={201: RoundSerializer, 400: ErrorSerializer, 404: ErrorSerializer}
    )
    def post(self, request: Request) -> Response:
        """Start a round on a published question (timed or practice, optionally a variant)."""
        data = RoundStartInput(data=request.data)
        data.is_valid(raise_exception=True)
        question = published_question_or_404(data.validated_data["question"])
        round_ = round_start(
            candidate=request.user,
            question=question,
            mode=data.validated_data["mode"],
            variant=data.validated_data["variant"],
        )
        return Response(RoundSerializer(round_).data, status=status.HTTP_201_CREATED)


class RoundDetailApi(APIView):
    @extend_schema(responses={200: RoundSerializer})
    def get(self, request: Request, round_id: int) -> Response:
        """One of your rounds: status, clock and your saved work."""
        return Response(
            RoundSerializer(
                round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
            ).data
        )


class RoundSubmitApi(APIView):
    @extend_schema(request=None, responses={200: RoundSerializer, 423: ErrorSerializer})
    def post(self, request: Request, round_id: int) -> Response:
        """Submit your round: it is graded and its report is kept."""
        round_ = round_submit(round_id=round_of_candidate(user=request.user, round_id=round_id).pk)
        return Response(RoundSerializer(round_).data)


class RoundReportApi(APIView):
    @extend_schema(
        responses={
            200: inline_serializer("RoundReport", {"report": SubmittedReportSerializer()}),
            409: ErrorSerializer,
        }
    )
    def get(self, request: Request, round_id: int) -> Response:
        """The graded report of your submitted round: every line, the design, the scores and pacing, typed as
        the grade endpoint's report. A review round's replays are folded in once they are done, as the report
        page does."""
        round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
        if round_.status != RoundStatus.SUBMITTED:
            raise RoundNotSubmitted("This round has not been submitted yet.")
        return Response({"report": round_review_complete(round_=round_).report})


class DepthLineViewSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    unit = serializers.CharField()
    given = serializers.CharField(help_text="What the candidate typed so far")


class DepthNoteSerializer(serializers.Serializer):
    box = serializers.CharField(help_text="A box id of the design, or empty")
    text = serializers.CharField()


class CurveballViewSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    says = serializers.CharField(help_text="The change, with its new values")
    lines = DepthLineViewSerializer(many=True)
    notes = DepthNoteSerializer(many=True, help_text="What-changes notes on boxes (blank rows to fill)")


class DecisionOptionViewSerializer(serializers.Serializer):
    id = serializers.CharField()
    choice = serializers.CharField()
    place = serializers.IntegerField(allow_null=True, help_text="Its place in the candidate's order so far")


class DecisionNumberViewSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    unit = serializers.CharField()
    given = serializers.CharField()


class DecisionViewSerializer(serializers.Serializer):
    id = serializers.CharField()
    text = serializers.CharField()
    options = DecisionOptionViewSerializer(many=True, help_text="In an order drawn for the round")
    places = serializers.ListField(child=serializers.IntegerField())
    number = DecisionNumberViewSerializer(allow_null=True)


class DepthViewSerializer(serializers.Serializer):
    has_depth = serializers.BooleanField(
        help_text="Whether the question has curveballs or follow-up decisions"
    )
    open = serializers.BooleanField(
        help_text="The depth phase has started (the clock, or the candidate moved)"
    )
    locked = serializers.BooleanField(help_text="The round has ended")
    more = serializers.BooleanField(help_text="Another curveball can be shown")
    curveballs = CurveballViewSerializer(many=True, help_text="The curveballs shown so far, in order")
    decisions = DecisionViewSerializer(many=True)


class RoundDepthApi(APIView):
    @extend_schema(
        responses={200: DepthViewSerializer},
        summary="The depth phase of your round: the curveballs shown so far and the follow-up decisions",
    )
    def get(self, request: Request, round_id: int) -> Response:
        """Nothing of the curveballs or follow-ups before the round's clock reaches its depth phase (or you
        move there on the round page); then the curveballs shown so far, one more at a time, and the
        follow-up decisions, with what you typed. No reference value and no trade-off until the report."""
        round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
        view = round_depth_view(round_=round_)
        return Response(DepthViewSerializer(view).data)

    @extend_schema(
        request=DepthAnswersSerializer,
        responses={200: DepthViewSerializer, 400: ErrorSerializer},
        summary="Save your depth answers (the shape the grader reads under `depth`)",
    )
    def post(self, request: Request, round_id: int) -> Response:
        """Keep the depth answers for the curveballs shown and the follow-ups: `{curveballs: {id: {numbers,
        notes}}, follow_ups: {id: {order, number}}}`, the same JSON the round page saves and `grade` reads."""
        round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
        if not isinstance(request.data, dict):
            raise DepthError("Send an object with curveballs and follow_ups.")
        round_depth_save(round_=round_, answers=request.data)
        return Response(DepthViewSerializer(round_depth_view(round_=round_)).data)
