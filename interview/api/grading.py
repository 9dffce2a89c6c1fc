"""Grading over the API: `POST /api/questions/<slug>/grade/` checks a submission outside a round."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from grading.core.verdicts import VERDICTS
from grading.core.vocabulary import CHECKS
from interview.api.submission import SubmissionSerializer
from interview.selectors import published_version_or_404
from questions.services.grading import question_version_grade
from rounds.services.reference_checks import reference_check_record
from rounds.services.reference_guard import ReferenceHidden, round_hiding_reference

# Request: interview.api.submission.SubmissionSerializer, checked by grading.core.submission.read_submission
# (the CLI's and the save's check).


# Response: the grading report (grading.core.grader.grade).


class LineSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    phase = serializers.CharField()
    weight = serializers.FloatField()
    check = serializers.ChoiceField(choices=CHECKS)
    tolerance = serializers.FloatField(allow_null=True)
    unit = serializers.CharField()
    kind = serializers.ChoiceField(choices=["input", "derived"])
    verdict = serializers.ChoiceField(choices=VERDICTS)
    verdict_label = serializers.CharField(help_text='With the band a pass fell in: "Correct (within 5%)"')
    band = serializers.CharField(help_text='The line\'s check and band: "within 5%", "whole number, ±1"')
    tone = serializers.ChoiceField(choices=["correct", "warn", "bad"])
    credit = serializers.FloatField()
    message = serializers.CharField()
    note = serializers.CharField()
    given_text = serializers.CharField()
    given = serializers.FloatField(allow_null=True, help_text="In the line's unit")
    implied = serializers.FloatField(
        allow_null=True, help_text="What their own inputs imply, in the line's unit"
    )
    implied_shown = serializers.CharField()
    reference = serializers.FloatField(
        allow_null=True, help_text="In the line's unit; null where it is no limit (reference_shown says so)"
    )
    reference_shown = serializers.CharField()
    range = serializers.ListField(
        child=serializers.JSONField(),
        allow_null=True,
        help_text='[low, high] in the line\'s unit; the high is "unbounded" where the limit may be absent',
    )
    source = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.source
    factor = serializers.FloatField(allow_null=True, help_text="The unit factor of a unit error")
    driver = serializers.CharField(allow_null=True, help_text="The assumption that moves the line")


class ComponentSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    verdict = serializers.ChoiceField(choices=["present", "incomplete", "missing"])
    tone = serializers.CharField()
    matched_ids = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()
    credit = serializers.FloatField()
    job_named = serializers.ListField(
        child=serializers.CharField(), help_text="The jobs of its kind the box's job text names"
    )
    failure_named = serializers.ListField(
        child=serializers.CharField(), help_text="The failure modes of its kind its failure text names"
    )
    reference_job_named = serializers.ListField(child=serializers.CharField())
    reference_failure_named = serializers.ListField(child=serializers.CharField())


class ExtraBoxSerializer(serializers.Serializer):
    id = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    kind = serializers.CharField()
    message = serializers.CharField()


class DesignReportSerializer(serializers.Serializer):
    components = ComponentSerializer(many=True)
    extra = ExtraBoxSerializer(many=True)
    path = serializers.ListField(child=serializers.CharField())
    path_ok = serializers.BooleanField(allow_null=True)
    path_message = serializers.CharField()
    problems = serializers.ListField(child=serializers.CharField())
    coverage = serializers.FloatField()
    vocabulary_version = serializers.IntegerField(help_text="The palette version whose words were matched")


class SensitivitySerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    elasticity = serializers.FloatField()


class ScoresSerializer(serializers.Serializer):
    numbers = serializers.FloatField(allow_null=True)
    arithmetic = serializers.FloatField(allow_null=True)
    shape = serializers.FloatField(allow_null=True)
    depth = serializers.FloatField(
        required=False, help_text="Only when depth answers were graded: the mean of the depth items' scores"
    )
    overall = serializers.FloatField(allow_null=True)


class DepthLineSerializer(LineSerializer):
    carried = serializers.BooleanField(
        help_text="Right as their own pre-change value times the change's ratio (error carried forward)"
    )


class ConsequenceSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="The palette kind of the box that must change")
    kind_name = serializers.CharField()
    names = serializers.CharField(help_text="The vocabulary term its job, failure or note must name")
    says = serializers.CharField(help_text="The change, as the question's author explains it")
    met = serializers.BooleanField()
    box_ids = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()


class CurveballReportSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    says = serializers.CharField()
    set = serializers.DictField(
        child=serializers.FloatField(), help_text="Input -> its new value, in its unit"
    )
    scenario = serializers.CharField(
        required=False, allow_blank=True, help_text="The scenario replayed under the change when answered"
    )
    answered = serializers.BooleanField(required=False, help_text="At least one of its lines was typed")
    lines = DepthLineSerializer(many=True)
    design = ConsequenceSerializer(many=True)
    lines_credit = serializers.FloatField()
    lines_score = serializers.FloatField()
    design_met = serializers.IntegerField()
    design_total = serializers.IntegerField()
    credit = serializers.FloatField()
    score = serializers.FloatField(help_text="lines_share x lines_score + design_share x 100 x met / total")


class DecisionOptionReportSerializer(serializers.Serializer):
    id = serializers.CharField()
    choice = serializers.CharField()
    tradeoff = serializers.CharField()
    your_place = serializers.IntegerField(allow_null=True)
    defensible_place = serializers.IntegerField(allow_null=True, help_text="In the closest defensible order")


class DecisionNumberReportSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    unit = serializers.CharField()
    band = serializers.ListField(child=serializers.FloatField())
    band_shown = serializers.CharField()
    band_note = serializers.CharField(
        required=False, help_text="In a variant round, how the band follows the round's values"
    )
    given_text = serializers.CharField()
    given = serializers.FloatField(allow_null=True)
    credit = serializers.FloatField()
    message = serializers.CharField()


class DecisionReportSerializer(serializers.Serializer):
    id = serializers.CharField()
    text = serializers.CharField()
    options = DecisionOptionReportSerializer(many=True)
    order = serializers.ListField(child=serializers.CharField(), help_text="Their order, known options only")
    ignored = serializers.ListField(
        child=serializers.CharField(), help_text="Ids they sent that are no option"
    )
    best_order = serializers.ListField(child=serializers.CharField())
    orders = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    places = serializers.IntegerField()
    order_length = serializers.IntegerField()
    order_credit = serializers.FloatField()
    order_score = serializers.FloatField()
    number = DecisionNumberReportSerializer(allow_null=True)
    credit = serializers.FloatField()
    score = serializers.FloatField()


class NotOfferedSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()


class DepthReportSerializer(serializers.Serializer):
    curveballs = CurveballReportSerializer(many=True, help_text="The curveballs offered, each counted")
    follow_ups = DecisionReportSerializer(many=True)
    not_offered = NotOfferedSerializer(many=True, help_text="Curveballs never offered: listed, not counted")
    offer_words = serializers.CharField(
        required=False, help_text="A round's report: how its curveballs were offered, and so which count"
    )
    items = serializers.IntegerField(help_text="The items counted: curveballs offered and follow-ups")
    lines_share = serializers.FloatField()
    design_share = serializers.FloatField()
    order_share = serializers.FloatField()
    number_share = serializers.FloatField()
    score = serializers.FloatField(allow_null=True, help_text="The mean of the counted items' scores")


class PacingSerializer(serializers.Serializer):
    phase = serializers.CharField()
    planned_s = serializers.FloatField()
    spent_s = serializers.FloatField()
    edits = serializers.IntegerField()
    first_s = serializers.FloatField(allow_null=True)
    last_s = serializers.FloatField(allow_null=True)


class QuestionRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    version = serializers.IntegerField(allow_null=True)
    fingerprint = serializers.CharField()


class ReportSerializer(serializers.Serializer):
    grader_version = serializers.CharField()
    question = QuestionRefSerializer()
    variant = serializers.DictField(child=serializers.FloatField(), allow_null=True)
    lines = LineSerializer(many=True)
    unknown_numbers = serializers.ListField(child=serializers.CharField())
    design = DesignReportSerializer(allow_null=True)
    sensitivity = SensitivitySerializer(many=True)
    scores = ScoresSerializer()
    score_weights = serializers.DictField(child=serializers.FloatField())
    pacing = PacingSerializer(many=True, allow_null=True)
    depth = DepthReportSerializer(
        required=False, help_text="Only when the submission answered the depth phase"
    )
    depth_unscored = serializers.CharField(
        required=False, help_text="A round's report without depth: why its depth phase was never offered"
    )


class QuestionGradeApi(APIView):
    @extend_schema(
        request=SubmissionSerializer,
        responses={
            200: ReportSerializer,
            400: OpenApiResponse(
                ErrorSerializer, description="Malformed submission: `errors` by field, e.g. numbers.NAME"
            ),
            404: OpenApiResponse(ErrorSerializer, description="No such published question"),
            409: OpenApiResponse(
                ErrorSerializer,
                description="You have an unsubmitted round on this question (`round`, `round_url`)",
            ),
        },
        summary="Grade a submission against a question (a practice check outside a round)",
    )
    def post(self, request: Request, slug: str) -> Response:
        """Grade a submission (numbers, design, events) against a published question's reference model,
        outside a round. Refused while you have an unsubmitted round on the question."""
        version = published_version_or_404(slug)
        if hiding := round_hiding_reference(user=request.user, question=version.question):
            raise ReferenceHidden(hiding, question=version.question)
        SubmissionSerializer(data=request.data).is_valid(raise_exception=True)
        report = question_version_grade(version=version, submission=request.data)
        reference_check_record(user=request.user, question=version.question)
        return Response(report)
